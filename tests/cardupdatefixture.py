"""Serving MTGJSON-like card files from the loopback test server, for the card update tests."""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from judge_cli.cli import cli

from .cardfixture import atomic
from .httpfixture import Route, Server

__all__ = [
    "FAST",
    "FILE",
    "FIND",
    "KEPT",
    "ROOT",
    "answers",
    "cards_bytes",
    "leftovers",
    "publish",
    "run",
    "sha",
]

ROOT = Path(__file__).resolve().parents[1]
KEPT = "Nothing was stored; the card data stored before still answers."
FIND = (
    "find the AtomicCards link on https://mtgjson.com/downloads/all-files/ and pass it with --url."
)
FILE = "/api/v5/AtomicCards.json.xz"
FAST: dict[str, Any] = {"timeout": 2.0, "total_timeout": 10.0}


def cards_bytes(date: str = "2031-02-02", kind: str = "xz", version: str = "5.test") -> bytes:
    raw = json.dumps(atomic(date=date, version=version), ensure_ascii=False).encode("utf-8")
    if kind == "gzip":
        return gzip.compress(raw)
    if kind == "xz":
        return lzma.compress(raw)
    return raw


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def publish(
    server: Server,
    path: str,
    body: bytes,
    *,
    sidecar: bool = True,
    meta: tuple[str, str] | None = None,
) -> str:
    """Serves ``body`` at ``path`` as MTGJSON does: with its ``.sha256`` and ``Meta.json``."""
    server.routes[path] = Route(body, content_type="application/octet-stream")
    if sidecar:
        server.routes[path + ".sha256"] = Route(sha(body).encode())
    if meta is not None:
        folder = path.rsplit("/", 1)[0]
        doc = {"data": {"date": meta[0], "version": meta[1]}, "meta": {"date": meta[0]}}
        server.routes[folder + "/Meta.json"] = Route(json.dumps(doc).encode())
    return server.url(path)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def answers(home: Path, date: str) -> bool:
    """Checks that ``judge card`` answers from the card data of ``date``."""
    code, out, _ = run("card", "Platinum Angel")
    return code == 0 and out.endswith(f"Oracle card data of {date} (13 cards).\n")


def leftovers(home: Path) -> list[str]:
    folder = home / "cards"
    return sorted(p.name for p in folder.glob(".tmp-*")) if folder.is_dir() else []
