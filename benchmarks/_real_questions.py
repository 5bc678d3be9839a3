"""The real questions (``../shared/questions/real-questions.jsonl``): reading and scoring them.

Scoring as that folder's README says: success@k is the share of questions with any expected id
in the first k results; MRR@10 the mean of 1/rank of the first expected id in the first 10;
a parent rule counts for its lettered subrule (702.19 for 702.19b), not the other way round.
The questions are never copied into the project: ``real-misses.tsv`` beside this file holds
only their ids, a kind of miss, and a note of ours.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL_FILE = ROOT.parent / "shared" / "questions" / "real-questions.jsonl"
REAL_EDITION = "20250207"
"""The edition the answer keys are written in (``../shared/corpus/cr-20250207.txt``)."""
MISS_KINDS = Path(__file__).with_name("real-misses.tsv")
HALVES = {"T": "tuning (odd ids)", "H": "held back (even ids)"}
"""The fixed split of the real questions, chosen before any tuning on them (2026-12-01): a
question whose id number is odd (r001, r003, …) is in the tuning half ``T``, one whose number
is even (r002, r004, …) in the held-back half ``H``. Tables, signals and weights are chosen
looking at ``T`` only; ``H`` is scored to check that they hold."""
_LETTERED = re.compile(r"\d{3}\.\d+[a-z]")


@dataclass(frozen=True)
class RealQuestion:
    id: str
    text: str
    expected: tuple[str, ...]
    topic: str
    expected_by: str


def read_real_questions(path: Path = REAL_FILE) -> list[RealQuestion]:
    """The questions, one JSON object a line; ``[]`` when the file is absent."""
    if not path.is_file():
        return []
    out: list[RealQuestion] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(
            RealQuestion(
                row["id"],
                row["question"],
                tuple(row["expected"]),
                row.get("topic", "other"),
                row.get("expected_by", ""),
            )
        )
    return out


def half_of(question_id: str) -> str:
    """``T`` (tuning) for an odd id number, ``H`` (held back) for an even one (see HALVES)."""
    digits = "".join(c for c in question_id if c.isdigit())
    return "T" if int(digits or "0") % 2 else "H"


def is_expected(result_id: str, expected: tuple[str, ...]) -> bool:
    """Checks if a result answers: an expected id, or the parent of an expected lettered rule."""
    for want in expected:
        if want.startswith("glossary:"):
            if result_id.lower() == want.lower():
                return True
        elif result_id == want or (_LETTERED.fullmatch(want) and result_id == want[:-1]):
            return True
    return False


def real_rank(ids: list[str], expected: tuple[str, ...], depth: int = 10) -> int | None:
    """The rank (from 1) of the first expected id in the first ``depth`` results, or ``None``."""
    for i, rid in enumerate(ids[:depth], 1):
        if is_expected(rid, expected):
            return i
    return None


def read_miss_kinds(path: Path = MISS_KINDS) -> dict[str, tuple[str, str]]:
    """Question id → (kind of miss, note), as we classified the misses of lexical search."""
    if not path.is_file():
        return {}
    out: dict[str, tuple[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        qid, kind, note = [*line.split("\t"), "", ""][:3]
        out[qid.strip()] = (kind.strip(), note.strip())
    return out
