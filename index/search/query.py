"""Reading a query: cleaning, shorthand, rule numbers, the whoosh query, fuzzy matching.

Queries (:func:`index.search.search`) are checked and folded (:func:`check_query`: curly
quotes, apostrophes and dashes to ASCII), MTG shorthand and players' words are expanded through
:data:`~index.search.words.SHORTHAND` and :data:`~index.search.words.PLAYER_WORDS`
(:func:`expand_shorthand`), a rule number goes straight to that rule (:func:`rule_numbers`),
and words missing from the index are matched fuzzily (:func:`fuzzify`). :func:`parse` builds
the whoosh query: directly for plain words, phrases, groups, AND and OR (:func:`direct_query`),
through whoosh's parser (imported lazily) for anything else.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from glossary.fold import fold_text

from .engine import qparser, whoosh
from .words import (
    EXPANSIONS,
    NUMBER_WORDS,
    TOKEN_PATTERN,
    LazyPattern,
    expansion_keys,
    phrase_starts,
    stem,
)

if TYPE_CHECKING:
    from .source import OpenIndex

MAX_QUERY_CHARS = 5_000
"""Longer queries are refused with a clear message; a query over
:data:`index.search.pasted.LONG_QUERY_CHARS` is read as a pasted post (a forum post pasted
whole is rarely over 3,000 characters)."""


LONGEST_CORRECTED = 30
"""Longer words are never corrected: the rules' longest word has 17 letters, and correcting
costs time in proportion to a word's length (whoosh's corrector took 11 s for 6,000 letters)."""


class QuerySyntaxError(ValueError):
    """Raised for a query that cannot be searched: unbalanced quotes, only operators, too long."""


class QueryTooLongError(QuerySyntaxError):
    """Raised for a query longer than :data:`MAX_QUERY_CHARS`."""

    def __init__(self, length: int, limit: int) -> None:
        self.length = length
        self.limit = limit
        super().__init__(
            f"the query is {length:,} characters long; the limit is {limit:,}. "
            "Paste only the question, or search for a few words or a phrase from the rule"
        )


_NUMBER_WORD_RE = LazyPattern(
    r"^(?:(?:rules?|cr|§)\s*)?(\d{3}(?:\.\d+[a-z]{0,2})?\.?)$|^(?:rules?|cr|§)\s*(\d)$",
    re.IGNORECASE,
)
_INLINE_NUMBER_RE = LazyPattern(r"(?<![\w.])(\d{3}\.\d+[a-z]{0,2})(?![\w])", re.IGNORECASE)
_RULE_WORD_NUMBER_RE = LazyPattern(r"\brules?\s+(\d{3})\b(?!\.\d)", re.IGNORECASE)
SECTION_RE = LazyPattern(r"\bsection:\s*(\d)\b", re.IGNORECASE)
FIELDS = ("term", "title", "body", "asked")
FIELD_BOOSTS = {"term": 0.5, "title": 1.0, "body": 1.0, "asked": 1.5}
"""Query-time boosts on top of the schema's field boosts (tuned on half A of the benchmark;
``asked``, the players' phrasings of :mod:`index.search.phrasings`, chosen on halves A-D among 1,
1.5, 2 and 3 with the phrasings as shipped: MRR there 0.812, 0.824, 0.815, 0.800)."""
OPERATORS = frozenset(["AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"])


def _split_quoted(text: str) -> list[tuple[bool, str]]:
    """Splits on straight double quotes: (is_quoted, text) parts. Quotes must be balanced."""
    parts = text.split('"')
    if len(parts) % 2 == 0:
        raise QuerySyntaxError(
            'the query has an unbalanced quote; close the phrase with a second " or drop it'
        )
    return [(i % 2 == 1, p) for i, p in enumerate(parts)]


_PHRASE_TOKEN_RE = LazyPattern(r"[\w/]+(?:'\w+)*")
"""A word as the expansion tables spell them: "p/t", "can't", "2hg"."""


def _expand_phrases(part: str, found: list[tuple[str, str]] | None = None) -> str:
    """``part`` with each table phrase (longest first, whole words) replaced by its OR group;
    ``found`` collects (the phrase as typed, its table key)."""
    keys = expansion_keys()[0]
    starts = phrase_starts()
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _PHRASE_TOKEN_RE.finditer(part)]
    out: list[str] = []
    done = 0
    i = 0
    while i < len(tokens):
        for n in range(min(starts.get(tokens[i][2], 0), len(tokens) - i), 0, -1):
            words = tokens[i : i + n]
            if any(not part[a[1] : b[0]].isspace() for a, b in itertools.pairwise(words)):
                continue  # only words separated by spaces make a phrase
            key = keys.get(" ".join(w for _, _, w in words))
            if key is None:
                continue
            start, end = words[0][0], words[-1][1]
            typed = part[start:end]
            own = f'"{typed}"' if " " in typed or "/" in typed else typed
            out.append(part[done:start])
            out.append(f"({own} OR {EXPANSIONS[key]})")
            if found is not None:
                found.append((typed, key))
            done = end
            i += n
            break
        else:
            i += 1
    out.append(part[done:])
    return "".join(out)


def _expand_counts(part: str) -> str:
    """Small numbers and "no" (a count of none) also as the rules write them."""
    # "10 poison counters": the rules spell small numbers out ("ten or more").
    part = re.sub(
        r"(?<![\w./+-])(\d{1,2})(?![\w./])",
        lambda m: (
            f"({m.group(1)} OR {NUMBER_WORDS[int(m.group(1))]})"
            if int(m.group(1)) in NUMBER_WORDS
            else m.group(1)
        ),
        part,
    )
    # "no loyalty counters": a count of none; the rules write the count ("loyalty 0").
    return re.sub(
        r"(?<![\w'-])no(?=\s+(?!longer\b|more\b|one\b|other\b|matter\b)[a-z])",
        "(no OR 0 OR zero)",
        part,
        flags=re.IGNORECASE,
    )


def expand_shorthand(text: str, found: list[tuple[str, str]] | None = None) -> str:
    """Replaces shorthand (outside quotes) with its OR group from :data:`SHORTHAND`."""
    out: list[str] = []
    for quoted, part in _split_quoted(text):
        if quoted:
            out.append(f'"{part}"')
            continue

        part = _expand_phrases(part, found)
        if not any(c.isdecimal() for c in part) and "no" not in part.lower():
            out.append(part)
            continue
        # Counts are read outside the phrases the tables just wrote ("4 player" stays a phrase).
        pieces = part.split('"')
        pieces[::2] = [_expand_counts(piece) for piece in pieces[::2]]
        out.append('"'.join(pieces))
    return "".join(out)


_SYNTAX_CHARS = str.maketrans(dict.fromkeys("{}[]^~*?\\<>", " "))


def _clean(query: str) -> str:
    text = fold_text(query)
    text = text.replace("\u2026", " ")
    # Characters whoosh's parser would read as syntax players never mean.
    text = text.translate(_SYNTAX_CHARS)
    return " ".join(text.split())


def rule_numbers(query: str) -> tuple[list[str], str]:
    """Rule numbers named in the query, and the rest of the query."""
    if not any(c.isdecimal() for c in query):
        return [], query.strip()  # every rule number has a digit
    from ..numbers import InvalidRuleReferenceError, parse_rule_ref

    whole = _NUMBER_WORD_RE.match(query.strip())
    if whole:
        text = whole.group(1) or whole.group(2)
        try:
            ref = parse_rule_ref(text)
        except InvalidRuleReferenceError:
            return [], query
        return [str(ref.start)], ""
    numbers: list[str] = []

    def take(m: re.Match[str]) -> str:
        numbers.append(m.group(1).lower())
        return " "

    rest = _INLINE_NUMBER_RE.sub(take, query)
    rest = _RULE_WORD_NUMBER_RE.sub(take, rest)
    return numbers, rest.strip()


def make_parser(schema: Any) -> Any:
    """whoosh's parser as queries with syntax are read: every field, OR-ed, no wildcards."""
    qp = qparser()
    parser = qp.MultifieldParser(
        list(FIELDS),
        schema,
        fieldboosts=dict(FIELD_BOOSTS),
        group=qp.OrGroup.factory(0.9),
    )
    parser.remove_plugin_class(qp.WildcardPlugin)
    parser.remove_plugin_class(qp.BoostPlugin)
    parser.remove_plugin_class(qp.RangePlugin)
    return parser


_SYNTAX_RE = LazyPattern(r"(?<!\w)'")
"""A single quote opening a word: whoosh reads 'it' as a quoted term."""
_OPERATOR_WORDS = frozenset(["and", "or", "not", "andnot", "andmaybe"])
_OPERATORS = frozenset(["NOT", "ANDNOT", "ANDMAYBE", "REQUIRE"])
"""The parser's operators but AND and OR, which :func:`direct_query` reads; in capitals only:
"Or" and "Not" are words to it ("...? Or can I": 3 of the 5 real questions it parsed)."""


_QUERY_TOKEN_RE = LazyPattern(r'"[^"]*"|[()]|[^\s()"]+')
_QUOTED_TOKEN_RE = LazyPattern(
    r"""(?P<single>(?:^|(?<=[\s(]))'(?:[^'"()\n]|'(?![\s\])}]|$))*'(?=\s|$))"""
    r'|"[^"]*"|[()]|[^\s()"]+'
)
r""":data:`_QUERY_TOKEN_RE` with 'single-quoted' spans as whoosh's ``SingleQuotePlugin`` tags
them (``(^|(?<=\W))'(?P<text>.*?)'(?=\s|\]|[)}]|$)``), where a span opens at a word's start,
closes before a space or the end, and holds no quote, parenthesis or line break; any other
quote whoosh would open sends the query to the parser."""
_COLON_TOKEN_RE = LazyPattern(r'"[^"]*"?|[^\s()"]*:[^\s()"]*')
_UNKNOWN_FIELD_RE = LazyPattern(r"(\w+):")
_GROUP_COLONS_RE = LazyPattern(r"\):+(?:$|\s+(?!(?:AND|OR)(?:\s|$)))")
"""Colons right after a group's ``)``, then the end or a space and no AND or OR: a shorthand
expanded before a colon ("ETB:" → "(ETB OR …):"), one real question in 91, a 24 ms parse."""


def _colons_are_words(schema: Any, text: str) -> bool:
    """Checks if every ``:`` of ``text`` ends a word before a space or the end, outside quotes,
    and the word names no field ("attacking: does it…"): whoosh's parser keeps such a word as
    text, colon and all (its ``FieldsPlugin`` with ``remove_unknown``), as :func:`direct_query`
    does. A question with a colon was a tenth of the real questions and a slow parse each."""
    for m in _COLON_TOKEN_RE.finditer(text):
        token = m.group()
        if token.startswith('"'):
            if ":" in token:
                return False
            continue
        if _GROUP_COLONS_RE.match(text, m.start() - 1):
            continue  # "(ETB OR enters): flying": the parser drops colons closing a group
        name = _UNKNOWN_FIELD_RE.fullmatch(token)
        after = text[m.end() : m.end() + 1]
        if (
            name is None
            or name.group(1) in schema
            or name.group(1).lower() in _OPERATOR_WORDS
            or not (after == "" or after.isspace())
        ):
            return False
    return True


def direct_query(
    schema: Any, text: str, analyzed: dict[tuple[str, str], tuple[str, ...]] | None = None
) -> Any:
    """The query the parser makes of ``text``, built directly; None if it needs the parser.

    Handles what questions and :data:`SHORTHAND` expansions are made of: words, "phrases",
    ( groups ), AND and OR, 'single-quoted words' and words ending in a colon ("attacking:").
    Words are OR-ed over every field of :data:`FIELDS` with :data:`FIELD_BOOSTS`, AND binds
    tighter than OR, a group is an OR, a word the analyzer splits ("day/night", "2/2") is an OR
    of its parts, as in whoosh's ``MultifieldParser`` with an ``OrGroup``; building it here skips
    the parser's plugins and their regular expressions (most of a parse). Anything else (NOT,
    fields, odd operator sequences) is left to the parser.
    ``tests/test_search.py`` checks both give equal queries. ``analyzed``: the words each
    field's analyzer made of a token so far, by (field, token), read and filled.
    """
    from whoosh.query import And, Or, Phrase, Term

    if "*" in text:
        return None
    if ":" in text and not _colons_are_words(schema, text):
        return None
    single = "'" in text and _SYNTAX_RE.search(text) is not None
    tokens: list[str] = []
    for m in (_QUOTED_TOKEN_RE if single else _QUERY_TOKEN_RE).finditer(text):
        a, b = m.span()
        if text[a] == '"' and (
            text[a - 1 : a] not in ("", " ", "(") or text[b : b + 1] not in ("", " ", ")")
        ):
            return None  # a quote touching a word
        if single and text[a] != '"' and m.lastgroup != "single" and _SYNTAX_RE.search(m.group()):
            return None  # a single quote whoosh would open, that this cannot read as it does
        if m.group() in ("AND", "OR") and not (
            text[a - 1 : a].isspace() and text[b : b + 1].isspace()
        ):
            return None  # the parser's AND and OR stand between spaces: "AND(" is a word to it
        tokens.append(m.group())
    if "".join(tokens).replace(" ", "") != "".join(text.split()):
        return None  # an unclosed quote
    tokens = [t for t in tokens if t.strip(":")]  # colons closing a group (see above)

    def clause(token: str) -> Any:
        quoted = token.startswith('"')
        # A 'single-quoted' span is one word to the parser (its SingleQuotePlugin), which the
        # analyzer splits, as it splits "2/2".
        inner = token[1:-1] if quoted or token.startswith("'") else token
        per_field: list[Any] = []
        for fieldname in FIELDS:
            key = (fieldname, inner)
            words = analyzed.get(key) if analyzed is not None else None
            if words is None:
                # whoosh's analyzers (a chain of generators) were a tenth of a warm query.
                words = tuple(schema[fieldname].process_text(inner, mode="query"))
                if analyzed is not None:
                    analyzed[key] = words
            boost = FIELD_BOOSTS[fieldname]
            if len(words) > 1 and not quoted:
                # A word the analyzer splits ("2/2", "face-down"): the parser ORs its parts.
                per_field.append(Or([Term(fieldname, w, boost=boost) for w in words]))
            elif len(words) > 1:
                per_field.append(Phrase(fieldname, words, slop=1, boost=boost))
            elif words:
                # The parser gives a one-word phrase no field boost.
                per_field.append(Term(fieldname, words[0], boost=1.0 if quoted else boost))
        return Or(per_field)

    def flat(items: list[Any]) -> list[Any]:
        # What normalize() would do to an OR inside an OR (boost 1), without its deep copies.
        out: list[Any] = []
        for item in items:
            if type(item) is Or and item.boost == 1.0:
                out.extend(flat(list(item.subqueries)))
            else:
                out.append(item)
        return out

    def group(i: int, closing: bool) -> tuple[Any, int]:
        items: list[Any] = []
        operator: str | None = None
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if token == ")":
                if not closing or operator:
                    raise ValueError(token)
                return Or(flat(items), scale=0.9), i
            if token in ("AND", "OR"):
                if operator or not items:
                    raise ValueError(token)
                operator = token
                continue
            if token in _OPERATORS:
                raise ValueError(token)
            item, i = group(i, True) if token == "(" else (clause(token), i)
            if operator == "AND":
                last = items[-1]
                items[-1] = (
                    And([*last.subqueries, item]) if type(last) is And else And([last, item])
                )
            else:
                items.append(item)
            operator = None
        if closing or operator:
            raise ValueError("unclosed")
        return Or(flat(items), scale=0.9), i

    try:
        q, _ = group(0, False)
    except ValueError:
        return None
    return q.normalize()


def distances(a: str) -> Any:
    """A function giving the edit distance from ``a`` to a word (Myers' bit-parallel method).

    The table of ``a``'s letters is made once, so checking the hundreds of indexed words that
    share a query word's first letter costs a few integer operations per letter.
    """
    m = len(a)
    full = (1 << m) - 1
    top = 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, c in enumerate(a):
        peq[c] = peq.get(c, 0) | (1 << i)

    def distance(b: str) -> int:
        pv, mv, score = full, 0, m
        for c in b:
            eq = peq.get(c, 0)
            xv = eq | mv
            xh = (((eq & pv) + pv) ^ pv) | eq
            ph = mv | (~(xh | pv) & full)
            mh = pv & xh
            if ph & top:
                score += 1
            elif mh & top:
                score -= 1
            ph = ((ph << 1) | 1) & full
            mh = (mh << 1) & full
            pv = mh | (~(xv | ph) & full)
            mv = ph & xv
        return score

    return distance


def fuzzify(q: Any, src: OpenIndex, keep: frozenset[str] = frozenset()) -> Any:
    """Replaces words the index lacks with the indexed words nearest them ("deathtuch").

    Words in ``keep`` stay as they are: a player's word a table has already translated
    ("blink" → exile and return) is not a misspelling of "blank". whoosh's FuzzyTerm builds a
    Levenshtein automaton per query (tens of milliseconds); the words sharing the first letter
    are few enough to compare directly.
    """
    from whoosh.query import Or, Term

    def fix(node: Any) -> Any:
        if type(node) is Term and node.fieldname in FIELDS:
            text = node.text
            if isinstance(text, bytes):
                text = text.decode("utf-8")
            if text in keep:
                return node
            if not 5 <= len(text) <= LONGEST_CORRECTED or any(
                src.doc_frequency(f, text) for f in FIELDS
            ):
                return node
            near = src.near.get(text)
            if near is None:
                # Remembered per open index: a question's word is tried in each of its fields.
                near = src.near[text] = _near(src, text)
            if not near:
                return node
            return Or([Term(node.fieldname, w, boost=node.boost * 0.9) for w in near])
        return node

    return q.accept(fix)


def _near(src: OpenIndex, text: str) -> tuple[str, ...]:
    """The indexed words (of the term and body fields) nearest ``text``, sorted."""
    dist = 1 if len(text) <= 6 else 2
    near: set[str] = set()
    size = len(text)
    distance = distances(text)
    for fieldname in ("term", "body"):
        for word in src.words_starting(fieldname, text[0]):
            if abs(len(word) - size) <= dist and distance(word) <= dist:
                near.add(word)
    return tuple(sorted(near))


def check_length(query: str) -> None:
    """Raises :class:`QueryTooLongError` for a query over :data:`MAX_QUERY_CHARS`."""
    if len(query) > MAX_QUERY_CHARS:
        raise QueryTooLongError(len(query), MAX_QUERY_CHARS)


def check_query(query: str) -> str:
    """The query cleaned and folded; raises :class:`QuerySyntaxError` if it cannot be searched."""
    check_length(query)
    cleaned = _clean(query)
    if not cleaned:
        if query.strip():
            raise QuerySyntaxError(
                "the query has no words to search for (only punctuation); give a word, a phrase "
                "or a rule number"
            )
        raise QuerySyntaxError("the query is empty; give a word, a phrase or a rule number")
    if cleaned.count("(") != cleaned.count(")"):
        raise QuerySyntaxError("the query has unbalanced parentheses; close each ( with a )")
    _split_quoted(cleaned)
    words = cleaned.replace("(", " ").replace(")", " ").split()
    if words and all(w in OPERATORS for w in words):
        raise QuerySyntaxError(
            f"the query has only operators ({' '.join(words)}); put words around them: "
            "legend AND rule, deathtouch OR trample, NOT mana"
        )
    return cleaned


def parse(src: OpenIndex, text: str) -> Any:
    """The whoosh query of a cleaned query ``text`` (see the module), remembered in
    ``src.parsed`` (a query asked again, a card's signals in another question: a fifth of a
    real question asked again with the rulings beside the edition, mean 5.75 → 4.29 ms). The
    query returned is shared: copy it to change it."""
    from .source import PARSED_LONGEST

    found = src.parsed.get(text)
    if found is None:
        found = _parse(src, text)
        if len(text) <= PARSED_LONGEST:
            src.parsed[text] = found
    return found


def _parse(src: OpenIndex, text: str) -> Any:
    w = whoosh()
    found: list[tuple[str, str]] = []
    expanded = expand_shorthand(text, found)
    try:
        q = direct_query(src.schema, expanded, src.analyzed)
        if q is None:
            q = src.parser().parse(expanded)
    except Exception as exc:  # whoosh's parser raises assorted errors on odd input
        raise QuerySyntaxError(f"the query could not be read ({exc})") from None
    if q is w.query.NullQuery or isinstance(q, type(w.query.NullQuery)):
        raise QuerySyntaxError(
            "the query has no words to search for (only common words or operators); "
            "add a rules word, e.g. 'legend rule' or 'deathtouch'"
        )
    typed = frozenset(stem(word.lower()) for t, _ in found for word in re.findall(TOKEN_PATTERN, t))
    return fuzzify(q, src, typed)


def without_sections(text: str) -> tuple[str, list[str]]:
    """The text without its ``section:N`` filters (stripped), and the sections they name."""
    sections: list[str] = []

    def take(m: re.Match[str]) -> str:
        sections.append(m.group(1))
        return " "

    if "section:" in text.lower():
        text = SECTION_RE.sub(take, text)
    return text.strip(), sections
