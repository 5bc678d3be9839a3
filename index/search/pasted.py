"""Questions as people paste them: a long post cut down to what it asks.

A judge pastes a whole forum post: a greeting, how the game night went, the board, the
question, thanks and edits. Searched whole, its hundreds of words drown the question (91 real
questions, each padded to 3,000 characters with forum chatter: success@5 0.37 → 0.04, and
half a second a search). :func:`find_question` keeps what is asked:

1. boilerplate sentences are dropped (:data:`BOILERPLATE`: greetings, thanks, apologies, edits,
   asking for sources or resources);
2. when the post announces its story ("here's what happened:", "the situation:";
   :data:`STORY`), everything before the announcement is dropped;
3. the last sentence that asks ("?") is the question: it is kept with the sentences before it
   in its paragraph, and with earlier paragraphs, up to :data:`ASKED_CHARS`; a post that asks
   nothing keeps its end.

What is kept is read as prose: quotes, parentheses and capitalised AND, OR, NOT in a post are
not query syntax. Only queries longer than :data:`LONG_QUERY_CHARS` are read this way, so a
query typed into a search box is searched as it always was. Measured with
``benchmarks/search_speed.py`` and on padded real questions (see the closing note of the
change that added this module).
"""

from __future__ import annotations

import re

from .words import LazyPattern

LONG_QUERY_CHARS = 500
"""Queries longer than this are taken for pasted posts (the old limit of a query's length)."""
ASKED_CHARS = 600
"""About how much of a post is searched: the question and what comes just before it (chosen
among 400, 600 and 800 on padded questions; 400 cut set-ups off, 800 let chatter back in)."""

BOILERPLATE = LazyPattern(
    r"""^\W*(?:hi|hey|hello|greetings|thanks|thank\s+you|cheers|edit|tl;?\s*dr|p\.?\s*s\b
        |sorry|bump|update)\b
      | \b(?:thanks|thank\s+you|appreciate|any\s+help|in\s+advance|wall\s+of\s+text|long\s+post
        |lurker|first\s+(?:time\s+)?post|search\s+bar|this\s+thread|this\s+post|the\s+post
        |rule\s+numbers?|a\s+source|bonus\s+points|resource|explain\s+why
        |help\s+me\s+understand)\b""",
    re.IGNORECASE | re.VERBOSE,
)
"""A sentence about the post rather than the game (matched anywhere in the sentence)."""
STORY = LazyPattern(
    r"""\b(?:here'?s\s+what\s+happened|here\s+is\s+what\s+happened|what\s+happened\s+was
      | here'?s\s+the\s+(?:situation|board|scenario|question|deal)
      | here\s+is\s+the\s+(?:situation|board|scenario|question)
      | (?:the|our|my)\s+(?:situation|scenario)\b[^.?!\n]*:
      | board\s+state\b[^.?!\n]*:)""",
    re.IGNORECASE | re.VERBOSE,
)
"""Words that announce the story of a post: what comes before them is its preamble."""

_SENTENCE = LazyPattern(r"[^.?!\n]+[.?!]*")
_PARAGRAPH = LazyPattern(r"\n")
_SYNTAX = str.maketrans(dict.fromkeys('()"\u201c\u201d', " "))
_OPERATOR = LazyPattern(r"\b(?:AND|OR|NOT|ANDNOT|ANDMAYBE)\b")


def is_pasted(query: str) -> bool:
    """Checks if a query is long enough to be read as a pasted post."""
    return len(query) > LONG_QUERY_CHARS


def _sentences(paragraph: str) -> list[str]:
    return [s for m in _SENTENCE.finditer(paragraph) if (s := m.group().strip())]


def _after_story(text: str) -> str:
    """``text`` from the end of the sentence that announces its story, if one does."""
    announced = list(STORY.finditer(text))
    if not announced:
        return text
    found = announced[-1]
    rest = text[found.end() - 1 :]
    end = re.search(r"[:.!?](?:\s|$)", rest)
    return rest[end.end() :] if end is not None else rest[1:]


def find_question(post: str) -> str:
    """What a pasted post asks, as a query of plain words (see the module)."""
    text = _after_story(post)
    paragraphs = [
        kept
        for paragraph in _PARAGRAPH.split(text)
        if (kept := [s for s in _sentences(paragraph) if not BOILERPLATE.search(s)])
    ]
    if not paragraphs:
        return _as_prose(text.strip()[-ASKED_CHARS:])
    places = [(p, s) for p, sentences in enumerate(paragraphs) for s in range(len(sentences))]
    asking = [(p, s) for p, s in places if "?" in paragraphs[p][s]]
    p, s = asking[-1] if asking else places[-1]
    kept = paragraphs[p][: s + 1]
    size = sum(map(len, kept))
    while size > ASKED_CHARS and len(kept) > 1:
        size -= len(kept.pop(0))
    p -= 1
    while p >= 0 and size + sum(map(len, paragraphs[p])) <= ASKED_CHARS:
        kept = paragraphs[p] + kept
        size += sum(map(len, paragraphs[p]))
        p -= 1
    return _as_prose(" ".join(kept))


def _as_prose(text: str) -> str:
    """``text`` with what would be query syntax in it made plain words."""
    text = text.translate(_SYNTAX)
    return str(_OPERATOR.sub(lambda m: m.group().lower(), text))
