"""``judge model``: the sentence-embedding model of the semantic re-rank (:mod:`index.semantic`).

``judge model`` shows what is installed; ``judge model import DIR`` copies a local model folder
into the data folder and checks it. onnxruntime is imported only by ``import`` (to check the
copy), never by the listing.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT_SETTINGS, emit_json, fail, json_option

if TYPE_CHECKING:
    from index.semantic import InstalledModel

__all__ = ["model"]

EXTRA = 'pip install "judge-cli[semantic]"'
MODEL_FOLDER = (
    "A model folder holds tokenizer.json, config.json and onnx/model.onnx, as the Hugging Face "
    "hub publishes sentence-transformers/all-MiniLM-L6-v2."
)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    """``text`` with control characters shown as escapes (a message may quote a file)."""
    return _CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _describe(m: InstalledModel) -> str:
    mark = " (active)" if m.active else ""
    day = time.strftime("%Y-%m-%d", time.gmtime(m.imported))
    return (
        f"{m.name}{mark}: {m.dimension} dimensions, digest {m.digest[:12]}, "
        f"imported {day} from {_printable(m.source)}"
    )


@click.group(invoke_without_command=True, context_settings=CONTEXT_SETTINGS)
@json_option
@click.pass_context
def model(ctx: click.Context, as_json: bool) -> None:
    """Show the sentence-embedding model of the semantic re-rank (`judge model import DIR`).

    The re-rank is an optional extra: pip install "judge-cli[semantic]" adds onnxruntime and
    tokenizers; the model (all-MiniLM-L6-v2) is imported from a local copy of its folder.
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
        click.echo(_describe(m) + ".")
    if not models:
        click.echo(
            f"No model is installed in {store.models_dir}. Run `judge model import DIR` with a "
            f"copy of all-MiniLM-L6-v2. {MODEL_FOLDER}"
        )
    if not is_available():
        click.echo(f"The semantic extra is not installed: {EXTRA} adds it.")


@model.command("import", context_settings=CONTEXT_SETTINGS)
# A plain string, not click.Path: the library names what is wrong with the folder.
@click.argument("folder", metavar="DIR")
@click.option("--name", default=None, help="Install under this name (default: the folder's).")
@json_option
def model_import(folder: str, name: str | None, as_json: bool) -> None:
    """Copy a local model folder into the data folder, check it, and make it the active model.

    The copy must load and embed a test sentence before it is used; if anything is missing or
    wrong, nothing is installed and the model in use stays in use.
    """
    from index.semantic import (
        ModelCheckError,
        ModelFolderError,
        ModelStore,
        SemanticUnavailableError,
    )

    from .common import ProgressLine, stderr_is_terminal

    store = ModelStore.from_env()
    source = Path(folder).expanduser()
    bar = ProgressLine("Copying", "KiB") if stderr_is_terminal() and not as_json else None
    unchanged = "Nothing was installed; the model installed before, if any, is still in use."
    try:
        installed = store.import_folder(source, name, progress=bar, source=str(source.resolve()))
    except SemanticUnavailableError as exc:
        fail(f"{exc}. Install the extra with {EXTRA}, then import the model again.")
    except ModelFolderError as exc:
        fail(f"{_printable(str(exc))}. {unchanged} {MODEL_FOLDER}")
    except ModelCheckError as exc:
        fail(
            f"{_printable(str(exc))}. {unchanged} Copy the model folder again from where it "
            "came from (the file may be damaged or truncated)."
        )
    except OSError as exc:
        fail(f"could not copy {folder} into {store.models_dir} ({exc}). {unchanged}")
    finally:
        if bar is not None:
            bar.finish()
    if as_json:
        emit_json(installed.to_json())
        return
    click.echo(f"Installed {_describe(installed)}.")
