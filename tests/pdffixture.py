"""Small PDFs written by hand for the tests: text pages, blank pages, encrypted copies.

A minimal PDF 1.4 file (Helvetica, one text line per ``Tj``) with a correct cross-reference
table, so that pypdf reads it the way it reads the documents Wizards publishes.
"""

from __future__ import annotations

import io

__all__ = ["encrypted", "make_pdf"]


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("cp1252")


def make_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose pages hold these lines of text (an empty list makes a page with no text)."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    contents = []
    for lines in pages:
        ops = [b"BT", b"/F1 11 Tf", b"14 TL", b"72 740 Td"]
        ops += [b"(" + _escape(line) + b") Tj T*" for line in lines]
        ops.append(b"ET")
        stream = b"\n".join(ops) if lines else b""
        contents.append(add(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)))
    pages_id = len(objects) + len(pages) + 1
    kids = [
        add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)
        )
        for content in contents
    ]
    refs = b" ".join(b"%d 0 R" % kid for kid in kids)
    add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids)))
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, catalog, xref)
    )
    return out.getvalue()


def encrypted(data: bytes, user_password: str, owner_password: str = "owner") -> bytes:
    """A copy of a PDF encrypted with pypdf (RC4: no extra dependency needed)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password, owner_password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
