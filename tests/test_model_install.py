"""``judge model install``: the model downloaded from a loopback server serving ../shared/models.

The server plays the Hugging Face hub (``<base>/<file>``). The shared folder's ``onnx/model.onnx``
is an export made locally, not the hub's, so a download checked against the hub's pinned hashes
fails on it: that is the wrong-hash case; with the folder's own ``SHA256SUMS`` (``--sums``) the
install succeeds. Skipped, with the reason, when ../shared/models (or the extra) is absent;
under CI they fail instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from index.fetch import FetchError, HashMismatchError, HTTPStatusError, TruncatedDownloadError
from index.semantic import ModelStore
from index.semantic.hub import HUB_FILES, HUB_SHA256, install_model, read_sums
from judge_cli.cli import cli

from .conftest import tree_digest
from .httpfixture import Route, Server, serve
from .test_semantic_model import MODELS, shared_model


@pytest.fixture(scope="module")
def bodies() -> dict[str, bytes]:
    folder = shared_model()
    return {rel: (folder / rel).read_bytes() for rel in HUB_FILES}


@pytest.fixture
def hub(bodies: dict[str, bytes]) -> Iterator[Server]:
    with serve() as server:
        for rel, body in bodies.items():
            server.routes[f"/m/{rel}"] = Route(body, content_type="application/octet-stream")
        yield server


SUMS = MODELS / "SHA256SUMS"


def _invoke(home: Path, args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args, env={"JUDGE_HOME": str(home), "NO_COLOR": "1"})
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


def _leftovers(home: Path) -> list[Path]:
    return [p for p in (home / "models").glob(".download-*")]


def test_the_shared_sums_are_the_hub_s_but_for_the_local_export() -> None:
    sums = read_sums(SUMS)
    assert sums["tokenizer.json"] == HUB_SHA256["tokenizer.json"]
    assert sums["onnx/model.onnx"] != HUB_SHA256["onnx/model.onnx"]
    folder = shared_model()
    import hashlib

    for rel in HUB_FILES:
        if rel != "onnx/model.onnx":  # the small files are as the hub publishes them
            assert hashlib.sha256((folder / rel).read_bytes()).hexdigest() == HUB_SHA256[rel]


def test_a_full_install(hub: Server, tmp_path: Path) -> None:
    code, out = _invoke(tmp_path, ["model", "install", "--url", hub.url("/m"), "--sums", str(SUMS)])
    assert code == 0, out
    assert out.startswith("Installed all-MiniLM-L6-v2 (active): 384 dimensions, digest ")
    assert f"from {hub.url('/m')}." in out
    assert sorted(r.path for r in hub.requests) == sorted(f"/m/{rel}" for rel in HUB_FILES)
    listing = json.loads(_invoke(tmp_path, ["model", "--json"])[1])
    (record,) = listing["models"]
    expected = {**HUB_SHA256, **read_sums(SUMS)}
    assert {rel: record["files"][rel] for rel in HUB_FILES} == {r: expected[r] for r in HUB_FILES}
    assert _leftovers(tmp_path) == []
    assert ModelStore(tmp_path).get().load().embed(["a test"]).shape == (1, 384)


def test_the_hub_s_hashes_refuse_another_export(hub: Server, tmp_path: Path) -> None:
    code, out = _invoke(tmp_path, ["model", "install", "--url", hub.url("/m")])
    assert code == 1
    url = hub.url("/m/onnx/model.onnx")
    local = read_sums(SUMS)["onnx/model.onnx"]
    assert out == (
        f"Error: the download of {url} has sha256 {local}, not the expected "
        f"{HUB_SHA256['onnx/model.onnx']}. Nothing was installed; the model installed before, "
        "if any, is still in use. The file is not the one published with all-MiniLM-L6-v2: a "
        "mirror given with --url must serve the hub's files (or give its own hashes with "
        "--sums FILE).\n"
    )
    assert ModelStore(tmp_path).names() == [] and _leftovers(tmp_path) == []


@pytest.fixture
def installed_home(tmp_path: Path) -> Path:
    """A data folder with the model imported, so that a failed install must keep it."""
    home = tmp_path / "home"
    ModelStore(home).import_folder(shared_model())
    return home


def test_a_truncated_download_installs_nothing(hub: Server, installed_home: Path) -> None:
    before = tree_digest(installed_home / "models")
    body = hub.routes["/m/onnx/model.onnx"].body
    hub.routes["/m/onnx/model.onnx"] = Route(body, send_bytes=1 << 20)
    code, out = _invoke(
        installed_home, ["model", "install", "--url", hub.url("/m"), "--sums", str(SUMS)]
    )
    assert code == 1
    assert out.startswith(
        f"Error: the download of {hub.url('/m/onnx/model.onnx')} stopped after 1048576 of "
        f"{len(body)} bytes; try again. Nothing was installed; the model installed before, if "
        "any, is still in use. Run `judge model install` again."
    )
    assert tree_digest(installed_home / "models") == before
    assert ModelStore(installed_home).get().name == "all-MiniLM-L6-v2"


def test_a_404_installs_nothing(hub: Server, installed_home: Path) -> None:
    before = tree_digest(installed_home / "models")
    del hub.routes["/m/tokenizer.json"]
    code, out = _invoke(installed_home, ["model", "install", "--url", hub.url("/m")])
    assert code == 1
    assert out == (
        f"Error: {hub.url('/m/tokenizer.json')} answered 404 Not Found. Nothing was installed; "
        "the model installed before, if any, is still in use. --url must be the address under "
        "which tokenizer.json, config.json and onnx/model.onnx are found; leave it out to use "
        "the Hugging Face hub.\n"
    )
    assert tree_digest(installed_home / "models") == before


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        ("cut", TruncatedDownloadError),
        ("missing", HTTPStatusError),
        ("hub-hashes", HashMismatchError),
    ],
)
def test_the_library_raises_fetch_errors_for_the_model(
    hub: Server, tmp_path: Path, damage: str, error: type[FetchError]
) -> None:
    expected = None if damage == "hub-hashes" else read_sums(SUMS)
    if damage == "cut":
        config = hub.routes["/m/config.json"].body
        hub.routes["/m/config.json"] = Route(config, send_bytes=10)
    elif damage == "missing":
        del hub.routes["/m/1_Pooling/config.json"]
    with pytest.raises(error) as info:
        install_model(ModelStore(tmp_path), hub.url("/m"), expected=expected)
    assert info.value.purpose == "model"
    assert ModelStore(tmp_path).names() == [] and _leftovers(tmp_path) == []


def test_an_unreadable_sums_file(tmp_path: Path) -> None:
    bad = tmp_path / "SUMS"
    bad.write_text("not a hash line\n", encoding="utf-8")
    code, out = _invoke(tmp_path, ["model", "install", "--sums", str(bad)])
    assert code == 1
    assert out.startswith(f"Error: {bad}, line 1: expected a sha256 and a file name. It lists ")
