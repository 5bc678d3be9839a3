"""The indexes searched beside an edition's: tournament documents' sections and card rulings.

Both hold documents of the one schema (:func:`index.search.schema.make_schema` with
``extra=True``: the same fields and analysis, plus ``document`` and ``details``), so a question
is read, scored and re-ranked in them exactly as in the rules, and their hits are merged with
the rules' by score (:class:`index.search.Searcher`), each index's scaled by its weight:

* the tournament documents (:mod:`index.search.tournament`): one index of the sections of the
  edition of each document that goes with the CR edition searched, cached under the data
  folder by what it was built from;
* the rulings (:mod:`index.search.rulings`): one index of the stored card snapshot's rulings,
  kept in the snapshot's folder.

Each records what it was built from (:func:`extra_key`: this module's version, the analysis
tables and what the caller says of its content) and is rebuilt when that changes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .build import META, Progress, search_index_folder
from .schema import SCHEMA_VERSION

if TYPE_CHECKING:
    from .source import OpenIndex

__all__ = [
    "DOCUMENTS_QUIET",
    "DOCUMENTS_WEIGHT",
    "EXTRA_VERSION",
    "RULINGS_IN_ALL",
    "RULINGS_WEIGHT",
    "TOURNAMENT_PHRASES",
    "TOURNAMENT_WORDS",
    "build_extra_index",
    "extra_is_current",
    "extra_key",
    "named_cards",
    "names_a_card",
    "rulings_of",
    "speaks_of_tournaments",
]

EXTRA_VERSION = 2
"""Bumped whenever what these indexes hold changes (their documents, not the schema, or how
they are written: 2 writes each segment's files apart, see :func:`build_extra_index`)."""

DOCUMENTS_WEIGHT = 1.0
"""What a tournament document's section scores, as a share of its own index's score, in a
question that speaks of tournaments (:func:`speaks_of_tournaments`)."""
DOCUMENTS_QUIET = 0.0
"""The share of :data:`DOCUMENTS_WEIGHT` a section keeps in a question that does not (0: the
documents are not searched): they use the rules' words ("trigger", "draw", "attack"), and
their long sections stood among the rules in the answers to rules questions. On the real
questions (``benchmarks/relevance.py``: judge+docs beside judge+cards' 0.349), MRR@10 0.349 at
0 and 0.05, 0.346 at 0.1, 0.336 at 0.2, 0.308 at 0.3; our document questions' half S in a
search of everything, recall@5 / MRR 0.65 / 0.487 at 0, 0.65 / 0.494 at 0.2."""
RULINGS_WEIGHT = 1.0
"""What a ruling scores, as a share of its own index's score."""
RULINGS_IN_ALL = 3
"""The most rulings a search of everything shows, beside its results (``rulings``), never
among them: interleaved by score at any weight, the rulings of the cards a question names
pushed the rules that answer it down (see ``benchmarks/document_relevance.py``)."""

# Not "sideboard": the rules' wishes fetch from it (a real question of the tuning half, about
# Coax from the Blind Eternities, lost its rule to the MTR's sideboard sections), nor "fnm" or
# "prerelease", which set the scene of rules questions rather than ask about tournaments.
TOURNAMENT_WORDS = frozenset(
    [
        "penalty",
        "penalties",
        "infraction",
        "infractions",
        "judge",
        "judges",
        "judging",
        "tournament",
        "tournaments",
        "warning",
        "disqualification",
        "disqualified",
        "disqualify",
        "dq",
        "decklist",
        "decklists",
        "rel",
        "competitive",
        "round",
        "rounds",
        "match",
        "matches",
        "sideboarding",
        "slow",
        "stall",
        "stalling",
        "cheat",
        "cheated",
        "cheating",
        "cheater",
        "spectator",
        "spectators",
        "coach",
        "coaching",
        "bribe",
        "bribery",
        "wager",
        "wagering",
        "bet",
        "betting",
        "tardy",
        "tardiness",
        "late",
        "sleeve",
        "sleeves",
        "proxy",
        "proxies",
        "phone",
        "notes",
        "swiss",
        "pairing",
        "pairings",
        "tiebreaker",
        "tiebreakers",
        "draft",
        "drafting",
        "drafted",
        "concede",
        "conceded",
        "concession",
        "prize",
        "prizes",
        "organizer",
    ]
)
"""Words of a question that speaks of tournaments (and the documents that govern them)."""
TOURNAMENT_PHRASES = (
    "game loss",
    "match loss",
    "deck check",
    "marked cards",
    "deck list",
    "time called",
    "time was called",
    "time extension",
    "intentional draw",
    "intentionally draw",
    "outside assistance",
    "head judge",
    "call a judge",
)
"""Phrases of a question that speaks of tournaments, whose words alone do not."""


def analysis_digest() -> str:
    """A digest of the tables these indexes are analysed with (not the rules' phrasings,
    which they do not hold: editing those rebuilds no rulings index)."""
    from .schema import NEGATION_RE, NOT_NEGATIONS
    from .words import QUESTION_WORDS, TOKEN_PATTERN

    tables = [
        "judge-extra",
        EXTRA_VERSION,
        SCHEMA_VERSION,
        TOKEN_PATTERN,
        sorted(QUESTION_WORDS),
        NEGATION_RE.pattern,
        sorted(NOT_NEGATIONS),
    ]
    return hashlib.sha256(json.dumps(tables).encode()).hexdigest()


def extra_key(content: str) -> str:
    """What an index of ``content`` (the caller's digest of its documents) records."""
    return hashlib.sha256(f"{analysis_digest()}\n{content}\n".encode()).hexdigest()


EXTRA_LIMIT_MB = 32
"""The whoosh writer's memory buffer for the documents' and rulings' indexes, in MB. The card
import's peak is this index's: importing the shared card file took 27.7 s at 216 MiB peak with
256, 39.2 s / 154 MiB with 64, 41.8 s / 115 MiB with 32 (a quiet 2-core machine)."""


def build_extra_index(
    folder: Path,
    docs: Iterable[dict[str, Any]],
    *,
    key: str,
    title: str,
    progress: Progress | None = None,
    beside: Callable[[Path], None] | None = None,
) -> None:
    """Writes an index of ``docs`` into ``folder / "search"`` (a new build of its slot), which
    goes live whole when complete; ``key`` is its :func:`extra_key`. ``beside`` writes what
    goes with the index into its build folder, once ``docs`` have all been read.

    The segment's files are written apart, not in one compound file: opening a compound
    segment copies each of its files whole into memory (whoosh's ``BufferFile``), 41 ms of a
    cold search of everything with the rulings' 23 MB (11 ms without cards), where files
    apart are read where they lie; and with the offsets of the stored fields (see
    ``build._write_offsets``).
    """
    from ..atomic import Slot
    from .build import _write
    from .engine import whoosh

    w = whoosh()
    with Slot(folder / "search").new_build() as build:
        ix = w.index.create_in(str(build), _schema())
        _write(ix, docs, progress, limitmb=EXTRA_LIMIT_MB, compound=False, offsets=True)
        if beside is not None:
            beside(build)
        meta = {"schema": SCHEMA_VERSION, "extra": EXTRA_VERSION, "hash": key, "title": title}
        (build / META).write_text(json.dumps(meta), encoding="utf-8")


def _schema() -> Any:
    from .schema import make_schema

    return make_schema(extra=True)


def extra_is_current(folder: Path, key: str) -> bool:
    """Checks if ``folder`` holds an index built with :func:`build_extra_index` from ``key``."""
    live = search_index_folder(folder)
    if live is None:
        return False
    try:
        meta = json.loads((live / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(meta, dict) and meta.get("schema") == SCHEMA_VERSION and meta.get("hash") == key
    )


def speaks_of_tournaments(question: str) -> bool:
    """Checks if a question uses :data:`TOURNAMENT_WORDS` or :data:`TOURNAMENT_PHRASES`."""
    from glossary.fold import fold_text

    text = " ".join(re.findall(r"[\w']+", fold_text(question).casefold()))
    if any(word in TOURNAMENT_WORDS for word in text.split()):
        return True
    return any(phrase in text for phrase in TOURNAMENT_PHRASES)


def named_cards(cards: Iterable[str], question: str) -> list[str]:
    """The cards of ``cards`` that ``question`` names.

    A name of two words or more is found in any case ("platinum angel"); a one-word name must
    be written as printed, capitalised ("Humility"), or inside quotes: "fog", "flash" or
    "stifle" in a question are rarely the card. Each face of a split card counts.
    """
    from glossary.fold import fold_text

    text = fold_text(question)
    low = text.casefold()
    found: list[str] = []
    for card in cards:
        for name in fold_text(card).split(" // "):
            if name.casefold() not in low:
                continue  # the quick test: most cards of most hits are not in the question
            pattern = r"(?<![\w'])" + re.escape(name) + r"(?![\w'])"
            quoted = r"[\"']" + re.escape(name) + r"[\"']"
            if re.search(
                pattern, text, 0 if " " not in name.strip() else re.IGNORECASE
            ) or re.search(quoted, text, re.IGNORECASE):
                found.append(card)
                break
    return found


def rulings_of(src: OpenIndex, cards: Iterable[str], question: str) -> set[int] | None:
    """The documents of a rulings index ``src`` that are rulings of ``cards`` named in
    ``question`` (see :func:`names_a_card`); ``None`` when a card has no word to find them by
    (a name of stop words only).

    A search of everything shows only the rulings of the cards it names: searching those
    alone takes a fraction of a millisecond where all 23,707 took several, and finds a card's
    rulings that all the others outranked. They are found by their titles' words (each
    card's, all of them), and those of a few more cards with the same words are left out.
    """
    from .scoring import remembered_scores

    field = src.schema["title"]
    found: set[int] = set()
    for card in cards:
        words = set(field.process_text(card, mode="query"))
        if not words:
            return None
        common: set[int] | None = None
        for word in words:
            scored = remembered_scores(src, "title", field.to_bytes(word))
            docs = set(scored[0]) if scored is not None else set()
            common = docs if common is None else common & docs
        found |= common or set()
    return {d for d in found if names_a_card(src.stored_fields(d), question)}


def names_a_card(fields: dict[str, Any], question: str) -> bool:
    """Checks if ``question`` names one of the cards of a ruling's stored fields (see
    :func:`named_cards`)."""
    details = fields.get("details") or {}
    return bool(named_cards(details.get("cards") or (), question))
