"""Finding a section the way a judge asks for it: ``2.5``, ``4``, ``Appendix B``, a name.

Works on a stored edition's small index (:class:`~index.tournament.store.SectionIndex`), so
a lookup reads the section files it shows and nothing else.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from glossary.fold import fold_text

__all__ = [
    "SectionMatch",
    "UnknownSectionError",
    "find_named",
    "find_number",
    "nearest_sections",
    "parse_section_ref",
    "whole_section",
]


class UnknownSectionError(LookupError):
    """Raised when no section has the number or name asked for; carries the nearest ones."""

    def __init__(
        self, kind: str, edition: str, wanted: str, nearest: list[str], *, by_name: bool = False
    ) -> None:
        self.kind = kind
        self.edition = edition
        self.wanted = wanted
        self.nearest = nearest
        """Numbers of the nearest sections (by number), or of the closest names."""
        self.by_name = by_name
        super().__init__(f"no section {wanted!r} in {kind} {edition}")


class SectionMatch(NamedTuple):
    """A section found for a query, and how."""

    number: str
    how: str
    """``number``, ``exact`` (the title or the infraction's name), ``partial`` (every word of
    the query in one title, or in one part's heading), or ``fuzzy`` (a close misspelling)."""
    part: int | None = None
    """The index of the part whose heading matched (the JAR's "A player forgets …")."""


_REF_PREFIX_RE = re.compile(r"^(?:mtr|ipg|jar|dmtr|dipg|section|§)[\s:]*", re.IGNORECASE)
_NUMBER_RE = re.compile(r"(\d{1,2})(?:\.(\d{1,2}))?\.?")
_APPENDIX_RE = re.compile(r"appendix\s*([a-z])", re.IGNORECASE)


def parse_section_ref(text: str) -> str | None:
    """The section number ``text`` names (``"2.05."`` → ``2.5``, ``"appendix b"`` →
    ``Appendix B``), or ``None`` when it is not a number (it may be a name)."""
    cleaned = _REF_PREFIX_RE.sub("", text.strip()).strip()
    m = _NUMBER_RE.fullmatch(cleaned)
    if m:
        top = str(int(m.group(1)))
        return f"{top}.{int(m.group(2))}" if m.group(2) else top
    m = _APPENDIX_RE.fullmatch(cleaned)
    if m:
        return f"Appendix {m.group(1).upper()}"
    return None


def _sort_key(number: str) -> tuple[int, int, str]:
    if number[:1].isdigit():
        top, _, sub = number.partition(".")
        return (int(top), int(sub) if sub else -1, "")
    return (1000, 0, number)


def nearest_sections(numbers: list[str], wanted: str, count: int = 3) -> list[str]:
    """The ``count`` existing numbers closest to ``wanted`` (siblings first, then neighbours)."""
    import difflib

    numbered = [n for n in numbers if n[:1].isdigit() or n.startswith("Appendix")]
    if not (wanted[:1].isdigit() or wanted.startswith("Appendix")):
        return difflib.get_close_matches(wanted, numbers, n=count)
    key = _sort_key(wanted)
    if "." in wanted:
        family = [n for n in numbered if n.split(".")[0] == wanted.split(".")[0] and n != wanted]
    else:  # a top-level section: the other top-level sections and appendices
        family = [n for n in numbered if "." not in n and n != wanted]
    pool = family or numbered

    def distance(n: str) -> tuple[float, tuple[int, int, str]]:
        k = _sort_key(n)
        return (abs(k[0] - key[0]) * 100 + abs(k[1] - key[1]), k)

    picked = sorted(pool, key=distance)[:count]
    return sorted(picked, key=_sort_key)


def find_number(entries: list[dict[str, Any]], number: str) -> dict[str, Any] | None:
    """The entry with this number, or ``None``."""
    return next((e for e in entries if e["number"] == number), None)


def whole_section(entries: list[dict[str, Any]], number: str) -> list[str]:
    """``number`` and, for a top-level section, every section under it, in order."""
    return [e["number"] for e in entries if e["number"] == number or e["parent"] == number]


def _fold(text: str) -> str:
    text = fold_text(text).casefold().replace("’", "'")
    return re.sub(r"[^a-z0-9']+", " ", text).strip()


def _names(entry: dict[str, Any]) -> list[str]:
    """What a section may be called: its title, and an infraction's name without its class."""
    title = entry["title"] or ""
    names = [title]
    if "—" in title:
        names.append(title.split("—", 1)[1])
    return [_fold(n) for n in names if n.strip()]


def find_named(
    entries: list[dict[str, Any]],
    query: str,
    *,
    kind: str,
    edition: str,
    parts: bool = False,
) -> SectionMatch:
    """The section whose title (or, with ``parts``, a part's heading) ``query`` names.

    Exact names first, then titles holding every word of the query, then one close
    misspelling ("missd trigger"); otherwise raises :class:`UnknownSectionError` with the
    closest names.
    """
    import difflib

    wanted = _fold(query)
    candidates: list[tuple[str, str, int | None]] = []  # (folded name, number, part)
    for entry in entries:
        candidates.extend((name, entry["number"], None) for name in _names(entry))
        if parts:
            for index, heading in enumerate(entry.get("parts", [])):
                candidates.append((_fold(heading), entry["number"], index))
    if not wanted:
        raise UnknownSectionError(kind, edition, query, [], by_name=True)
    exact = [c for c in candidates if c[0] == wanted]
    if exact:
        return SectionMatch(exact[0][1], "exact", exact[0][2])
    words = wanted.split()
    partial = list(
        dict.fromkeys(
            (number, part)
            for name, number, part in candidates
            if all(w in name.split() or (len(w) > 3 and w in name) for w in words)
        )
    )
    if len(partial) == 1:
        return SectionMatch(partial[0][0], "partial", partial[0][1])
    scored = sorted(
        (
            (difflib.SequenceMatcher(None, wanted, name).ratio(), number, part)
            for name, number, part in candidates
        ),
        key=lambda t: -t[0],
    )
    best = scored[0] if scored else (0.0, "", None)
    second = next((s for s in scored[1:] if (s[1], s[2]) != (best[1], best[2])), (0.0, "", None))
    if best[0] >= 0.8 and best[0] - second[0] >= 0.05:
        return SectionMatch(best[1], "fuzzy", best[2])
    if len(partial) > 1:
        nearest = [number for number, _ in partial]
    else:
        nearest = [number for ratio, number, _ in scored if ratio >= 0.5]
    raise UnknownSectionError(kind, edition, query, list(dict.fromkeys(nearest))[:5], by_name=True)
