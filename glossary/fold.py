"""Folding text for matching: curly quotes, apostrophes and dashes, case, qualifiers.

Kept apart from :mod:`glossary.entry` (and free of dataclasses) so that a search can fold its
query without importing the glossary model.
"""

from __future__ import annotations

import re

__all__ = ["fold_text", "normalise_term", "without_surrogates"]

# Curly quotes, primes and dashes folded to their plain forms for matching (never for display).
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
# Searched in the text with its trailing space stripped: a pattern that began and ended with \s*
# rescanned a run of spaces from each of them (20,000 spaces took 4 s).
_QUALIFIER_RE = re.compile(r"\((?:obsolete|informal)\)\Z", re.IGNORECASE)
_SPACE_RE = re.compile(r"\s+")


def fold_text(text: str) -> str:
    """Folds curly quotes, apostrophes and dashes to ASCII, keeping everything else."""
    return text if text.isascii() else text.translate(_FOLD)


def normalise_term(term: str) -> str:
    """The key a term is matched by: folded, case-free, without "(Obsolete)" or "(Informal)"."""
    folded = fold_text(term).rstrip()
    qualifier = _QUALIFIER_RE.search(folded)
    if qualifier is not None:
        folded = folded[: qualifier.start()]
    return _SPACE_RE.sub(" ", folded).strip().casefold()


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (U+D800–U+DFFF) replaced by U+FFFD, the replacement
    character: text that can be encoded as UTF-8.

    A command line's undecodable byte reaches Python as one (``\\xff`` as ``\\udcff``), and
    so does JSON's ``"\\ud800"``; UTF-8 encoders (SQLite, the tokenizer) refuse them.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", "\ufffd", text)
    return text
