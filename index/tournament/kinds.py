"""The tournament documents' short names, as ids (``ipg:2.1``), folders and labels use them.

Kept apart from :mod:`.model`, whose dataclasses cost a lookup start-up time it need not pay.
"""

from __future__ import annotations

__all__ = ["KINDS", "LABELS"]

KINDS: dict[str, str] = {
    "mtr": "Magic: The Gathering Tournament Rules",
    "ipg": "Magic Infraction Procedure Guide",
    "jar": "Judging at Regular Rules Enforcement Level",
    "dmtr": "Magic Digital Tournament Rules",
    "dipg": "Magic Digital Infraction Procedure Guide",
}
"""Every document kind, by the short name used in ids (``ipg:2.1``) and folder names."""

LABELS: dict[str, str] = {
    "mtr": "MTR",
    "ipg": "IPG",
    "jar": "JAR",
    "dmtr": "Digital MTR",
    "dipg": "Digital IPG",
}
"""How output names a document before a section number: ``IPG 2.1``."""
