"""Every library error a user can meet, as its ``Error:`` line and next step: one table.

The click group (:mod:`judge_cli.cli`) and the server both call :func:`describe`, so a message
is written once and reads the same in a terminal and in a bot's JSON. The library's exceptions
carry data (the edition, the nearest rules, the file …) and no advice; the advice is here.
Nothing heavy is imported: each row names its exception by module and class, and a module is
only looked at if it has already been imported (an exception of it cannot exist otherwise).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["CARDS_URL", "GET_CARDS", "GET_DOCUMENTS", "GET_RULES", "Problem", "describe"]

GET_RULES = (
    "To get the full rules, run `judge update`, or download the .txt from "
    "https://magic.wizards.com/en/rules and run `judge index build FILE`."
)
CARDS_URL = "https://mtgjson.com/api/v5/AtomicCards.json.xz"
"""MTGJSON's AtomicCards file, which ``judge cards update`` downloads by default."""
GET_CARDS = (
    "Run `judge cards update` to download MTGJSON's AtomicCards file, or download it"
    f" ({CARDS_URL}) and run `judge cards import FILE`."
)
"""How to get card data, said whenever there is none."""
_USE_CARDS = "Use MTGJSON's AtomicCards file (.json, .json.gz or .json.xz)."
_REF_FORMS = "A rule reference looks like 704.5j, 704.5, 704, 7 or 601.2a-h."
_RULES_PAGE = "https://magic.wizards.com/en/rules"
_CARDS_PAGE = "https://mtgjson.com/downloads/all-files/"
_NEXT_STEP = f"find the .txt link on {_RULES_PAGE} and pass it with --url"


@dataclass(frozen=True)
class Problem:
    """What to tell the user about an error."""

    message: str
    """The text after ``Error:``, next step included."""
    status: int = 400
    """The HTTP status the server answers with."""
    usage: bool = False
    """A mistake in the command line itself (exit status 2)."""


def _near(exc: Any) -> str:
    return f" Nearest: {', '.join(exc.nearest)}." if exc.nearest else ""


def _not_stored(exc: Any) -> str:
    if exc.wanted is None:
        return f"{exc}. {GET_RULES}"
    if exc.purpose == "cited":
        return f"CR {exc}. Leave out --cr-edition."
    if exc.purpose == "remove":
        return f"{exc}. Run `judge editions` to list them."
    return f"{exc}. Run `judge editions` to list them, or store it with `judge index build FILE`."


def _unknown_term(exc: Any) -> str:
    sample = exc.edition == "sample"
    where = "the bundled sample" if sample else f"the {exc.edition} edition"
    if exc.edition is None:
        where = "the glossary"
    hint = f" Did you mean: {', '.join(exc.suggestions)}?" if exc.suggestions else ""
    more = f" {GET_RULES}" if sample else f' Try `judge search "{exc.term}"`.'
    return f"no glossary entry for “{exc.term}” in {where}.{hint}{more}"


def _edition_index(exc: Any) -> str:
    if exc.source is not None:
        return (
            f"{exc}. Build it with `judge index build FILE` "
            f"(FILE: the CR .txt the edition came from, {exc.source})."
        )
    return f"{exc}. Rebuild it with `judge index build FILE`."


def _file_read(exc: Any) -> str:
    if exc.role == "scenario":
        if exc.missing:
            return f"no such file: {exc.file}. Check the path and run `judge check FILE` again."
        return f"can't read {exc.file}: {exc.reason}."
    return f"{exc}. Check the path."


def _store_write(exc: Any) -> str:
    head = f"{exc.file}: " if exc.file else ""
    return f"{head}{exc}. Nothing stored was changed."


def _cr_read(exc: Any) -> str:
    head = f"{exc.file}: " if exc.file else ""
    return (
        f"{head}{exc}. Nothing was stored. Use the Comprehensive Rules .txt from "
        "https://magic.wizards.com/en/rules."
    )


def _notes(exc: Any) -> str:
    if exc.empty:
        return f"{exc}. Notes need at least one paragraph or heading."
    return f"{exc}. Notes must be a Markdown text file."


@dataclass(frozen=True)
class _Fetched:
    """The words a fetch error's next step needs, for one thing that is fetched."""

    default: str
    """The address used when no --url is given."""
    next_step: str
    """Where to find the right address by hand, and how to pass it."""
    what: str
    """What the file must be ("a rules file")."""
    kept: Callable[[Any], str]
    """What still works after the failure."""
    after: Callable[[Any], str]
    """A sentence said after the other messages (what was stored), or ``""``."""


_DOCUMENTS_PAGE = "https://wpn.wizards.com/en/rules-documents"
_FETCHED = {
    "rules": _Fetched(
        _RULES_PAGE,
        _NEXT_STEP,
        "a rules file",
        lambda e: "The stored editions still work",
        lambda e: "",
    ),
    "cards": _Fetched(
        CARDS_URL,
        f"find the AtomicCards link on {_CARDS_PAGE} and pass it with --url",
        "a card file",
        lambda e: (
            "The card data stored before still answers" if e.kept else "No card data is stored yet"
        ),
        lambda e: " " + _nothing_stored(e),
    ),
    "documents": _Fetched(
        _DOCUMENTS_PAGE,
        f"download the PDF from {_DOCUMENTS_PAGE} and run `judge index build FILE`",
        "a tournament document",
        lambda e: "The stored documents still work",
        lambda e: "",
    ),
}
"""By :attr:`~index.fetch.errors.FetchError.purpose`: the CR, the card and the documents' update."""


def _fetch(error: Any) -> str:
    """A fetch error: what failed, then the next step for what was fetched (its ``purpose``)."""
    if error.purpose == "model":
        return _fetch_model(error)
    return _fetch_fetched(error)


def _fetch_model(error: Any) -> str:
    """A download of ``judge model install``: the library's sentence, then what to do."""
    from index import fetch

    if isinstance(error, fetch.HashMismatchError):
        step = (
            "The file is not the one published with all-MiniLM-L6-v2: a mirror given with --url"
            " must serve the hub's files (or give its own hashes with --sums FILE)."
        )
    elif isinstance(
        error,
        (fetch.HTTPStatusError, fetch.RedirectError, fetch.BadURLError, fetch.TooLargeError),
    ):
        step = (
            "--url must be the address under which tokenizer.json, config.json and "
            "onnx/model.onnx are found; leave it out to use the Hugging Face hub."
        )
    elif isinstance(error, fetch.TruncatedDownloadError):
        step = "Run `judge model install` again."
    else:
        step = (
            "Try again when online, or copy the model folder from a machine that has it and run"
            " `judge model import DIR`."
        )
    return f"{error} {_MODEL_UNCHANGED} {step}"


def _fetch_fetched(error: Any) -> str:
    """A fetch error of the rules, cards or documents: what failed, then the next step."""
    from index import fetch

    words = _FETCHED.get(error.purpose, _FETCHED["rules"])
    problem = _fetch_problem(error, words)
    if isinstance(error, fetch.UnreachableError):
        return problem  # it says what still works already
    return problem + words.after(error)


def _fetch_problem(error: Any, words: _Fetched) -> str:
    from index import fetch

    url, step = error.url, words.next_step
    if isinstance(error, fetch.UnreachableError):  # time-outs included
        return (
            f"could not reach {url} ({error.reason}). {words.kept(error)}; try again"
            " when online, or pass --url with a file you downloaded (a path or a file:// URL)."
        )
    if isinstance(error, fetch.BadURLError):
        return (
            f"cannot fetch {url!r}: {error.reason}; check it, or leave out --url to use"
            f" {words.default}."
        )
    if isinstance(error, fetch.HTTPStatusError) and error.status < 500:
        return f"{url} answered {error.status} {error.reason}; {step}."
    if isinstance(error, fetch.RedirectError):
        return f"{url} redirects {error.reason}; {step}."
    if isinstance(error, fetch.TooLargeError):
        if error.size is None:
            return f"{url} is larger than the {error.limit} bytes {words.what} can be; {step}."
        return (
            f"{url} is {error.size} bytes, more than the {error.limit} {words.what} can be; {step}."
        )
    if isinstance(error, fetch.NotRulesFileError):
        return f"{url} is not a Comprehensive Rules text file ({error.reason}); {step}."
    if isinstance(error, fetch.NoRulesLinkError):
        return (
            f"no Comprehensive Rules .txt link found on {fetch.printable(url)}; {step}"
            " (or download the file and pass its path with --url)."
        )
    documents = sys.modules.get("index.fetch.documents")
    if documents is not None and isinstance(error, documents.NotDocumentFileError):
        return f"{url} is not a tournament document PDF ({error.reason}); {step}."
    if documents is not None and isinstance(error, documents.NoDocumentLinkError):
        return (
            f"no {error.what} link found on {fetch.printable(url)}; {step}"
            " (or pass the PDF's address or path with --url)."
        )
    return str(error)  # a server error (try again later), a truncated download, a wrong sha256


GET_DOCUMENTS = (
    "Download the PDF from https://wpn.wizards.com/en/rules-documents and run "
    "`judge index build FILE`."
)
"""How to get the tournament documents, said whenever one is missing."""


def _label(kind: str) -> str:
    from index.tournament.kinds import LABELS

    return LABELS.get(kind, kind.upper())


def _no_document(exc: Any) -> str:
    label = _label(exc.kind)
    if exc.wanted is None:
        return f"no {label} is stored. {GET_DOCUMENTS}"
    have = ", ".join(exc.stored) if exc.stored else "none"
    return (
        f"{label} {exc.wanted} is not stored (stored: {have}). Run `judge editions` to list them."
    )


def _no_older_document(exc: Any) -> str:
    return (
        f"no {_label(exc.kind)} older than {exc.newer} is stored: give --from, or store an "
        f"older one with `judge index build FILE`."
    )


def _unknown_section(exc: Any) -> str:
    label = _label(exc.kind)
    if exc.by_name:
        hint = f" Did you mean: {', '.join(exc.nearest)}?" if exc.nearest else ""
        return (
            f"no {label} {exc.edition} section is named “{exc.wanted}”.{hint} "
            f"Give a section number (`judge {exc.kind} 2.1`) or part of its title."
        )
    return f"no section {exc.wanted} in the {label} {exc.edition}." + _near(exc)


def _unreadable_document(exc: Any) -> str:
    what = f"this is a PDF that judge could not read ({exc})" if exc.pdf else str(exc)
    head = f"{exc.file}: " if exc.file else ""
    return (
        f"{head}{what}. Nothing was stored. The Tournament Rules, Infraction Procedure Guide and "
        "Judging at Regular REL are read as published at https://wpn.wizards.com/en/"
        "rules-documents (PDF or text); the Comprehensive Rules from their .txt."
    )


def _too_large(exc: Any) -> str:
    if exc.role == "text":
        return f"{exc.path}: {exc}. Check a smaller text."
    return f"{exc.path}: {exc}. Nothing was stored. Is it the Comprehensive Rules .txt?"


def _not_text(exc: Any) -> str:
    head = f"{exc.file}: " if exc.file else ""
    return f"{head}{exc}. cite-check reads text files (UTF-8, UTF-16, Windows-1252 …)."


def _replace_refused(exc: Any) -> str:
    head = f"{exc.file}: " if exc.file else ""
    return (
        f"{head}{exc}. Nothing was stored. If this is the file you want, run the command again"
        " with --replace."
    )


INSTALL_SEMANTIC = 'pip install "judge-cli[semantic]"'
MODEL_FOLDER = (
    "A model folder holds tokenizer.json, config.json and onnx/model.onnx, as the Hugging Face "
    "hub publishes sentence-transformers/all-MiniLM-L6-v2."
)
_MODEL_UNCHANGED = "Nothing was installed; the model installed before, if any, is still in use."
_GET_MODEL = ". Run `judge model install` (or `judge model import DIR` with a local copy)."
_SUMS_FORM = (
    ". It lists one file a line as sha256sum writes it: the hash, two spaces, the path in "
    "the model folder."
)


def _model_folder(exc: Any) -> str:
    return f"{exc}. {_MODEL_UNCHANGED} {MODEL_FOLDER}"


def _model_check(exc: Any) -> str:
    return (
        f"{exc}. {_MODEL_UNCHANGED} Copy the model folder again from where it came from (the"
        " file may be damaged or truncated)."
    )


def _unknown_card(exc: Any) -> str:
    names = ", ".join(exc.suggestions)
    if exc.ambiguous:
        return f"several cards' names start with “{exc.name}”: {names}. Give more of the name."
    hint = f" Did you mean: {names}?" if names else ""
    return f"no card named “{exc.name}” in the card data.{hint}"


def _nothing_stored(exc: Any) -> str:
    return "Nothing was stored" + (
        "; the card data stored before still answers." if exc.kept else "."
    )


Explain = Callable[[Any], str]


def _then(advice: str) -> Explain:
    """The error's own words, then ``advice`` (formatted with the exception as ``e``)."""
    return lambda e: f"{e}{advice.format(e=e)}"


_STORE_DAMAGED = (
    ". Rebuild it with `judge index build FILE`,"
    " or remove it with `judge index remove {e.edition}`."
)
_REBUILD_DOCUMENT = (
    ". Rebuild it with `judge index build FILE`,"
    " or remove it with `judge index remove --doc {e.kind} {e.edition}`."
)
_REBUILD_INDEX = ". Run `judge index build FILE` with the edition's .txt to rebuild it."
_ADD_SEMANTIC = f". Install the extra with {INSTALL_SEMANTIC}, then try again."
_GIVE_FROM = ": give --from, or store an older edition."
_REIMPORT = (
    ". Download it again with `judge cards update`, or import the file again with"
    " `judge cards import FILE`."
)
_INSTALL_EXTRA = '. Install it with: pip install "judge-cli[{e.extra}]"'
_OTHER_PORT = ". Give another with --port, or stop what is using it."


def _fix_scenario(exc: Any) -> str:
    return f"{exc.sentence} Fix the file and run `judge check {exc.filename}` again."


def _unknown_rule(exc: Any) -> str:
    return f"no rule {exc.number} in {exc.where}." + _near(exc)


def _bad_cards(exc: Any) -> str:
    return f"{exc}. {_nothing_stored(exc)} {_USE_CARDS}"


def _cards_unwritten(exc: Any) -> str:
    return f"could not write to {exc.root} ({exc}). {_nothing_stored(exc)}"


# One row per exception: module, class, HTTP status, how it reads. Subclasses come before their
# bases: the first row whose class the exception is an instance of answers.
# fmt: off
_TABLE: list[tuple[str, str, int, Explain]] = [
    ("index.store", "AmbiguousEditionError", 400, _then("; give the whole date.")),
    ("index.store", "StoreError", 500, _then(_STORE_DAMAGED)),
    ("index.storing", "ReplaceRefusedError", 409, _replace_refused),
    ("index.store", "NoEditionError", 404, _not_stored),
    ("index.store", "NoNotesError", 404, _then(". Run `judge notes` to list them.")),
    ("index.edition", "NotInSampleError", 404, _then(f". {GET_RULES}")),
    ("index.edition", "NoOlderEditionError", 404, _then(_GIVE_FROM)),
    ("index.edition", "EditionIndexError", 500, _edition_index),
    ("index.model", "UnknownRuleError", 404, _unknown_rule),
    ("index.numbers", "InvalidRuleReferenceError", 400, _then(f". {_REF_FORMS}")),
    ("glossary.lookup", "UnknownTermError", 404, _unknown_term),
    ("index.search.query", "QuerySyntaxError", 400, _then(".")),
    ("index.search.build", "NoSearchIndexError", 500, _then(_REBUILD_INDEX)),
    ("index.errors", "FileReadError", 400, _file_read),
    ("index.errors", "StoreWriteError", 500, _store_write),
    ("index.decode", "FileTooLargeError", 413, _too_large),
    ("index.decode", "DecodeError", 400, _not_text),
    ("index.reader", "CRReadError", 400, _cr_read),
    ("index.citecheck", "TooManyCitationsError", 413, _then(". Check the text in parts.")),
    ("index.ingest", "NotesError", 400, _notes),
    ("index.fetch", "FetchError", 502, _fetch),
    ("index.cards.errors", "NoCardStoreError", 404, _then(f". {GET_CARDS}")),
    ("index.cards.errors", "CardStoreError", 500, _then(_REIMPORT)),
    ("index.cards.errors", "UnknownCardError", 404, _unknown_card),
    ("index.cards.errors", "CardFileError", 400, _bad_cards),
    ("index.cards.errors", "OlderSnapshotError", 409, _then(". Nothing was changed.")),
    ("index.cards.errors", "CardWriteError", 507, _cards_unwritten),
    ("index.tournament.store", "NoDocumentError", 404, _no_document),
    ("index.tournament.store", "NoOlderDocumentError", 404, _no_older_document),
    ("index.tournament.store", "DocumentStoreError", 500, _then(_REBUILD_DOCUMENT)),
    ("index.tournament.lookup", "UnknownSectionError", 404, _unknown_section),
    ("index.tournament.model", "DocumentReadError", 400, _unreadable_document),
    ("judge_cli.scenario.errors", "ScenarioError", 400, _fix_scenario),
    ("index.semantic.model", "SemanticUnavailableError", 501, _then(_ADD_SEMANTIC)),
    ("index.semantic.models", "ModelFolderError", 400, _model_folder),
    ("index.semantic.models", "ModelCheckError", 400, _model_check),
    ("index.semantic.models", "NoModelError", 404, _then(_GET_MODEL)),
    ("index.semantic.hub", "SumsFileError", 400, _then(_SUMS_FORM)),
    ("judge_cli.serve", "MissingExtraError", 500, _then(_INSTALL_EXTRA)),
    ("judge_cli.serve.command", "BindError", 500, _then(_OTHER_PORT)),
    ("judge_cli.web.export", "ExportFolderError", 400, _then(". Choose a new or empty folder.")),
]
# fmt: on
_USAGE = {"InvalidRuleReferenceError"}
"""Errors in the command line itself (exit status 2)."""


# Line breaks in what a message quotes (a term typed with a newline, a line of a file): shown
# as escapes, so that an error is always one line.
_BREAKS = str.maketrans(
    {"\n": "\\n", "\r": "\\r", "\x85": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def describe(exc: BaseException) -> Problem | None:
    """The message for a library error, or ``None`` if ``exc`` is not one (a bug: let it show)."""
    for module_name, class_name, status, explain in _TABLE:
        module = sys.modules.get(module_name)
        kind = getattr(module, class_name, None) if module is not None else None
        if isinstance(kind, type) and isinstance(exc, kind):
            message = explain(exc).strip().translate(_BREAKS)
            return Problem(message, status, class_name in _USAGE)
    return None


def library_errors() -> tuple[type[BaseException], ...]:
    """Every exception class of the table (importing their modules): for tests and fuzzing."""
    import importlib

    kinds: list[type[BaseException]] = []
    for module_name, class_name, *_ in _TABLE:
        kinds.append(getattr(importlib.import_module(module_name), class_name))
    return tuple(kinds)
