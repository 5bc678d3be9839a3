"""Folding card names for lookup: case, curly quotes, accents, punctuation."""

from __future__ import annotations

import re
import unicodedata

from glossary.fold import fold_text, without_surrogates

__all__ = ["fold_name", "loose_name", "split_name"]

_SPACE_RE = re.compile(r"\s+")
_NOT_ALNUM_RE = re.compile(r"[\W_]+")
_LIGATURES = str.maketrans({"æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE"})


def fold_name(name: str) -> str:
    """The key an exact lookup uses: any case, straight quotes, no accents, single spaces.

    "Lim-Dûl’s Vault" and "lim-dul's vault" fold alike.
    """
    text = fold_text(name)
    if not text.isascii():
        # A command line's undecodable byte ("\\udcff") is a character SQLite cannot encode.
        text = without_surrogates(text)
        # NFKD splits "û" into "u" and a combining mark, which is then dropped; "Æther" was
        # printed before Oracle spelt it "Aether".
        text = "".join(
            c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
        ).translate(_LIGATURES)
    return _SPACE_RE.sub(" ", text).strip().casefold()


def loose_name(name: str) -> str:
    """The key for a name typed without punctuation or spaces: "thrunthelasttroll"."""
    return _NOT_ALNUM_RE.sub("", fold_name(name))


def split_name(name: str) -> list[str]:
    """The face names in a multi-face card's name: "Fire // Ice" → ["Fire", "Ice"]."""
    return [part.strip() for part in name.split("//") if part.strip()]
