"""An edition ready to answer: the library's front door.

    >>> from index import open_edition
    >>> ed = open_edition()                 # the newest stored edition, else the bundled sample
    >>> ed.rules("704.5j")[0].number
    '704.5j'
    >>> ed.define("legend rules").entry.term
    'Legend Rule'
    >>> ed.search("legend rule", limit=3).results[0].id
    '704.5j'

:func:`open_edition` owns the policy every caller shares: which edition ``None``, ``latest``,
``sample`` or a partial date names; the sample when nothing is stored; reading only the rule
files a look-up needs until the whole document is asked for; rebuilding a stale search index.
Errors are the library's own (:class:`~index.store.NoEditionError`,
:class:`~index.model.UnknownRuleError`, :class:`~glossary.lookup.UnknownTermError`,
:class:`NotInSampleError`, …); the CLI and the server translate them in one table.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .editionsearch import EditionIndexError, EditionSearch, Notice
from .store import EditionStore, NoEditionError

if TYPE_CHECKING:
    from glossary.entry import GlossaryEntry
    from glossary.lookup import Glossary, Match

    from .cards.mentions import CardNames
    from .model import Document, Rule, XRefs
    from .numbers import RuleRef
    from .semantic.searching import SemanticSearch
    from .store import EditionInfo
    from .warm import SearcherPool

__all__ = [
    "Edition",
    "EditionIndexError",
    "NoOlderEditionError",
    "NotInSampleError",
    "edition_before",
    "open_edition",
    "open_stored_edition",
    "open_stored_editions",
]


class NotInSampleError(LookupError):
    """Raised when a rule is asked of the bundled sample, which has no numbered rules."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        super().__init__(f"rule {ref} is not in the bundled sample, which has no numbered rules")


class NoOlderEditionError(LookupError):
    """Raised when a comparison needs an edition older than the one given, and none is stored."""

    def __init__(self, newer: str) -> None:
        self.newer = newer
        super().__init__(f"no edition older than {newer} is stored")


def wants_newest(wanted: str | None) -> bool:
    """Checks if an edition name asks for the newest edition (the default)."""
    return wanted is None or wanted.strip().lower() in ("", "latest", "newest")


def wants_sample(wanted: str | None) -> bool:
    """Checks if an edition name asks for the bundled sample."""
    return wanted is not None and wanted.strip().lower() == "sample"


def open_edition(
    wanted: str | None = None,
    *,
    store: EditionStore | None = None,
    notice: Notice | None = None,
) -> Edition:
    """The stored edition named (default: the newest), or the bundled sample if none is stored.

    ``wanted`` is a date (``2025-02-07``, or ``2025`` when only one edition of 2025 is stored),
    ``latest``, or ``sample``. An edition asked for by name that is not stored is a
    :class:`~index.store.NoEditionError`, never the sample. Nothing is read until it is needed.
    """
    store = store or EditionStore.from_env()
    if wants_sample(wanted):
        return Edition(store, None, named_sample=True, notice=notice)
    try:
        date = store.resolve(wanted)
    except NoEditionError as exc:
        if wants_newest(wanted) and not exc.stored:
            return Edition(store, None, notice=notice)
        raise
    return Edition(store, date, notice=notice)


def open_stored_edition(wanted: str | None = None, *, store: EditionStore | None = None) -> Edition:
    """Like :func:`open_edition`, but never the sample: for comparing editions.

    Raises :class:`~index.store.NoEditionError` (``wanted`` is ``None`` when nothing is stored).
    """
    store = store or EditionStore.from_env()
    if wants_sample(wanted):
        raise NoEditionError(None, store.dates())
    return Edition(store, store.resolve(wanted))


def open_stored_editions(store: EditionStore | None = None) -> list[Edition]:
    """Every stored edition, oldest first; raises :class:`~index.store.NoEditionError` if none."""
    store = store or EditionStore.from_env()
    dates = store.dates()
    if not dates:
        raise NoEditionError(None, dates)
    return [Edition(store, date) for date in dates]


def edition_before(wanted: str | None, *, store: EditionStore | None = None) -> str:
    """The newest stored edition older than ``wanted`` (default: the newest stored)."""
    store = store or EditionStore.from_env()
    newer = store.resolve(wanted)
    older = [d for d in store.dates() if d < newer]
    if not older:
        raise NoOlderEditionError(newer)
    return older[-1]


class Edition(EditionSearch):
    """One edition of the rules (or the bundled sample), with its cross-references; searched as
    :class:`~index.editionsearch.EditionSearch` says."""

    def __init__(
        self,
        store: EditionStore,
        date: str | None,
        *,
        named_sample: bool = False,
        notice: Notice | None = None,
    ) -> None:
        self.store = store
        self.date = date
        """The effective date, or ``None`` for the bundled sample."""
        self.named_sample = named_sample
        """For the sample asked for by name: its untitled paragraphs named from stored editions."""
        self.notice = notice
        self._document: Document | None = None
        self._xrefs: XRefs | None = None
        self._view: Document | None = None
        self._view_xrefs: XRefs | None = None
        self._families: set[str] = set()
        self._glossary: Glossary | None = None
        self._searchers: SearcherPool | None = None
        self._semantic: SemanticSearch | None = None
        self._forked = False
        self._cards: CardNames | None = None
        self._cards_looked_for = False

    def __repr__(self) -> str:
        return f"open_edition({self.label!r})"

    @property
    def is_sample(self) -> bool:
        """Checks if the bundled sample answers (nothing stored, or asked for by name)."""
        return self.date is None

    @property
    def label(self) -> str:
        """How answers name their source: the edition's date, or ``sample``."""
        return self.date or "sample"

    @property
    def path(self) -> Path | None:
        """The build folder of a stored edition (its ``search/`` index lives there)."""
        return None if self.date is None else self.store.build_path(self.date)

    @property
    def info(self) -> EditionInfo:
        """What ``judge editions`` lists for this edition (not for the sample)."""
        if self.date is None:
            raise NoEditionError(None, self.store.dates())
        return self.store.info(self.date)

    # --- the whole document ---------------------------------------------------------------

    @property
    def document(self) -> Document:
        """The whole document, read once (a look-up by number reads less: see :meth:`rules`)."""
        if self._document is None:
            if self.date is None:
                self._document = self._load_sample()
            else:
                stored = self.store.load(self.date)
                self._document, self._xrefs = stored.document, stored.xrefs
        return self._document

    @property
    def xrefs(self) -> XRefs:
        """What each rule and glossary entry cites and is cited by, for the whole document."""
        if self._xrefs is None:
            if self.date is None:
                from .model import XRefs

                self._xrefs = XRefs()
            else:
                self.document  # noqa: B018  (reads the document and its cross-references)
        assert self._xrefs is not None
        return self._xrefs

    def load(self) -> Edition:
        """Reads everything now, for a process that answers many questions (a server)."""
        self.document  # noqa: B018
        return self

    def keep_warm(self) -> Edition:
        """Reads everything now and keeps the search index open between searches.

        For a long-lived process: opening an index and its searcher costs ~150 ms a search,
        a warm one ~1 ms. From here on the edition may be shared across threads: its caches
        are filled here, and each search borrows a :class:`~index.search.Searcher` of its own,
        so searches run in parallel. :meth:`close` closes the searchers.
        """
        from .warm import SearcherPool

        self.load()
        self.terms.by_alias  # noqa: B018  (indexes the glossary now, not in a request)
        if self._searchers is None:
            self._searchers = SearcherPool()
        if self._semantic is None:
            from .semantic.searching import SemanticSearch

            # A server embeds many questions: the model's weights are repacked once for speed.
            self._semantic = SemanticSearch.for_root(self.store.root, warm=True)
        return self

    def close(self) -> None:
        """Closes the searchers :meth:`keep_warm` opened (searching opens them again)."""
        if self._searchers is not None:
            self._searchers.close()
        if self._semantic is not None:
            self._semantic.close()
        if self._cards is not None:
            self._cards.close()
        self._cards, self._cards_looked_for = None, False

    def _load_sample(self) -> Document:
        from .sample import load_sample

        if not self.named_sample:
            return load_sample()
        glossaries = (self.store.load(d).document.glossary for d in self.store.dates())
        return load_sample(glossaries)

    # --- rules by number ------------------------------------------------------------------

    def _ensure_view(self, date: str) -> None:
        """Starts the partial document that look-ups by number and by term fill in."""
        if self._view is None or self._view_xrefs is None:
            from .model import Document, XRefs

            self.store.info(date)  # a damaged edition says so, even for one rule
            self._view = Document(edition=date, all_numbers=self.store.numbers(date))
            self._view_xrefs = XRefs()

    def _rules_view(self, ref: RuleRef) -> tuple[Document, XRefs]:
        """A document holding at least the rules ``ref`` touches, and their cross-references."""
        if self._document is not None or self.date is None:
            return self.document, self.xrefs
        from .store import families_for

        self._ensure_view(self.date)
        assert self._view is not None and self._view_xrefs is not None
        numbers = self._view.all_numbers or []
        spans = [(str(ref.start), str(ref.end) if ref.end else None)]
        wanted = families_for(numbers, spans) - self._families
        if wanted:
            from .model import Rule

            found = self.store.read_families(self.date, wanted)
            self._families |= wanted
            rows = {n: Rule(n, text, ex, line) for n, text, ex, line in found.rules}
            rows.update(self._view.rules)
            position = {n: i for i, n in enumerate(numbers)}
            self._view.rules = dict(sorted(rows.items(), key=lambda kv: position.get(kv[0], 0)))
            self._view._children = None
            self._view_xrefs.cites.update(found.cites)
            self._view_xrefs.cited_by.update(found.cited_by)
        return self._view, self._view_xrefs

    def rules(self, ref: RuleRef | str) -> list[Rule]:
        """The rules a reference names (``704.5j``, ``704.5``, ``601.2a-h``), in order.

        Raises :class:`~index.model.UnknownRuleError` (with the nearest numbers),
        :class:`~index.numbers.InvalidRuleReferenceError`, or :class:`NotInSampleError`.
        """
        from .numbers import parse_rule_ref

        parsed = parse_rule_ref(ref) if isinstance(ref, str) else ref
        if self.is_sample:
            raise NotInSampleError(str(parsed))
        doc, _ = self._rules_view(parsed)
        # A single rule is one record (its subrules nest under it); a range lists each.
        return doc.resolve(parsed) if parsed.end is not None else [doc.get_rule(str(parsed.start))]

    def rule(self, number: str) -> Rule:
        """The rule with this number; raises :class:`~index.model.UnknownRuleError`."""
        rules = self.rules(number.rstrip("."))
        return rules[0]

    def _answering(self) -> tuple[Document, XRefs]:
        """The whole document once read, else the rules read so far by :meth:`rules`."""
        if self._document is None and self._view is not None and self._view_xrefs is not None:
            return self._view, self._view_xrefs
        return self.document, self.xrefs

    def subrules(self, number: str) -> list[Rule]:
        """The rules one level below ``number``, in order (after :meth:`rules` found it)."""
        doc, _ = self._answering()
        return [doc.rules[n] for n in doc.children(number)]

    def parent(self, number: str) -> str | None:
        """The number one level up, if that rule exists."""
        return self._answering()[0].parent(number)

    def cites(self, ref_id: str) -> list[str]:
        """What a rule (or ``glossary:Term``) cites, as rule numbers."""
        return self._answering()[1].cites.get(ref_id, [])

    def cited_by(self, ref_id: str) -> list[str]:
        """The rules and ``glossary:Term`` entries that cite a rule (or a glossary entry)."""
        return self._answering()[1].cited_by.get(ref_id, [])

    # --- the glossary ---------------------------------------------------------------------

    def define(self, term: str) -> Match:
        """The glossary entry for a term as a player types it (any case, plural, misspelt).

        Raises :class:`~glossary.lookup.UnknownTermError` naming this edition.
        """
        from glossary.lookup import UnknownTermError

        try:
            return self.terms.get(term)
        except UnknownTermError as exc:
            exc.edition = self.label
            raise

    @property
    def terms(self) -> Glossary:
        """The glossary indexed by term, alias and plural for look-ups, built once.

        Before the whole document is read, a stored edition's glossary is read alone (with its
        entries' cross-references), as a look-up by number reads only its rules.
        """
        if self._glossary is None:
            from glossary.lookup import Glossary

            self._glossary = Glossary(self._glossary_entries())
        return self._glossary

    def _glossary_entries(self) -> list[GlossaryEntry]:
        if self._document is not None or self.date is None:
            return self.document.glossary
        stored = self.store.stored_glossary(self.date)
        if stored is None:  # stored before the glossary had a file of its own
            return self.document.glossary
        from glossary.entry import GlossaryEntry

        self._ensure_view(self.date)
        assert self._view_xrefs is not None
        self._view_xrefs.cites.update(stored.cites)
        self._view_xrefs.cited_by.update(stored.cited_by)
        return [GlossaryEntry(t, d, line, see) for t, d, line, see in stored.rows]

    def known_rules(self, numbers: Iterable[str]) -> list[Rule]:
        """The rules among ``numbers`` that this edition has, in the order given (a glossary
        entry's "See rule …" may name a rule an edition lacks); reads only their files."""
        if self._document is not None or self.date is None:
            rules = self.document.rules
            return [rules[n] for n in numbers if n in rules]
        from .model import UnknownRuleError
        from .numbers import InvalidRuleReferenceError

        found: list[Rule] = []
        for number in numbers:
            try:
                found.append(self.rule(number))
            except (UnknownRuleError, InvalidRuleReferenceError):
                continue
        return found
