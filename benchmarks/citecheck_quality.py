"""Benchmark: how right ``cite-check``'s "suspicious" verdict is on real writing, both ways.

Run: ``python benchmarks/citecheck_quality.py [--show N]`` (needs ../shared beside the
repository). It builds a labelled set of citations from real texts, checks each with
:func:`index.citecheck.check_citations` (no ``--written-for``: the ``suspicious`` test) and prints
precision, recall and the false-alarm rate, by source.

Correct citations, as written:

- ``cr``: every single-rule cross-reference in the rules, examples and glossary of a CR edition,
  checked against that edition *without the rule (or entry) that makes it* (leave-one-out, in
  folds), so that the words around a citation are never found verbatim in the index;
- ``rulings``: the card rulings in ../shared/cards that cite rules, against the edition of their
  time; ``mtr``: the CR citations of the Tournament Rules in ../shared/judge-docs.

Wrong ones, made from the correct ones:

- ``neighbour``: the same text citing the rule next to the one it meant (704.5j → 704.5k);
- ``renumbered``: a text written for an older edition (the 2013 and 2018 CR, the 2018 rulings)
  checked against a newer one in which its number now names another rule (the legend rule as
  704.5k in 2025); its correct twin cites the rule's number in the newer edition.

The 2025-02-07 edition is the tuning set; every other figure is held out.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import lzma
import re
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from index.citecheck import Citation, check_citations, find_citations
from index.diff import match_documents
from index.model import Document
from index.numbers import RuleNumber, find_references, parse_rule_number
from index.reader import read_cr_path

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus"
TUNING = "20250207"
# CR editions whose own cross-references are checked (leave-one-out).
CR_EDITIONS = ["20090711", "20130713", "20180713", "20220429", "20250207", "20260116"]
# (written for, checked against): renumbered citations.
RENUMBERED = [("20130713", "20250207"), ("20180713", "20250207"), ("20130713", "20180713")]
FOLDS = 20
# The same cases checked by the code before this benchmark existed (commit 3a9c247).
BASELINE = {
    "held-out": (0.599, 0.064, 0.043),
    "held-out prose": (0.590, 0.130, 0.090),
    "everything": (0.594, 0.067, 0.046),
}


@dataclass(frozen=True)
class Case:
    """One citation to check: ``text`` holds it at ``column``; ``wrong`` is the truth."""

    source: str
    kind: str
    edition: str
    text: str
    column: int
    number: str
    wrong: bool
    origin: str
    """Who wrote it: a rule number, a glossary entry, a card name."""
    intended: str | None = None
    """For a wrong citation, the rule it should cite."""


def _fold(key: str) -> int:
    return zlib.crc32(key.encode()) % FOLDS


def _siblings(doc: Document, number: str) -> list[str]:
    parent = parse_rule_number(number).parent()
    if parent is None:
        return [n for n in doc.rules if "." not in n and len(n) == 1]
    return doc.children(str(parent))


def _neighbour(doc: Document, number: str) -> str | None:
    """The next sibling of ``number`` (the previous one for the last), or ``None``."""
    kin = _siblings(doc, number)
    if number not in kin or len(kin) < 2:
        return None
    i = kin.index(number)
    return kin[i + 1] if i + 1 < len(kin) else kin[i - 1]


def _single_citations(text: str) -> list[tuple[int, str, str]]:
    """(column, number, written) of each citation of one rule, not a range."""
    out = []
    for ref in find_references(text):
        if ref.ref.end is None:
            out.append((ref.start + 1, str(ref.ref.start), ref.text))
    return out


def _replace(text: str, column: int, written: str, number: str, new: str) -> tuple[str, int]:
    start = column - 1
    assert text[start : start + len(written)] == written
    at = written.lower().rindex(number)
    new_written = written[:at] + new + written[at + len(number) :]
    return text[:start] + new_written + text[start + len(written) :], column


def _flat(text: str) -> str:
    return " ".join(text.split())


def _sources(doc: Document) -> list[tuple[str, str, str]]:
    """(origin, kind, text) of everything in an edition that may cite a rule."""
    out = []
    for rule in doc.rules.values():
        out.append((rule.number, "rule", rule.text))
        out.extend((rule.number, "example", ex) for ex in rule.examples)
    for entry in doc.glossary:
        # A glossary entry read as prose: "Legend Rule: A state-based action ... See rule 704.5j."
        out.append((f"glossary:{entry.term}", "glossary", f"{entry.term}: {entry.definition}"))
    return out


def _without(doc: Document, removed: set[str]) -> Document:
    return Document(
        edition=doc.edition,
        rules={n: r for n, r in doc.rules.items() if n not in removed},
        glossary=[g for g in doc.glossary if f"glossary:{g.term}" not in removed],
        title=doc.title,
    )


def _ancestry(number: str) -> set[str]:
    out: set[str] = set()
    node: RuleNumber | None = parse_rule_number(number)
    while node is not None:
        out.add(str(node))
        node = node.parent()
    return out


# Citations the CR itself gets wrong, found by this benchmark's false alarms and checked by hand
# against the text: (edition, citing rule or glossary entry, number cited) → the rule meant.
CR_ERRATA = {
    # "… a meld pair … (See rule 713.)": meld cards became part of 712 (713 is Substitute Cards).
    ("20250207", "201.4e", "713"): "712",
    ("20260116", "201.4e", "713"): "712",
    # "Effects that restart the game (see rule 723)": 723 is The Initiative, 724 Restarting.
    ("20250207", "801.17", "723"): "724",
    # "If a Magic subgame (see rule 724) is restarted": 726 is Subgames.
    ("20250207", "724.6", "724"): "726",
    # "See rule 702.62, “Endure.”": 702.62 is Suspend; endure is the keyword action 701.63.
    ("20260116", "glossary:Endure", "702.62"): "701.63",
    # Anchor words moved to 614.12c when a new 614.12b was inserted.
    ("20260116", "glossary:Anchor Word", "614.12b"): "614.12c",
    ("20260116", "607.2m", "614.12b"): "614.12c",
}


def cr_cases(doc: Document, date: str) -> list[tuple[Case, int]]:
    """Each cross-reference of ``doc`` and its neighbour twin, with the fold it is checked in."""
    out = []
    for origin, kind, raw in _sources(doc):
        text = _flat(raw)
        fold = _fold(origin)
        for column, number, written in _single_citations(text):
            if number not in doc.rules:
                continue
            meant = CR_ERRATA.get((date, origin, number))
            near = meant or _neighbour(doc, number)
            # The rule cited, its neighbour and their ancestors must survive the fold.
            keep = _ancestry(number) | (_ancestry(near) if near else set())
            if any(_fold(n) == fold and n != origin for n in keep) or origin in keep:
                continue
            if meant is not None:
                # A citation the CR itself gets wrong: wrong as printed, right once fixed.
                out.append(
                    (Case("cr", kind, date, text, column, number, True, origin, meant), fold)
                )
                fixed, col = _replace(text, column, written, number, meant)
                out.append((Case("cr", kind, date, fixed, col, meant, False, origin), fold))
                continue
            out.append((Case("cr", kind, date, text, column, number, False, origin), fold))
            if near is not None:
                wrong, col = _replace(text, column, written, number, near)
                wrong_case = Case("cr", kind, date, wrong, col, near, True, origin, number)
                out.append((wrong_case, fold))
    return out


def renumbered_cases(old: Document, new: Document, old_date: str, new_date: str) -> list[Case]:
    """Citations of ``old`` whose number names another rule in ``new``, and their fixed twins."""
    matching = match_documents(old, new)
    out = []
    for origin, kind, raw in _sources(old):
        text = _flat(raw)
        for column, number, written in _single_citations(text):
            now = matching.forward.get(number)
            if now is None or now == number or number not in new.rules:
                continue
            if _is_related(now, number):
                continue
            out.append(Case("renumbered", kind, new_date, text, column, number, True, origin, now))
            fixed, col = _replace(text, column, written, number, now)
            out.append(Case("renumbered", kind, new_date, fixed, col, now, False, origin))
    return out


def _twin(forward: dict[str, str], origin: str) -> str | None:
    return origin if origin.startswith("glossary:") else forward.get(origin)


def _is_related(a: str, b: str) -> bool:
    pa, pb = parse_rule_number(a), parse_rule_number(b)
    return pa.is_within(pb) or pb.is_within(pa)


def _edition_of(date: str, editions: list[str]) -> str | None:
    """The corpus edition nearest ``date`` (``YYYY-MM-DD``): the corpus lacks most editions,
    and the rules numbered in a January 2018 ruling are numbered so in July 2018, not 2013."""
    if not editions:
        return None

    def days(edition: str) -> int:
        from datetime import date as day

        a = day.fromisoformat(date)
        b = day(int(edition[:4]), int(edition[4:6]), int(edition[6:]))
        return abs((a - b).days)

    return min(editions, key=days)


def ruling_texts() -> list[tuple[str, str, str]]:
    """(card, date, text) of every card ruling that cites a rule."""
    path = SHARED / "cards" / "AtomicCards.json.xz"
    if not path.is_file():
        return []
    with lzma.open(path) as fh:
        data = json.load(fh)["data"]
    seen = set()
    out = []
    for name, faces in data.items():
        for face in faces:
            for ruling in face.get("rulings") or []:
                text = ruling["text"]
                if text in seen or not find_references(text):
                    continue
                seen.add(text)
                out.append((name, ruling["date"], text))
    return out


def document_cases(
    docs: dict[str, Document], texts: list[tuple[str, str, str]], source: str
) -> list[Case]:
    """Real texts written for the edition of their date, and their neighbour twins."""
    out = []
    dates = sorted(docs)
    for origin, date, raw in texts:
        edition = _edition_of(date, dates)
        if edition is None:
            continue
        doc = docs[edition]
        for line in raw.splitlines():
            text = _flat(line)
            for column, number, written in _single_citations(text):
                if number not in doc.rules:
                    continue
                meant = _meant(date, number)
                if meant != number:
                    # Written for an edition the corpus lacks, numbered otherwise: wrong here.
                    out.append(
                        Case(source, "prose", edition, text, column, number, True, origin, meant)
                    )
                    fixed, col = _replace(text, column, written, number, meant)
                    out.append(Case(source, "prose", edition, fixed, col, meant, False, origin))
                    continue
                out.append(Case(source, "prose", edition, text, column, number, False, origin))
                near = _neighbour(doc, number)
                if near is not None:
                    wrong, col = _replace(text, column, written, number, near)
                    out.append(
                        Case(source, "prose", edition, wrong, col, near, True, origin, number)
                    )
    return out


# The rulings of 2018-01-19 (Rules Lawyer, Unstable) cite the January 2018 CR, which the corpus
# lacks; the nearest edition, July 2018, has Dominaria's Saga rule at 704.5s, and the rules they
# cite as 704.5s-u are 704.5t-v there (checked by hand against both texts).
WRITTEN_FOR_ANOTHER_EDITION = {
    ("2018-01-19", "704.5s"): "704.5t",
    ("2018-01-19", "704.5t"): "704.5u",
    ("2018-01-19", "704.5u"): "704.5v",
}


def _meant(date: str, number: str) -> str:
    """The number, in the nearest corpus edition, of the rule a text of ``date`` cites."""
    return WRITTEN_FOR_ANOTHER_EDITION.get((date, number), number)


def ruling_renumbered(
    docs: dict[str, Document], texts: list[tuple[str, str, str]], new_date: str
) -> list[Case]:
    """Rulings of 2018 checked against a newer edition, where their numbers moved."""
    out = []
    dates = sorted(docs)
    matchings = {}
    for origin, date, raw in texts:
        edition = _edition_of(date, dates)
        if edition is None or edition >= new_date:
            continue
        if edition not in matchings:
            matchings[edition] = match_documents(docs[edition], docs[new_date])
        matching = matchings[edition]
        new = docs[new_date]
        text = _flat(raw)
        for column, number, written in _single_citations(text):
            now = matching.forward.get(_meant(date, number))
            if now is None or now == number or number not in new.rules or _is_related(now, number):
                continue
            out.append(
                Case("renumbered", "prose", new_date, text, column, number, True, origin, now)
            )
            fixed, col = _replace(text, column, written, number, now)
            out.append(Case("renumbered", "prose", new_date, fixed, col, now, False, origin))
    return out


def mtr_texts() -> list[tuple[str, str, str]]:
    """(document, date, paragraph) of the MTR text's paragraphs that cite the CR."""
    out = []
    for path in sorted((SHARED / "judge-docs").glob("mtr-*.txt")):
        date = path.stem.split("-")[1]
        iso = f"{date[:4]}-{date[4:6]}-{date[6:]}"
        # Paragraphs are hard-wrapped: join each blank-line-separated block into one line.
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            if find_references(_flat(block)):
                out.append((path.name, iso, _flat(block)))
    return out


Result = tuple[Case, str, str | None]
"""A case, the status cite-check gave it, and the number it suggested."""


def verdicts(cases: list[Case], doc: Document) -> list[Result]:
    """The status cite-check gives each case's citation, all checked in one call.

    Each case's text is one line of a long text (its neighbours on the line are checked too),
    so that an index is built once per document, as ``judge cite-check`` does.
    """
    citations: list[Citation] = []
    wanted = []
    for line, case in enumerate(cases, start=1):
        found = [dataclasses.replace(c, line=line) for c in find_citations(case.text)]
        columns = [c.column for c in found]
        assert case.column in columns, (case.text, case.column)
        wanted.append(len(citations) + columns.index(case.column))
        citations.extend(found)
    checks = check_citations(citations, doc)
    return [
        (case, checks[k].status, checks[k].suggest) for case, k in zip(cases, wanted, strict=True)
    ]


_TITLE_AFTER_RE = re.compile(r"\s*,?\s*\(?[\"\u201c]")


def _kind_of(case: Case) -> str:
    """``title`` if the citation is followed by a quoted title ("rule 702.16, “Protection”"),
    else ``prose``: decided from the text alone, so that the code measured cannot move a case
    from one group to the other."""
    found = [c for c in find_citations(case.text) if c.column == case.column]
    end = case.column - 1 + len(found[0].text if found else case.number)
    return "title" if _TITLE_AFTER_RE.match(case.text, end) else "prose"


def _by_edition(cases: list[Case], docs: dict[str, Document]) -> list[Result]:
    grouped: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        grouped[case.edition].append(case)
    return [r for edition, group in grouped.items() for r in verdicts(group, docs[edition])]


def _figures(results: list[Result]) -> str:
    flagged = [(c, s) for c, status, s in results if status == "suspicious"]
    tp = [(c, s) for c, s in flagged if c.wrong]
    fp = len(flagged) - len(tp)
    wrong = sum(c.wrong for c, _, _ in results)
    right = len(results) - wrong
    # A flag is most use with the right number to cite instead (or a rule within it).
    fixed = sum(
        s is not None and c.intended is not None and _is_related(s, c.intended) for c, s in tp
    )
    precision = f"{len(tp) / len(flagged):.3f}" if flagged else "  -  "
    recall = f"{len(tp) / wrong:.3f}" if wrong else "  -  "
    alarms = f"{fp / right:.3f}" if right else "  -  "
    right_fix = f"{fixed / len(tp):.2f}" if tp else " -  "
    return (
        f"{len(results):5d} cases ({wrong:4d} wrong)  precision {precision}  recall {recall}"
        f"  false alarms {alarms} ({fp:3d})  right fix {right_fix}"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", type=int, default=0, help="print N mistakes of each kind")
    parser.add_argument("--only", help="only this source (cr, renumbered, rulings, mtr)")
    parser.add_argument("--tuning", action="store_true", help="only the tuning edition's CR")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: {CORPUS} is absent (the real CR files live there)")
        return 0
    started = time.perf_counter()
    wanted = sorted(set(CR_EDITIONS) | {d for pair in RENUMBERED for d in pair})
    if args.tuning:
        wanted = [TUNING]
    docs = {d: read_cr_path(CORPUS / f"cr-{d}.txt") for d in wanted}
    results: list[Result] = []
    if args.tuning:
        args.only = "cr"
    if args.only in (None, "cr"):
        for date in [TUNING] if args.tuning else CR_EDITIONS:
            by_fold: dict[int, list[Case]] = defaultdict(list)
            for case, fold in cr_cases(docs[date], date):
                by_fold[fold].append(case)
            for fold, cases in sorted(by_fold.items()):
                removed = {o for o, _, _ in _sources(docs[date]) if _fold(o) == fold}
                doc = _without(docs[date], removed)
                results.extend(verdicts(cases, doc))
    if args.only in (None, "renumbered"):
        for old, new in RENUMBERED:
            # The newer edition's own version of the citing rule would match the words
            # verbatim: leave it out, as for the CR's cross-references.
            matching = match_documents(docs[old], docs[new])
            by_origin: dict[str, list[Case]] = defaultdict(list)
            for case in renumbered_cases(docs[old], docs[new], old, new):
                by_origin[case.origin].append(case)
            # One fold per citing rule would rebuild the index thousands of times: group the
            # citing rules into folds as for the CR's cross-references.
            folds: dict[int, list[Case]] = defaultdict(list)
            for origin, group in by_origin.items():
                folds[_fold(origin)].extend(group)
            for _, cases in sorted(folds.items()):
                # The citing rules' own versions in the newer edition (a glossary entry keeps
                # its term); never the old numbers, which may name other rules now.
                removed = {t for c in cases if (t := _twin(matching.forward, c.origin)) is not None}
                kept = [c for c in cases if not (_ancestry(c.number) & removed)]
                results.extend(verdicts(kept, _without(docs[new], removed)))
    rulings = ruling_texts()
    if args.only in (None, "rulings"):
        results.extend(_by_edition(document_cases(docs, rulings, "rulings"), docs))
    if args.only in (None, "renumbered"):
        results.extend(_by_edition(ruling_renumbered(docs, rulings, "20250207"), docs))
    if args.only in (None, "mtr"):
        mtr_docs = {"20260116": read_cr_path(CORPUS / "cr-20260116.txt")}
        results.extend(_by_edition(document_cases(mtr_docs, mtr_texts(), "mtr"), mtr_docs))
    groups: dict[str, list[Result]] = defaultdict(list)
    for result in results:
        case = result[0]
        part = "tuning" if case.edition == TUNING and case.source == "cr" else "held-out"
        # The CR quotes the titles of most rules it cites ("rule 702.16, “Protection”"); prose
        # seldom does, so the rest is shown apart.
        prose = "titles" if _kind_of(case) == "title" else "prose"
        groups[f"{case.source:10s} {part:8s} {prose:6s}"].append(result)
        groups[f"{case.source:10s} {part:8s} {'all':6s}"].append(result)
    for name in sorted(groups):
        print(f"{name}  {_figures(groups[name])}")
    held_out = [r for r in results if not (r[0].edition == TUNING and r[0].source == "cr")]
    in_prose = [r for r in held_out if _kind_of(r[0]) != "title"]
    for name, rows in (
        ("held-out", held_out),
        ("held-out prose", in_prose),
        ("everything", results),
    ):
        print(f"{name:27s}  {_figures(rows)}")
        if not args.only and not args.tuning:
            precision, recall, alarms = BASELINE[name]
            print(
                f"{'  baseline':27s}  {'':28s}  precision {precision:.3f}  recall {recall:.3f}"
                f"  false alarms {alarms:.3f}"
            )
    if args.show:
        misses = [c for c, s, _ in results if c.wrong and s != "suspicious"]
        raised = [c for c, s, _ in results if not c.wrong and s == "suspicious"]
        for title, cases in (("false alarms", raised), ("missed", misses)):
            print(f"\n{title}:")
            for c in cases[: args.show]:
                print(f"  {c.source} {c.edition} {c.origin} cites {c.number}: {c.text[:200]}")
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
