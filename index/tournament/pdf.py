"""Text out of the PDFs Wizards publishes, with pypdf (imported here only, when a PDF is read).

Only :func:`extract_pages` touches pypdf; lookups never import this module.
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from collections.abc import Iterator

from .model import DamagedPdfError, EncryptedPdfError, ImageOnlyPdfError

__all__ = ["MAX_PAGES", "extract_pages", "is_pdf"]

MAX_PAGES = 400
"""More pages than any tournament document has had: a file past it is refused, not read."""


def is_pdf(data: bytes) -> bool:
    """Checks if ``data`` starts like a PDF (``%PDF-``, perhaps after a few stray bytes)."""
    return b"%PDF-" in data[:1024]


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    # pypdf reports what it repairs through logging and warnings ("incorrect startxref
    # pointer"); a damaged file is our error to report, once, not a stream of its notes.
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


def extract_pages(data: bytes, source: str) -> list[str]:
    """The text of every page, in order, as pypdf extracts it.

    Raises :class:`~index.tournament.model.DamagedPdfError` for a truncated or broken file,
    :class:`~index.tournament.model.EncryptedPdfError` when a password is needed, and
    :class:`~index.tournament.model.ImageOnlyPdfError` when no page has any text.
    """
    # A PDF ends with "%%EOF" (a download cut short does not); pypdf would often read the
    # pages it can reach and say nothing, and half a document must never be stored.
    if b"%%EOF" not in data[-2048:]:
        raise DamagedPdfError(source, "the PDF is truncated: it ends before its %%EOF marker")
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    with _quiet():
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                try:
                    opened = reader.decrypt("")
                except (DependencyError, NotImplementedError) as exc:
                    raise EncryptedPdfError(source, f"the PDF is encrypted ({exc})") from None
                if not opened:
                    raise EncryptedPdfError(source, "the PDF is encrypted: it needs a password")
            count = len(reader.pages)
            if count > MAX_PAGES:
                raise DamagedPdfError(
                    source, f"the PDF has {count} pages, more than a tournament document has"
                )
            pages = [page.extract_text() or "" for page in reader.pages]
        except FileNotDecryptedError:
            raise EncryptedPdfError(source, "the PDF is encrypted: it needs a password") from None
        except (EncryptedPdfError, DamagedPdfError):
            raise
        # pypdf's own words: "broken PDF files might cause other Exceptions" than its
        # PdfReadError, so anything it raises here means the file cannot be read.
        except Exception as exc:
            reason = str(exc) or type(exc).__name__
            raise DamagedPdfError(source, f"the PDF cannot be read ({reason[:120]})") from None
    if not pages or not any(page.strip() for page in pages):
        raise ImageOnlyPdfError(source, len(pages))
    return pages
