"""The tournament documents and card rulings of ``../shared/`` as the benchmarks search them.

:func:`extras_home` stores them once in a data folder under ``benchmarks/.cache`` (the shared
PDFs and texts through ``index.tournament.ingest``, the AtomicCards file through
``index.cards.store``, then the rulings' index), and reuses it while the shared files and the
code's index versions are the same; :func:`extra_indexes` gives the indexes a Searcher reads
beside an edition's, as ``Edition.search`` opens them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DOCS = SHARED / "judge-docs"
CARDS = SHARED / "cards" / "AtomicCards.json.xz"
CACHE = ROOT / "benchmarks" / ".cache"


def _fingerprint() -> str:
    from index.search.extra import analysis_digest

    files = sorted(DOCS.glob("*.pdf")) + sorted(DOCS.glob("*.txt")) + [CARDS]
    h = hashlib.sha256(analysis_digest().encode())
    for path in files:
        if path.is_file():
            h.update(f"{path.name}\n{path.stat().st_size}\n".encode())
    return h.hexdigest()[:16]


def extras_home(cache: Path = CACHE) -> Path | None:
    """A data folder holding the shared documents and cards (None, with a note, if absent)."""
    from index.cards.store import CardStore
    from index.search.rulings import rulings_index
    from index.tournament.ingest import store_tournament_bytes

    if not DOCS.is_dir() or not CARDS.is_file():
        print(f"documents and rulings skipped: {DOCS} or {CARDS} is absent", file=sys.stderr)
        return None
    home = cache / f"extras-{_fingerprint()}"
    done = home / "done.json"
    if done.is_file():
        return home
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    stored = []
    for path in sorted(DOCS.glob("*.pdf")) + sorted(DOCS.glob("*.txt")):
        info = store_tournament_bytes(home, path.read_bytes(), path.name)
        stored.append(f"{info['document']} {info['edition']}")
    print(f"  stored {', '.join(stored)}", file=sys.stderr)
    store = CardStore(home)
    store.import_cards(CARDS)
    rulings_index(store)  # built by the import already: this only checks it
    done.write_text(json.dumps({"documents": stored}), encoding="utf-8")
    for old in cache.glob("extras-*"):
        if old != home:
            shutil.rmtree(old, ignore_errors=True)
    return home


def extra_indexes(
    home: Path, cr_edition: str | None = None, cr_editions: tuple[str, ...] = ()
) -> list[tuple[str, Path, float]]:
    """The documents' and rulings' indexes of ``home`` for a CR edition, with their weights."""
    from index.cards.store import CardStore
    from index.search.extra import DOCUMENTS_WEIGHT, RULINGS_WEIGHT
    from index.search.rulings import rulings_index
    from index.search.tournament import documents_index, select_documents
    from index.tournament.store import DocumentStore

    store = DocumentStore(home)
    chosen = select_documents(store, cr_edition, cr_editions)
    folder = documents_index(store, home / "cache", chosen)
    extras = []
    if folder is not None:
        extras.append(("documents", folder, DOCUMENTS_WEIGHT))
    extras.append(("rulings", rulings_index(CardStore(home)), RULINGS_WEIGHT))
    return extras
