"""The bundled sample corpus: the documents the project started from.

Used when no edition is stored: ``000`` is a glossary excerpt of the 2006–2007 CR (terms L–M),
``002`` the 1994 Legends rulecard, ``003`` a glossary excerpt whose terms were stripped.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources

from glossary.entry import GlossaryEntry

from ..documents import (
    name_paragraphs,
    read_glossary_text,
    read_paragraphs,
    read_rulecard,
)
from ..model import Document

__all__ = ["SAMPLE_TITLE", "load_sample"]

SAMPLE_TITLE = "bundled sample (CR glossary excerpts, Legends rulecard)"


def _read(name: str) -> str:
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def load_sample(glossaries: Iterable[list[GlossaryEntry]] = ()) -> Document:
    """The sample as one document with no edition date.

    The paragraphs of the excerpt whose terms were stripped get their term back from the first
    of ``glossaries`` (stored editions' glossaries) that has the same definition.
    """
    doc = Document(edition=None, title=SAMPLE_TITLE)
    doc.glossary = read_glossary_text(_read("000_81a27208126c33ac.txt"), "CR glossary excerpt")
    doc.sections = read_rulecard(_read("002_50f8f43f305e6e2c.txt"), "Legends rulecard")
    stripped = read_paragraphs(
        _read("003_d3eb685e9f8648e1.txt"), "CR glossary excerpt, terms stripped"
    )
    for glossary in glossaries:
        name_paragraphs(stripped, glossary)
    doc.sections += stripped
    return doc
