"""Reading tournament documents from text: recognising them, their headings, parts and layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from index.tournament.layout import (
    Line,
    clean_line,
    drop_page_numbers,
    lines_from_pages,
    reflow,
    repair_joined_hyphens,
    split_toc,
)
from index.tournament.lookup import (
    UnknownSectionError,
    find_named,
    nearest_sections,
    parse_section_ref,
)
from index.tournament.model import DocumentReadError, NotATournamentDocumentError
from index.tournament.reader import read_document_bytes
from index.tournament.refs import find_citations

FIXTURES = Path(__file__).parent / "fixtures"


def read(text: str, source: str = "test.txt") -> object:
    return read_document_bytes(text.encode("utf-8"), source)


def _doc(name: str):  # type: ignore[no-untyped-def]
    return read_document_bytes((FIXTURES / name).read_bytes(), name)


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("MAGIC: THE GATHERING® TOURNAMENT RULES", "mtr"),
        ("Magic Tournament Rules", "mtr"),
        ("MAGIC INFRACTION PROCEDURE GUIDE", "ipg"),
        ("MAGIC™ INFRACTION PROCEDURE GUIDE", "ipg"),
        ("Judging at Regular Rules Enforcement Level (REL)", "jar"),
        ("MAGIC DIGITAL TOURNAMENT RULES", "dmtr"),
        ("MAGIC DIGITAL INFRACTION PROCEDURE GUIDE", "dipg"),
    ],
)
def test_recognises_each_document_by_its_title(title: str, kind: str) -> None:
    doc = read(f"{title}\nEffective March 3, 2031\nIntroduction\nSome text.\n")
    assert (doc.kind, doc.edition, doc.title) == (kind, "2031-03-03", title)  # type: ignore[attr-defined]


def test_not_a_tournament_document() -> None:
    with pytest.raises(NotATournamentDocumentError) as caught:
        read("Magic: The Gathering Comprehensive Rules\n\nThese rules are effective as of ...\n")
    assert caught.value.first_line == "Magic: The Gathering Comprehensive Rules"
    assert "it begins “Magic: The Gathering Comprehensive Rules”" in str(caught.value)


def test_a_title_without_a_date_is_refused_with_its_line() -> None:
    with pytest.raises(DocumentReadError) as caught:
        read("\n\nMAGIC INFRACTION PROCEDURE GUIDE\nINTRODUCTION\nText.\n")
    assert caught.value.line == 3
    assert "no “Effective …” or “Updated …” date" in caught.value.reason


def test_binary_text_is_refused() -> None:
    with pytest.raises(DocumentReadError, match="NUL byte"):
        read_document_bytes(b"MAGIC INFRACTION\x00\x00 PROCEDURE GUIDE", "x.txt")


def test_clean_line() -> None:
    assert (
        clean_line("  \uf0b7 Seeks  private\u00a0information \x07") == "• Seeks private information"
    )
    assert clean_line("•Store Championship") == "• Store Championship"
    assert clean_line("soft\u00adhyphen") == "softhyphen"


def test_page_numbers_are_dropped_in_order_only() -> None:
    lines = [Line(t, i) for i, t in enumerate(["1", "Title", "2", "text", "7", "3", "more"], 1)]
    assert [ln.text for ln in drop_page_numbers(lines)] == ["Title", "text", "7", "more"]


def test_pdf_pages_lose_page_numbers_and_running_lines() -> None:
    bodies = [("Rules begin here.", "and go on"), ("over the page", "to more"), ("and", "the end.")]
    pages = [
        f"{n}\nDRAFT — do not copy — page {n}\n{first}\n{last}\n"
        for n, (first, last) in enumerate(bodies, start=1)
    ]
    lines = lines_from_pages(pages)
    assert [(ln.text, ln.number, ln.page) for ln in lines] == [
        ("Rules begin here.", 1, 1),
        ("and go on", 2, 1),
        ("over the page", 3, 2),
        ("to more", 4, 2),
        ("and", 5, 3),
        ("the end.", 6, 3),
    ]


def test_split_toc_takes_the_dotted_contents_out() -> None:
    texts = [
        "CONTENTS",
        "1. General ........ 3",
        "1.1 One ........ 3",
        "4",
        "stray words",
        "2. Other ......... 5",
        "1. General",
    ]
    body, toc, strays = split_toc([Line(t, i) for i, t in enumerate(texts, 1)])
    assert [ln.text for ln in body] == ["1. General"]
    assert [(e.label, e.page) for e in toc] == [("1. General", 3), ("1.1 One", 3), ("2. Other", 5)]
    assert [(ln.text, ln.number) for ln in strays] == [("4", 4), ("stray words", 5)]


def test_repair_joined_hyphens_only_in_overlong_lines() -> None:
    lines = [
        Line("a DCI-sanctioned event and an end-of-match procedure", 1),
        Line("the judge at any DCIsanctioned event uses the end-ofmatch steps", 2),
        Line("a short DCIsanctioned line", 3),
    ]
    assert repair_joined_hyphens(lines, 40) == 2
    assert lines[1].text == "the judge at any DCI-sanctioned event uses the end-of-match steps"
    assert lines[2].text == "a short DCIsanctioned line"  # 26 characters: no join happened here
    lines = [Line("a DCI-sanctioned event", 1), Line("short DCIsanctioned", 2)]
    assert repair_joined_hyphens(lines, 40) == 0


def test_reflow_undoes_hard_wraps() -> None:
    lines = [
        "The first paragraph runs over two lines and ends on a short",
        "one.",
        "The second paragraph is a single line of text that ends here.",
        "• A bullet that wraps onto a second line because it is long and",
        "keeps going.",
        "A. An example.",
        "Upgrade: a labelled paragraph with an invitation-",
        "only event and a state-",
        "based action.",
    ]
    assert reflow(lines, 64) == [
        "The first paragraph runs over two lines and ends on a short one.",
        "The second paragraph is a single line of text that ends here.",
        "• A bullet that wraps onto a second line because it is long and keeps going.",
        "A. An example.",
        "Upgrade: a labelled paragraph with an invitation-only event and a state-based action.",
    ]


def test_mini_ipg_sections_parts_and_penalties() -> None:
    doc = _doc("mini-ipg.txt")
    assert (doc.kind, doc.edition, doc.problems) == ("ipg", "2030-05-01", [])
    assert [(s.number, s.title, s.penalty, s.parent) for s in doc.sections] == [
        ("introduction", "Introduction", None, None),
        ("1", "General Philosophy", None, None),
        ("1.1", "Definition of Penalties", None, "1"),
        ("2", "Game Play Errors", None, None),
        ("2.1", "Game Play Error — Missed Trigger", "No Penalty", "2"),
        ("2.2", "Game Play Error — Game Rule Violation", "Warning", "2"),
        ("3", "Tournament Errors", None, None),
        ("3.1", "Tournament Error — Outside Assistance", "Match Loss", "3"),
        ("Appendix A", "Changes from Previous Versions", None, None),
    ]
    trigger = doc.find_section("2.1")
    assert trigger is not None
    assert [(p.heading, p.text) for p in trigger.parts] == [
        (
            "Definition",
            "A triggered ability triggers, but its controller does not show that they noticed "
            "it before it would first have affected the game in a visible way.",
        ),
        (
            "Examples",
            "A. A player forgets the upkeep trigger of a creature they control and moves to "
            "their draw step.\nB. A player forgets a trigger whose effect is detrimental to them.",
        ),
        (
            "Philosophy",
            # The page number "5" between "Comprehensive" and "Rules." is gone.
            "Players should not be harshly penalized when forgetting one of their own triggers. "
            "The Out-of-Order Sequencing rules (MTR section 4.3) may apply, and so may rule "
            "603.2 of the Comprehensive Rules.",
        ),
        (
            "Upgrade",
            "If the trigger is usually detrimental for its controller, the penalty is a Warning.",
        ),
    ]
    penalties = doc.find_section("1.1")
    assert penalties is not None and [p.heading for p in penalties.parts] == [
        "Warning",
        "Game Loss",
    ]


def test_a_numbered_list_is_not_a_heading() -> None:
    doc = _doc("mini-mtr.txt")
    assert doc.problems == []
    assert [s.number for s in doc.sections] == [
        "introduction",
        "1",
        "1.1",
        "2",
        "2.1",
        "2.2",
        "4",  # 3 is not in the document; the contents confirm the gap
        "4.3",
        "Appendix B",
    ]
    types = doc.find_section("1.1")
    assert types is not None and types.text.split("\n")[1:] == [
        "1. Players shuffle their decks.",
        "2. Players draw seven cards.",
    ]
    limits = doc.find_section("Appendix B")
    assert limits is not None
    assert [p.heading for p in limits.parts] == [None, "Booster Draft Timing"]


def test_numbered_list_before_the_real_heading_without_contents() -> None:
    doc = read(
        "MAGIC DIGITAL TOURNAMENT RULES\nEffective November 15, 2031\n"
        "1. Fundamentals\n1.1. Challenges\nTo play:\n1. Find your opponent.\n"
        "2. Send the challenge\n3. Accept it\n2. Mechanics\n2.1. Matches\nBest of three.\n"
    )
    assert [s.number for s in doc.sections] == ["1", "1.1", "2", "2.1"]  # type: ignore[attr-defined]


def test_headings_the_contents_list_but_the_text_lacks_are_problems() -> None:
    doc = read(
        "MAGIC INFRACTION PROCEDURE GUIDE\nEffective May 1, 2031\n"
        "1. General ................ 1\n1.1. Penalties ............. 1\n"
        "1.2. Missing ............. 2\n"
        "stray line\n2. Errors ................... 3\n"
        "1. GENERAL\nText.\n1.1. PENALTIES\nMore text.\n2. ERRORS\nLast.\n"
    )
    problems = [(p.line, p.text, p.reason) for p in doc.problems]  # type: ignore[attr-defined]
    assert problems == [
        (6, "stray line", "inside the table of contents"),
        (5, "1.2 Missing", "listed in the contents but no such heading was found in the text"),
    ]


def test_mini_jar_headed_sections_and_parts() -> None:
    doc = _doc("mini-jar.txt")
    assert (doc.kind, doc.edition) == ("jar", "2030-07-03")
    assert [(s.number, s.title, [p.heading for p in s.parts]) for s in doc.sections] == [
        ("introduction", None, [None]),
        (
            "common-issues",
            "Common Issues",
            [
                "A player forgets a triggered ability (one that uses the words “when,” "
                "“whenever,” or “at the beginning”)",
                "A player sees a card they should not have seen",
            ],
        ),
        ("serious-problems", "Serious Problems", [None]),
    ]


def test_citations() -> None:
    ipg = _doc("mini-ipg.txt")
    cites = {s.number: find_citations(s, "ipg", ipg.sections) for s in ipg.sections}
    assert cites["2.1"] == (["mtr:4.3", "cr:603.2"], [])
    assert cites["2.2"] == (["ipg:2", "ipg:2.1"], [])
    assert cites["2"] == ([], [])  # it names "Unsporting Conduct — Cheating", not in this guide
    mtr = _doc("mini-mtr.txt")
    match = mtr.find_section("2.1")
    assert match is not None
    assert find_citations(match, "mtr", mtr.sections) == (["mtr:2.2", "cr:100.1a"], [])


@pytest.mark.parametrize(
    ("text", "kind", "cites", "dangling"),
    [
        ("see section 5.X", "mtr", [], []),
        ("(see section 9.9)", "mtr", [], ["mtr:9.9"]),
        ("Refer to section 5.2 of the Magic Tournament Rules.", "ipg", ["mtr:5.2"], []),
        ("detailed in section 4 of the Magic Tournament Rules", "ipg", ["mtr:4"], []),
        ("Infractions (sections 1-2).", "ipg", ["ipg:1", "ipg:2"], []),
        ("(See Magic Digital IPG 3.5 — Disconnect)", "dmtr", ["dipg:3.5"], []),
        ("section 5.2 of the Digital Magic Tournament Rules", "dipg", ["dmtr:5.2"], []),
        (
            "the Comprehensive Rules, rule 103.4c, and CR 704.5j",
            "mtr",
            ["cr:103.4c", "cr:704.5j"],
            [],
        ),
        ("listed in Appendix F.", "mtr", ["mtr:Appendix F"], []),
        ("with the exception of Tardiness (1.1) and (0.33)", "ipg", ["ipg:1.1"], []),
    ],
)
def test_reference_forms(text: str, kind: str, cites: list[str], dangling: list[str]) -> None:
    from index.tournament.model import DocSection, Part

    sections = [
        DocSection("1", "One"),
        DocSection("1.1", "One one"),
        DocSection("2", "Two"),
        DocSection("Appendix F", "Levels"),
    ]
    section = DocSection("9", "Citing", [Part(None, text)])
    assert find_citations(section, kind, [*sections, section]) == (cites, dangling)


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("2.5", "2.5"),
        ("2.05.", "2.5"),
        ("4", "4"),
        ("section 2.1", "2.1"),
        ("MTR 4.4", "4.4"),
        ("ipg:2.1", "2.1"),
        ("appendix b", "Appendix B"),
        ("Appendix  C", "Appendix C"),
        ("missed trigger", None),
        ("2.1.3", None),
    ],
)
def test_parse_section_ref(text: str, number: str | None) -> None:
    assert parse_section_ref(text) == number


def test_nearest_sections() -> None:
    numbers = ["introduction", "1", "1.1", "1.2", "2", "2.1", "2.2", "2.3", "Appendix A"]
    assert nearest_sections(numbers, "2.9") == ["2.1", "2.2", "2.3"]
    assert nearest_sections(numbers, "3") == ["1", "2", "Appendix A"]
    assert nearest_sections(numbers, "introductoin") == ["introduction"]


def _entries() -> list[dict[str, object]]:
    doc = _doc("mini-ipg.txt")
    return [
        {"number": s.number, "title": s.title, "parent": s.parent, "parts": []}
        for s in doc.sections
    ]


@pytest.mark.parametrize(
    ("query", "number", "how"),
    [
        ("Missed Trigger", "2.1", "exact"),
        ("game play error — missed trigger", "2.1", "exact"),
        ("outside assistance", "3.1", "exact"),
        ("trigger", "2.1", "partial"),
        ("missd trigger", "2.1", "fuzzy"),
        ("game rule violaton", "2.2", "fuzzy"),
    ],
)
def test_find_named(query: str, number: str, how: str) -> None:
    match = find_named(_entries(), query, kind="ipg", edition="2030-05-01")  # type: ignore[arg-type]
    assert (match.number, match.how) == (number, how)


def test_find_named_unknown_names_the_closest() -> None:
    with pytest.raises(UnknownSectionError) as caught:
        find_named(_entries(), "errors", kind="ipg", edition="2030-05-01")  # type: ignore[arg-type]
    assert caught.value.by_name and caught.value.nearest == ["2", "3"]
    with pytest.raises(UnknownSectionError) as caught:
        find_named(_entries(), "xyzzy", kind="ipg", edition="2030-05-01")  # type: ignore[arg-type]
    assert caught.value.nearest == []


def test_an_oversized_file_is_refused_before_it_is_read() -> None:
    big = "MAGIC INFRACTION PROCEDURE GUIDE\nEffective May 1, 2031\n" + "word " * 1_100_000
    with pytest.raises(DocumentReadError, match="far more than a tournament document has"):
        read(big)


def test_pathological_headings_read_in_linear_time() -> None:
    # Every line looks like the next heading ("1. …", Title Case, or a JAR heading); reading
    # must not compare each with all the others (20,000 lines would then take minutes).
    lines = "\n".join(f"1. Hello World\nHello World\n\n\n{n}. Two Words" for n in range(5000))
    doc = read(f"MAGIC DIGITAL TOURNAMENT RULES\nEffective May 1, 2031\n{lines}\n")
    assert [s.number for s in doc.sections][:3] == ["1", "2", "3"]  # type: ignore[attr-defined]
    jar = read("Judging at Regular REL\nUpdated May 1, 2031\n" + "Common Issues\n" * 20_000)
    numbers = [s.number for s in jar.sections]  # type: ignore[attr-defined]
    # The last line has nothing under it, so it is text, not a heading.
    assert len(numbers) == len(set(numbers)) == 19_999
    assert numbers[:2] == ["common-issues", "common-issues-2"]


def test_lines_around_the_title_are_kept_or_reported() -> None:
    doc = read(
        "Draft for review\nMAGIC INFRACTION PROCEDURE GUIDE\nA subtitle under the title\n"
        "Effective May 1, 2031\n1. GENERAL\nText.\n"
    )
    assert [(p.line, p.text, p.reason) for p in doc.problems] == [  # type: ignore[attr-defined]
        (1, "Draft for review", "before the document's title")
    ]
    assert [(s.number, s.text) for s in doc.sections] == [  # type: ignore[attr-defined]
        ("introduction", "A subtitle under the title"),
        ("1", "Text."),
    ]
