"""Boards that name their cards beside the same boards written out in full.

Reading a board whose objects say ``card: NAME`` opens the card database once per file and looks
each name up once; the goal (issue 12 item 3) is that it stays fast: a few milliseconds over the
same board with every characteristic written in the file, and far from linear in the number of
card lookups. Printed, each beside its baseline (the written-out board):

* reading boards of 20, 1 000 and 10 000 objects in one process (median of ``--runs``), and how
  many times the card database was opened;
* a cold ``judge check`` of a 20-object board (median of ``--runs`` runs, side by side).

    python benchmarks/scenario_cards_speed.py [--runs 11] [CARD-FILE]

The card file (default: ../shared/cards/AtomicCards.json.xz) is imported into a temporary data
folder first; the CR edition is the bundled sample, the same for both boards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, environment, median_ms, time_command

sys.path.insert(0, str(ROOT))

CARDS = ROOT.parent / "shared" / "cards" / "AtomicCards.json.xz"
NAMES = (
    "Darksteel Citadel",
    "March of the Machines",
    "Thrun, the Last Troll",
    "Pacifism",
    "Serra Angel",
    "White Knight",
    "Animate Dead",
    "Ornithopter",
    "Bonesplitter",
    "Grizzly Bears",
    "Insectile Aberration",
    "Jace, the Mind Sculptor",
    "Llanowar Elves",
    "Platinum Angel",
    "Rancor",
    "Tarmogoyf",
    "Progenitus",
    "Lightning Bolt",
    "Counterspell",
    "Birds of Paradise",
)


def _board(objects: list[dict[str, object]]) -> str:
    # One flow mapping per line for both boards, so that only their contents differ.
    lines = ["players: [Alice, Bob]", "objects:"]
    lines += [f"  - {json.dumps(o, ensure_ascii=False)}" for o in objects]
    return "\n".join(lines) + "\n"


def card_board(size: int) -> str:
    """A board of ``size`` objects, each naming one of :data:`NAMES`."""
    objects: list[dict[str, object]] = [
        {"id": f"o{i}", "card": NAMES[i % len(NAMES)], "controller": "Alice" if i % 2 else "Bob"}
        for i in range(size)
    ]
    return _board(objects)


def written_board(text: str, home: Path) -> str:
    """The same board with every characteristic the cards gave written in the file."""
    from index.cards.store import CardStore
    from judge_cli.scenario.cards import load_with_cards
    from judge_cli.scenario.loader import load_scenario_text

    scenario, _ = load_with_cards(
        lambda fill: load_scenario_text(text, "b.yaml", fill=fill), CardStore(home)
    )
    for obj in scenario.board.objects:
        obj.card = None
        obj.given = None
    return _board(scenario.board.to_dict()["objects"])


def read_times(text: str, home: Path | None, runs: int) -> tuple[list[float], int]:
    """Seconds to read ``text`` (with the card data of ``home``), and database opens per read."""
    from index.cards.lookup import CardDB
    from index.cards.store import CardStore
    from judge_cli.scenario.cards import load_with_cards
    from judge_cli.scenario.loader import load_scenario_text

    opens = 0
    real_open = CardDB.open.__func__  # type: ignore[attr-defined]

    def counting(cls: type[CardDB], store: CardStore | None = None) -> CardDB:
        nonlocal opens
        opens += 1
        db: CardDB = real_open(cls, store)
        return db

    CardDB.open = classmethod(counting)  # type: ignore[method-assign,assignment]
    times = []
    store = CardStore(home) if home is not None else None
    for _ in range(runs):
        start = time.perf_counter()
        if store is None:
            load_scenario_text(text, "b.yaml")
        else:
            load_with_cards(lambda fill: load_scenario_text(text, "b.yaml", fill=fill), store)
        times.append(time.perf_counter() - start)
    CardDB.open = classmethod(real_open)  # type: ignore[method-assign,assignment]
    return times, opens // runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cards", nargs="?", type=Path, default=CARDS)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    if not args.cards.is_file():
        sys.exit(f"no card file at {args.cards}: give one (MTGJSON's AtomicCards)")
    from index.cards.store import CardStore

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        start = time.perf_counter()
        CardStore(home).import_cards(args.cards)
        print(f"card data imported in {time.perf_counter() - start:.1f} s\n")
        print("reading a board in one process (median)")
        print(f"  {'objects':>7}  {'written out':>12}  {'with card:':>12}  {'opens':>5}")
        for size in (20, 1_000, 10_000):
            text = card_board(size)
            full = written_board(text, home)
            runs = args.runs if size < 10_000 else max(3, args.runs // 3)
            base, _ = read_times(full, None, runs)
            cards, opens = read_times(text, home, runs)
            print(
                f"  {size:>7,}  {median_ms(base):>9.1f} ms  {median_ms(cards):>9.1f} ms  {opens:>5}"
            )
        board = Path(tmp) / "cards.yaml"
        board.write_text(card_board(20), encoding="utf-8")
        written = Path(tmp) / "written.yaml"
        written.write_text(written_board(card_board(20), home), encoding="utf-8")
        env = environment(JUDGE_HOME=str(home))
        judge = [sys.executable, "-m", "judge_cli"]
        pairs = []
        for _ in range(args.runs):  # interleaved, so that both see the same machine load
            pairs.append(
                (
                    time_command([*judge, "check", str(written)], env, 1)[0],
                    time_command([*judge, "check", str(board)], env, 1)[0],
                )
            )
        base_ms = statistics.median(p[0] for p in pairs) * 1000
        cards_ms = statistics.median(p[1] for p in pairs) * 1000
        print(f"\ncold `judge check` of 20 objects (median of {args.runs})")
        print(f"  written out  {base_ms:7.1f} ms")
        print(f"  with card:   {cards_ms:7.1f} ms  ({cards_ms - base_ms:+.1f} ms)")


if __name__ == "__main__":
    main()
