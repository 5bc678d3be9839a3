"""``judge model``: the sentence-embedding model of the semantic re-rank (:mod:`index.semantic`).

``judge model`` shows what is installed; ``judge model install`` downloads all-MiniLM-L6-v2 from
the Hugging Face hub (:mod:`index.semantic.hub`) and ``judge model import DIR`` copies a local
model folder; both check the copy, make it the active model, then embed the newest stored
edition for it. onnxruntime is imported only by ``install`` and ``import``, never by the listing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT_SETTINGS, Group, echo, emit_json, json_option
from .errors import INSTALL_SEMANTIC, MODEL_FOLDER

if TYPE_CHECKING:
    from index.semantic import InstalledModel

__all__ = ["model"]


def _describe(m: InstalledModel) -> str:
    mark = " (active)" if m.active else ""
    day = time.strftime("%Y-%m-%d", time.gmtime(m.imported))
    weights = "int8 weights, " if m.quantised else ""
    return (
        f"{m.name}{mark}: {m.dimension} dimensions, digest {m.digest[:12]}, {weights}"
        f"imported {day} from {m.source}"
    )


@click.group(cls=Group, invoke_without_command=True, context_settings=CONTEXT_SETTINGS)
@json_option
@click.pass_context
def model(ctx: click.Context, as_json: bool) -> None:
    """Show the sentence-embedding model of the semantic re-rank (`judge model install`).

    The re-rank is an optional extra: pip install "judge-cli[semantic]" adds onnxruntime and
    tokenizers; the model (all-MiniLM-L6-v2) is downloaded from the Hugging Face hub
    (`judge model install`) or imported from a local copy of its folder (`judge model import DIR`).
    """
    if ctx.invoked_subcommand is not None:
        return
    from index.semantic import ModelStore, is_available

    store = ModelStore.from_env()
    models = store.models()
    if as_json:
        emit_json(
            {
                "available": is_available(),
                "active": store.active_name(),
                "models": [m.to_json() for m in models],
            }
        )
        return
    for m in models:
        echo(_describe(m) + ".")
    if not models:
        echo(
            f"No model is installed in {store.models_dir}. Run `judge model install` to download"
            " all-MiniLM-L6-v2 from the Hugging Face hub, or `judge model import DIR` with a "
            f"copy of it. {MODEL_FOLDER}"
        )
    if not is_available():
        echo(f"The semantic extra is not installed: {INSTALL_SEMANTIC} adds it.")


_int8_option = click.option(
    "--int8",
    is_flag=True,
    help="Quantise the copy search runs to int8 weights (needs the onnx package): about half "
    "the CPU time a question, a little less accurate on real questions.",
)

INSTALL_INT8 = 'pip install "judge-cli[int8]"'


def _require_quantiser(int8: bool) -> None:
    """Refuses ``--int8`` before any work when onnxruntime's quantiser cannot run."""
    if not int8:
        return
    try:
        import onnx  # noqa: F401  (the quantiser imports it anyway)
    except ImportError:
        needs = f"--int8 needs the onnx package: {INSTALL_INT8} adds it."
        raise click.ClickException(needs) from None


@model.command("import", context_settings=CONTEXT_SETTINGS)
# A plain string, not click.Path: the library names what is wrong with the folder.
@click.argument("folder", metavar="DIR")
@click.option("--name", default=None, help="Install under this name (default: the folder's).")
@_int8_option
@json_option
def model_import(folder: str, name: str | None, int8: bool, as_json: bool) -> None:
    """Copy a local model folder into the data folder, check it, and make it the active model.

    The copy must load and embed a test sentence before it is used; if anything is missing or
    wrong, nothing is installed and the model in use stays in use.
    """
    from index.errors import StoreWriteError, os_reason
    from index.semantic import ModelCheckError, ModelFolderError, ModelStore

    from .common import ProgressLine, stderr_is_terminal

    _require_quantiser(int8)
    store = ModelStore.from_env()
    source = Path(folder).expanduser()
    bar = ProgressLine("Copying", "KiB") if stderr_is_terminal() and not as_json else None
    try:
        installed = store.import_folder(
            source, name, progress=bar, source=str(source.resolve()), quantise=int8
        )
    except (ModelFolderError, ModelCheckError):
        raise
    except OSError as exc:
        raise StoreWriteError(store.models_dir, os_reason(exc), folder) from None
    finally:
        if bar is not None:
            bar.finish()
    _installed(installed, as_json, int8)


@model.command("install", context_settings=CONTEXT_SETTINGS)
@click.option(
    "--url",
    metavar="URL",
    default=None,
    help="Base address of a mirror serving the hub's files (URL/tokenizer.json, …). "
    "[default: the Hugging Face hub]",
)
@click.option(
    "--sums",
    metavar="FILE",
    default=None,
    help="A SHA256SUMS file with the hashes of the source's files, when they are not the hub's.",
)
@_int8_option
@json_option
def model_install(url: str | None, sums: str | None, int8: bool, as_json: bool) -> None:
    """Download all-MiniLM-L6-v2 from the Hugging Face hub, check it, and make it active.

    Every file is checked against the sha256 the hub publishes (or those --sums lists) and the
    model must load and embed a test sentence before it is used; if anything fails, nothing is
    installed and the model in use stays in use. About 91 MB.
    """
    from index.errors import StoreWriteError, os_reason
    from index.semantic import ModelStore
    from index.semantic.hub import HUB_URL, install_model, read_sums

    from .common import ProgressLine, stderr_is_terminal

    _require_quantiser(int8)
    store = ModelStore.from_env()
    expected = read_sums(Path(sums).expanduser()) if sums is not None else None
    terminal = stderr_is_terminal() and not as_json
    bar = ProgressLine("Downloading", "KiB") if terminal else None
    try:
        installed = install_model(
            store, url or HUB_URL, expected=expected, progress=bar, quantise=int8
        )
    except OSError as exc:
        raise StoreWriteError(store.models_dir, os_reason(exc)) from None
    finally:
        if bar is not None:
            bar.finish()
    _installed(installed, as_json, int8)


def _installed(installed: InstalledModel, as_json: bool, int8: bool = False) -> None:
    """Reports an installed model, then embeds the newest stored edition for it."""
    if as_json:
        emit_json(installed.to_json())
    else:
        echo(f"Installed {_describe(installed)}.")
        if int8 and not installed.quantised:
            echo(
                "The int8 copy did not embed close enough to the published weights: search"
                " runs the float weights."
            )
    _embed_newest(quiet=as_json)


def _embed_newest(*, quiet: bool) -> None:
    """Embeds the newest stored edition now, so that the next search is quick (others wait
    for their first search)."""
    from index.edition import open_edition

    from .common import ProgressLine, open_store, stderr_is_terminal
    from .search_command import embed_edition

    ed = open_edition(None, store=open_store())
    if ed.is_sample or ed.semantic_status() == "current":
        return
    terminal = stderr_is_terminal() and not quiet
    if not quiet:
        echo(f"Embedding edition {ed.label} for the semantic re-rank…", err=True)
    bar = ProgressLine("Embedding", "passages") if terminal else None
    try:
        embed_edition(ed, bar)
    finally:
        if bar is not None:
            bar.finish()
