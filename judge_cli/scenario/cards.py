"""Objects that name their card: ``card: Darksteel Citadel``, filled from the card data.

An object that writes ``card: NAME`` gets its characteristics from the stored Oracle card data
(:mod:`index.cards`) through the scenario format's fill hook (:data:`.format.Fill`), and every
key the file writes wins over them (a ``pt:`` after March of the Machines, a ``keywords:`` the
object gained or lost). What a card gives, key by key:

* ``name``: the name of the face used (below); ``id`` defaults to it as to any name.
* ``types``, ``supertypes``: lower case, as the format wants them ("Legendary Artifact Creature"
  gives ``[artifact, creature]`` and ``[legendary]``; ``kindred`` stays a type).
* ``subtypes``: as printed (``[Troll, Shaman]``, ``[Aura]``, ``[Jace]``).
* ``colors``: lower case, from the face's mana cost or color indicator (rule 202.2); a face with
  neither is colorless. The shared copy of the data has no color indicators, so a back face
  there comes out colorless: write ``colors:`` for Insectile Aberration.
* ``pt``: the printed power and toughness when both are whole numbers. A ``*`` or ``1+*``
  (Tarmogoyf) gives none: write ``pt:``. Like any filled P/T (:mod:`.format`), the object's
  P/T counters and the changes its ``effects`` make are added (rules 122.1a and 613.4c), since
  the file's ``pt`` is the value after them; a ``pt:`` in the file is taken as it is.
* ``keywords``: the keyword abilities the face's keyword lines have ("Flying, protection from
  red"), lower case, reminder text left out. Protection and "hexproof from" keep their quality
  (``protection from white and from blue``), which the checker reads; the others are named by
  the keyword alone (``equip``, ``ward``, ``annihilator``). MTGJSON's keyword list says which
  words are keywords, but not which face has them nor which are abilities, so keyword actions
  (scry, transform), ability words (landfall) and abilities granted to others ("enchanted
  creature has flying") are left out.
* ``enchant``: an Aura's "Enchant creature card in a graveyard" line gives ``enchant: creature
  card in a graveyard``; an Aura that gains another enchant ability as it enters (Animate Dead:
  "gains 'enchant creature put onto the battlefield with this Aura'") gives the one it has on
  the battlefield, ``creature``, in every zone, because only an attached Aura is checked.

Not given: the printed loyalty of a planeswalker and the printed defense of a battle. A
planeswalker enters with that many loyalty counters (rule 306.5b; a battle, defense counters,
310.4b), but a board says what is on the object now, so a file writes ``counters: {loyalty:
3}``; the ruling shows the printed number beside the card (:attr:`CardUse.printed`). Nor
anything about its state (tapped, damage, counters) or abilities other than keywords.

Multi-face cards. The card's whole name, or its front face's, gives the front face: what a
transforming, modal double-faced, flip, meld or adventurer card is in every zone but the stack
and, front face up, on the battlefield (rules 712.8a, 712.8d, 715.4). A face's name gives that
face ("Insectile Aberration": the back face, as the transformed permanent is, 712.8e). A split
card by its whole name has its halves combined and both names (709.4: types, colors,
keywords); by a half's name, that half. A face the data lacks (the shared copy has only the
front face of split, adventure, modal double-faced and aftermath cards) is an error: giving the
other face's characteristics instead would be a wrong board.

Names are taken as the card lookup's exact, face and folded matches (any case, accents and
punctuation); a unique prefix or a close misspelling is not, since a board must say which card
it means: those are the error's closest names. The database is opened once per file, at its
first ``card:``, and each name is looked up once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import FillError

if TYPE_CHECKING:
    from index.cards.lookup import Card, CardDB, Face
    from index.cards.store import CardStore

    from .board import BoardState
    from .loader import Scenario

__all__ = [
    "CHARACTERISTICS",
    "MAX_NAME",
    "CardFill",
    "CardUse",
    "card_values",
    "face_keywords",
    "load_with_cards",
]

CHARACTERISTICS = ("name", "types", "supertypes", "subtypes", "colors", "pt", "keywords", "enchant")
"""The keys a card may give (``pt`` for ``power`` and ``toughness``), in the format's order."""

COLOR_NAMES = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}

MAX_NAME = 200
"""The longest card name looked up (the longest printed is 141 characters): "did you mean" on a
longer one would take seconds for every thousand characters."""
_TAKEN = ("exact", "face", "folded")
"""The lookups a board's ``card:`` accepts (see the module)."""
_SPLIT = ("split", "aftermath")
_CHECKED = ("Indestructible", "Protection", "Enchant", "Space sculptor", "Start your engines!")
"""Keywords the checker reads, known even if the data's list of keywords lacks them."""
_QUALITY = ("protection", "hexproof from")
"""Keywords whose quality is kept (``protection from red``)."""
_REMINDER_RE = re.compile(r"\s*\([^()]*\)")
_CLAUSE_RE = re.compile(r"[,;] (?!from )")
_GAINS_RE = re.compile(r"gains [\"“]enchant (\w+) put onto the battlefield with", re.IGNORECASE)


def _starts(clause: str, keyword: str) -> bool:
    if not clause.lower().startswith(keyword.lower()):
        return False
    return len(clause) == len(keyword) or not clause[len(keyword)].isalpha()


def face_keywords(face: Face) -> tuple[list[str], str | None]:
    """The face's keyword abilities, from its keyword lines, and its enchant specification."""
    vocabulary = sorted({*face.keywords, *_CHECKED}, key=len, reverse=True)
    keywords: list[str] = []
    enchant: str | None = None
    for raw in (face.text or "").splitlines():
        line = _REMINDER_RE.sub("", raw).strip()
        if not line:
            continue
        found: list[tuple[str, str]] = []
        for clause in _CLAUSE_RE.split(line):
            clause = clause.strip()
            keyword = next((k for k in vocabulary if _starts(clause, k)), None)
            if keyword is None:
                break
            rest = clause[len(keyword) :]
            # "Landfall — Whenever …" is an ability word; "Scry 2." a keyword action. A
            # keyword ability's line has no sentence, unless a cost follows a dash ("Ward—Pay 2
            # life.").
            if rest.startswith(" — ") or (clause.endswith(".") and "—" not in rest):
                break
            found.append((keyword, clause))
        else:
            for keyword, clause in found:
                lowered = keyword.lower()
                if lowered == "enchant":
                    enchant = enchant or clause[len(keyword) :].strip() or None
                elif lowered in _QUALITY or clause[len(keyword) :].startswith(" from "):
                    keywords.append(clause.lower())
                else:
                    keywords.append(lowered)
    gained = _GAINS_RE.search(face.text or "")
    if gained is not None and enchant is not None:
        enchant = gained.group(1).lower()
    return list(dict.fromkeys(keywords)), enchant


def _number(text: str | None) -> int | None:
    if text is None or not text.strip().lstrip("+-").isdigit():
        return None
    return int(text)


def card_values(name: str, faces: tuple[Face, ...]) -> dict[str, Any]:
    """The keys ``faces`` (one face, or a split card's halves) give an object named ``name``."""
    values: dict[str, Any] = {"name": name}
    lists: dict[str, list[str]] = {k: [] for k in ("types", "supertypes", "subtypes", "colors")}
    keywords: list[str] = []
    enchant: str | None = None
    for face in faces:
        lists["types"] += [t.lower() for t in face.types]
        lists["supertypes"] += [t.lower() for t in face.supertypes]
        lists["subtypes"] += face.subtypes
        lists["colors"] += [COLOR_NAMES.get(c.upper(), c.lower()) for c in face.colors]
        more, spec = face_keywords(face)
        keywords += more
        enchant = enchant or spec
    for key, items in lists.items():
        values[key] = list(dict.fromkeys(items))
    wheel = list(COLOR_NAMES.values())
    # In the order of the color wheel, whatever the order of a split card's halves.
    values["colors"].sort(key=lambda c: wheel.index(c) if c in wheel else len(wheel))
    values["keywords"] = list(dict.fromkeys(keywords))
    if enchant is not None:
        values["enchant"] = enchant
    if len(faces) == 1:
        power, toughness = _number(faces[0].power), _number(faces[0].toughness)
        if power is not None and toughness is not None:
            values["power"], values["toughness"] = power, toughness
    return values


def _printed(faces: tuple[Face, ...]) -> dict[str, str]:
    """What the faces print that no key takes: loyalty, defense, a P/T that isn't a number."""
    out: dict[str, str] = {}
    if len(faces) != 1:
        return out
    face = faces[0]
    if face.loyalty is not None:
        out["loyalty"] = face.loyalty
    if face.defense is not None:
        out["defense"] = face.defense
    pt = (face.power, face.toughness)
    if None not in pt and None in (_number(face.power), _number(face.toughness)):
        out["pt"] = f"{face.power}/{face.toughness}"
    return out


class CardUse(NamedTuple):
    """An object that names a card, for the ruling: which card, and what came from it."""

    object: str
    """The object's id."""
    card: str
    """The card's name in the data ("Delver of Secrets // Insectile Aberration")."""
    face: str
    """The name of the face whose characteristics it has (a split card's whole name)."""
    match: str
    """How the card was found: ``exact``, ``face`` or ``folded``."""
    from_card: tuple[str, ...]
    """The keys whose values came from the card data."""
    from_file: tuple[str, ...]
    """The characteristics the file itself wrote (they win over the card's)."""
    printed: Mapping[str, str]
    """Printed values no key takes: ``loyalty``, ``defense``, a ``pt`` such as ``*/1+*``."""

    def to_json(self) -> dict[str, Any]:
        """The record of ``judge check --json``'s ``cards``."""
        return {
            "object": self.object,
            "card": self.card,
            "face": self.face,
            "match": self.match,
            "from_card": list(self.from_card),
            "from_file": list(self.from_file),
            "printed": dict(self.printed),
        }


class _Found(NamedTuple):
    card: str
    face: str
    match: str
    values: dict[str, Any]
    printed: dict[str, str]


def _quoted(names: list[str]) -> str:
    shown = [f"'{n}'" for n in names]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


class CardFill:
    """A :data:`.format.Fill` for ``card:`` (see the module); use it as a context manager.

    The card database of ``store`` (default: the data folder's) is opened at the first object
    that names a card: a board without cards needs no card data. Raises the card store's
    ``NoCardStoreError`` then if none is stored.
    """

    def __init__(self, store: CardStore | None = None) -> None:
        self.store = store
        self._db: CardDB | None = None
        self._cache: dict[str, _Found | FillError] = {}
        self._found: dict[str, _Found] = {}

    def __enter__(self) -> CardFill:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Closes the card database, if it was opened."""
        if self._db is not None:
            self._db.close()
            self._db = None

    @property
    def opened(self) -> bool:
        """Checks if the card database was opened (some object named a card)."""
        return self._db is not None or bool(self._cache)

    def __call__(self, keys: Mapping[str, Any], path: str) -> Mapping[str, Any]:
        name = keys.get("card")
        if name is None:
            return {}
        if isinstance(name, bool) or not isinstance(name, str | int | float):
            raise FillError("card", f"expected a card's name, got {name!r}")
        text = str(name)
        if len(text) > MAX_NAME:
            raise FillError(
                "card",
                f"no card named '{text[:40]}…': a card's name is at most {MAX_NAME} characters",
            )
        key = " ".join(text.split()).casefold()
        found = self._cache.get(key)
        if found is None:
            try:
                found = self._look_up(text)
            except FillError as exc:
                found = exc
            self._cache[key] = found
        if isinstance(found, FillError):
            raise found
        self._found[path] = found
        return dict(found.values)

    def _database(self) -> CardDB:
        if self._db is None:
            from index.cards.lookup import CardDB

            self._db = CardDB.open(self.store)
        return self._db

    def _look_up(self, name: str) -> _Found:
        from index.cards.errors import UnknownCardError

        db = self._database()
        matches = db.find(name)
        if not matches:
            try:
                near = [m.card.name for m in db.get(name)]  # a prefix or a misspelling
            except UnknownCardError as exc:
                near = list(exc.suggestions)
            message = f"no card named '{name}' in the card data"
            if near:
                message += f"; did you mean {_quoted(near)}?"
            raise FillError("card", message, tuple(near))
        match = matches[0]
        assert match.how in _TAKEN
        faces, shown = _faces(match.card, name)
        return _Found(
            match.card.name,
            shown,
            match.how,
            card_values(shown, faces),
            _printed(faces),
        )

    def uses(self, board: BoardState) -> list[CardUse]:
        """The objects of ``board`` (as this fill read it) that name a card, in board order."""
        out: list[CardUse] = []
        cls = type(board.objects[0]) if board.objects else None
        for i, obj in enumerate(board.objects):
            found = self._found.get(f"objects[{i}]")
            if found is None or cls is None:
                continue
            written = obj.given.written if obj.given is not None else frozenset()
            from_card = obj.given.keys(cls) if obj.given is not None else ()
            from_file = tuple(
                k
                for k in CHARACTERISTICS
                if k in written or (k == "pt" and {"power", "toughness"} & written)
            )
            out.append(
                CardUse(
                    obj.id, found.card, found.face, found.match, from_card, from_file, found.printed
                )
            )
        return out


def _faces(card: Card, name: str) -> tuple[tuple[Face, ...], str]:
    """The faces an object named ``name`` has, and the name it goes by (see the module)."""
    from index.cards.names import fold_name, loose_name, split_name

    folded, loose = fold_name(name), loose_name(name)

    def named(other: str) -> bool:
        return fold_name(other) == folded or loose_name(other) == loose

    for face in card.faces:
        if named(face.name):
            return (face,), face.name
    parts = split_name(card.name)
    whole = named(card.name)
    if whole and not (card.layout in _SPLIT and len(parts) > 1):
        return (card.faces[0],), card.faces[0].name
    have = {fold_name(face.name) for face in card.faces}
    lacking = [p for p in parts if fold_name(p) not in have and (whole or named(p))]
    if whole and not lacking:
        return card.faces, card.name
    missing = lacking[0] if lacking else name
    raise FillError(
        "card",
        f"the card data lacks the face '{missing}' of '{card.name}'; write its characteristics "
        "in the file instead of `card:`",
    )


def load_with_cards(
    load: Callable[[CardFill], Scenario], store: CardStore | None = None
) -> tuple[Scenario, list[CardUse]]:
    """``load(fill)`` (a scenario loader given the fill), and the objects that name cards.

    The card database is opened only if the board names a card, and closed before returning.
    """
    with CardFill(store) as fill:
        scenario = load(fill)
        return scenario, fill.uses(scenario.board)
