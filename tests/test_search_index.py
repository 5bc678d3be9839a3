"""Search indexes: what they are built from, rebuilding a stale one, and the Searcher's shape."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.reader import read_cr_path
from index.search import (
    SCOPE_TABLE,
    NoSearchIndexError,
    QuerySyntaxError,
    Searcher,
    UnknownScopeError,
    build_notes_index,
    build_search_index,
    index_is_current,
    open_search_index,
    search,
    search_index_folder,
)
from index.search import phrasings as module
from index.store import EditionStore
from judge_cli.cli import cli

MINI = Path(__file__).parent / "fixtures" / "mini-cr.txt"

FIRST_ROW = "704.5f\ttoughness 0 or less\tmy guy shrank to zero, is he gone\n"
NEW_ROW = "704.5b\tdraw a card from a library\tthe zorblax quibbit emptied my whole deck\n"


@pytest.fixture
def asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A phrasing folder of one file, ``702.tsv``, standing in for the package's."""
    folder = tmp_path / "asked"
    folder.mkdir()
    (folder / "702.tsv").write_text("# number<TAB>signature<TAB>phrasing\n" + FIRST_ROW)
    monkeypatch.setattr(module, "ASKED_DIR", folder)
    module.forget_files()
    yield folder
    module.forget_files()


def _store(home: Path) -> Path:
    store = EditionStore(home)
    store.add_bytes(MINI.read_bytes(), MINI.name, extra=build_search_index)
    build = store.build_path("2030-03-01")
    assert build is not None
    return build


def _add_row(asked: Path) -> None:
    with (asked / "702.tsv").open("a", encoding="utf-8") as fh:
        fh.write(NEW_ROW)
    module.forget_files()  # what a new process would read


def _json_search(home: Path, query: str) -> tuple[list[str], str]:
    result = CliRunner().invoke(
        cli, ["search", query, "--json"], env={"JUDGE_HOME": str(home), "NO_COLOR": "1"}
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return [r["id"] for r in data["results"]], result.stderr


def test_a_phrasing_added_after_the_build_is_found_after_the_rebuild(
    tmp_path: Path, asked: Path
) -> None:
    home = tmp_path / "home"
    _store(home)
    ids, _ = _json_search(home, "zorblax quibbit")
    assert ids == []  # no rule has these words, and the phrasing is not written yet
    _add_row(asked)
    ids, err = _json_search(home, "zorblax quibbit")
    assert "Rebuilding the search index of edition 2030-03-01" in err
    assert ids[:1] == ["704.5b"]
    ids, err = _json_search(home, "zorblax quibbit")  # rebuilt once, not on every search
    assert ids[:1] == ["704.5b"] and "Rebuilding" not in err


def test_an_index_is_current_until_what_it_is_built_from_changes(
    tmp_path: Path, asked: Path
) -> None:
    build = _store(tmp_path / "home")
    assert index_is_current(build)
    live = search_index_folder(build)
    assert live is not None
    meta = json.loads((live / "judge-search.json").read_text())
    assert {"schema", "inputs", "document", "hash", "edition"} <= set(meta)
    _add_row(asked)
    assert not index_is_current(build)
    build_search_index(read_cr_path(MINI), build)
    assert index_is_current(build)


def test_the_phrasing_files_are_read_once_per_process(asked: Path, tmp_path: Path) -> None:
    build = _store(tmp_path / "home")
    module.forget_files()
    for _ in range(5):
        assert index_is_current(build)
    assert module._files.cache_info().misses == 1


def test_an_index_written_before_the_slot_is_read_then_replaced(
    tmp_path: Path, asked: Path
) -> None:
    from index.search.build import _build_into

    doc = read_cr_path(MINI)
    folder = tmp_path / "old"
    (folder / "search").mkdir(parents=True)
    _build_into(doc, folder / "search", None)  # whoosh's files straight in search/, as before
    meta_path = folder / "search" / "judge-search.json"
    meta = json.loads(meta_path.read_text())
    del meta["inputs"]  # what an older judge wrote
    meta_path.write_text(json.dumps(meta))
    assert search_index_folder(folder) == folder / "search"
    assert search(folder, "poison counters").results  # still answers
    assert not index_is_current(folder)
    build_search_index(doc, folder)
    live = search_index_folder(folder)
    assert live is not None and live.parent == folder / "search" and index_is_current(folder)
    assert sorted(p.name for p in (folder / "search").iterdir() if p.is_file()) == ["CURRENT"]
    assert search(folder, "poison counters").results


def test_a_rebuild_keeps_the_old_index_for_a_searcher_inside_it(tmp_path: Path) -> None:
    doc = read_cr_path(MINI)
    build_search_index(doc, tmp_path)
    with Searcher.open(tmp_path) as s:
        before = s.search("poison counters")
        build_search_index(doc, tmp_path)  # a rebuild while the searcher is open
        assert s.search("poison counters") == before
    assert search(tmp_path, "poison counters") == before


def test_missing_and_damaged_indexes_raise_with_the_folder(tmp_path: Path) -> None:
    with pytest.raises(NoSearchIndexError) as missing:
        open_search_index(tmp_path)
    assert missing.value.folder == tmp_path and missing.value.reason == "missing"
    build_search_index(read_cr_path(MINI), tmp_path)
    live = search_index_folder(tmp_path)
    assert live is not None
    meta = json.loads((live / "judge-search.json").read_text())
    (live / "judge-search.json").write_text(json.dumps(meta | {"schema": -1}))
    with pytest.raises(NoSearchIndexError, match="another version") as version:
        Searcher.open(tmp_path)
    assert version.value.reason == "version"


# --- the Searcher -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mini_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mini")
    build_search_index(read_cr_path(MINI), folder)
    return folder


def test_a_searcher_answers_many_queries_as_one_shot_searches_do(mini_folder: Path) -> None:
    queries = ["poison counters", "704.5", "library with no cards", "toughness", "704.5zz"]
    with Searcher.open(mini_folder) as s:
        assert s.edition == "2030-03-01"
        for _ in range(2):  # the second time from what the first remembered
            for q in queries:
                for scope in SCOPE_TABLE:
                    assert s.search(q, scope=scope) == search(mini_folder, q, scope=scope)
    assert s.closed
    with pytest.raises(ValueError, match="closed"):
        s.search("poison")


def test_a_searcher_merges_notes_by_score(mini_folder: Path, tmp_path: Path) -> None:
    notes = build_notes_index(tmp_path, [("house", "# Poison\n\nTen poison counters, we say.\n")])
    with Searcher.open(mini_folder, notes=[notes]) as s:
        found = s.search("poison counters", limit=20)
        kinds = {r.kind for r in found.results}
        assert {"rule", "section"} <= kinds
        scores = [r.score for r in found.results]
        assert scores == sorted(scores, reverse=True)
        assert not any(r.kind == "section" for r in s.search("poison", scope="rules").results)


def test_an_unknown_scope_is_a_query_error_naming_the_scopes(mini_folder: Path) -> None:
    with Searcher.open(mini_folder) as s, pytest.raises(UnknownScopeError) as info:
        s.search("poison", scope="cards")
    assert isinstance(info.value, QuerySyntaxError)
    assert info.value.scope == "cards"
    assert info.value.known == (
        *("rules", "glossary", "mtr", "ipg", "jar", "dmtr", "dipg", "documents", "rulings"),
        "all",
    )


def test_one_searcher_serves_several_threads(mini_folder: Path) -> None:
    queries = ["poison counters", "library with no cards", "toughness 0", "704.5", "life"]
    expected = {q: search(mini_folder, q) for q in queries}
    failures: list[str] = []
    with Searcher.open(mini_folder) as s:

        def ask() -> None:
            for _ in range(20):
                for q in queries:
                    if s.search(q) != expected[q]:
                        failures.append(q)

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []


def test_whoosh_imports_deferred_modules_for_real_when_asked() -> None:
    """The stand-ins used while whoosh is imported (index/search/engine.py) leave nothing
    behind: the deferred modules import for real, and whoosh's names reach them."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import sys
        from index.search.engine import DEFERRED, whoosh
        whoosh()
        assert not any(m in sys.modules for m, _ in DEFERRED), "a stand-in was left"
        import whoosh.compat, whoosh.query.terms
        from whoosh.lang.morph_en import variations
        assert whoosh.query.terms.variations("rendering") == variations("rendering")
        import urllib.request
        assert hasattr(urllib.request, "Request")
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_a_kept_warm_edition_answers_from_a_build_stored_while_it_is_open(
    tmp_path: Path,
) -> None:
    from index.edition import open_edition

    home = tmp_path / "home"
    first = _store(home)
    store = EditionStore(home)
    ed = open_edition(None, store=store).keep_warm()
    try:
        for _ in range(3):  # checked once, then while nothing changed, from what it checked
            assert ed.search("zorblax", semantic=False).results == []
        text = MINI.read_text(encoding="utf-8")
        changed = text.replace("toughness 0 or less, it", "toughness 0 or less (zorblax), it", 1)
        assert changed != text
        store.add_bytes(changed.encode(), MINI.name, extra=build_search_index, replace=True)
        assert store.build_path("2030-03-01") != first
        assert [r.id for r in ed.search("zorblax", semantic=False).results][:1] == ["704.5f"]
    finally:
        ed.close()
