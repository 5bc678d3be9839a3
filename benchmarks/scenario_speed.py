"""How long `replay` takes on boards of 100, 1 000 and 10 000 objects, and on chains of Auras.

Run: ``python benchmarks/scenario_speed.py`` (``--quick`` leaves out the 10 000-link chain). The
board mixes what a big check meets: creatures with lethal damage (some regenerating, some
indestructible), the Auras and Equipment on them, same-name legends, tokens in the graveyard,
counters to annihilate, lords whose bonus ends. The issue's bar: 1 000 objects in 200 ms or
less, and no worse than linear growth.

The chain is a creature with lethal damage and N Auras, each enchanting the one before: every
check can only put the next Aura into the graveyard, so it takes N + 1 checks. Baseline (issue 16
item 10, before checks looked only at what changed): 1 000 links took 2.9 s and 10 000 did not
finish in 300 s. The bar: 10 000 links cost no more than 15 times what 1 000 do.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from index.model import Document
from judge_cli.scenario import BoardState, Effect, Permanent, Player
from judge_cli.scenario.sba import replay


def make_board(size: int) -> BoardState:
    """A two-player board of ``size`` objects, in groups of ten."""
    players = [Player("Alice"), Player("Bob")]
    objects: list[Permanent] = []
    for g in range(size // 10):
        who = "Alice" if g % 2 else "Bob"
        base = f"g{g}"
        objects += [
            Permanent(
                f"{base}-lord",
                name=f"Lord {g}",
                controller=who,
                types=["creature"],
                power=2,
                toughness=2,
                damage=2,
            ),
            Permanent(
                f"{base}-elf",
                name="Elf",
                controller=who,
                types=["creature"],
                power=2,
                toughness=2,
                damage=1,
                effects=[Effect(f"{base}-lord", 1, 1)],
            ),
            Permanent(
                f"{base}-aura",
                name="Pacifism",
                controller=who,
                types=["enchantment"],
                subtypes=["Aura"],
                enchant="creature",
                attached_to=f"{base}-lord",
            ),
            Permanent(
                f"{base}-sword",
                name="Sword",
                controller=who,
                types=["artifact"],
                subtypes=["Equipment"],
                attached_to=f"{base}-elf",
            ),
            Permanent(
                f"{base}-leg1",
                name=f"Legend {g}",
                controller=who,
                types=["creature"],
                supertypes=["legendary"],
                power=1,
                toughness=1,
            ),
            Permanent(
                f"{base}-leg2",
                name=f"Legend {g}",
                controller=who,
                types=["creature"],
                supertypes=["legendary"],
                power=1,
                toughness=1,
            ),
            Permanent(
                f"{base}-token",
                name="Soldier",
                controller=who,
                types=["creature"],
                token=True,
                zone="graveyard",
                power=1,
                toughness=1,
            ),
            Permanent(
                f"{base}-wolf",
                name="Wolf",
                controller=who,
                types=["creature"],
                power=3,
                toughness=3,
                counters={"+1/+1": 2, "-1/-1": 1},
            ),
            Permanent(
                f"{base}-troll",
                name="Troll",
                controller=who,
                types=["creature"],
                power=2,
                toughness=2,
                damage=4,
                regeneration_shields=1,
            ),
            Permanent(
                f"{base}-wall",
                name="Wall",
                controller=who,
                types=["creature"],
                power=0,
                toughness=4,
                damage=5,
                keywords=["indestructible"],
            ),
        ]
    return BoardState(players, objects, "2025-02-07", "two-player", {})


def make_chain(links: int) -> BoardState:
    """A creature with lethal damage and ``links`` Auras, each attached to the one before."""
    objects = [
        Permanent(
            "bear", "Bear", controller="Alice", types=["creature"], power=2, toughness=2, damage=2
        )
    ]
    for i in range(links):
        objects.append(
            Permanent(
                f"aura-{i}",
                "Aura",
                controller="Alice",
                types=["enchantment"],
                subtypes=["Aura"],
                enchant="permanent",
                attached_to=f"aura-{i - 1}" if i else "bear",
            )
        )
    return BoardState([Player("Alice"), Player("Bob")], objects, "2025-02-07", "two-player", {})


def measure_chain(links: int) -> float:
    """One replay of a chain of ``links`` Auras, in milliseconds."""
    board = make_chain(links)
    doc = Document(edition="2025-02-07")
    start = time.perf_counter()
    result = replay(board, doc)
    elapsed = time.perf_counter() - start
    assert len(result.checks) == links + 1, "every link takes one check"
    return elapsed * 1000


def measure(size: int, repeat: int = 5) -> float:
    """The best of ``repeat`` replays, in milliseconds."""
    board = make_board(size)
    doc = Document(edition="2025-02-07")
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        replay(board, doc)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    results = [(size, measure(size, 5 if size <= 1000 else 3)) for size in (100, 1000, 10000)]
    for size, ms in results:
        print(f"{size:>6} objects: {ms:8.1f} ms  ({ms * 1000 / size:6.1f} µs per object)")
    per_object = [ms / size for size, ms in results]
    print(f"growth 100→10 000: {per_object[-1] / per_object[0]:.2f}× the cost per object")
    ok = results[1][1] <= 200
    print("1 000 objects in ≤ 200 ms:", "yes" if ok else "NO")
    links = (1000, 3000) if "--quick" in sys.argv else (1000, 3000, 10000)
    chains = [(n, measure_chain(n)) for n in links]
    baseline = {1000: "2.9 s", 10000: "> 300 s"}
    for n, ms in chains:
        was = f"   (baseline {baseline[n]})" if n in baseline else ""
        print(f"{n:>6} Auras in a chain: {ms:8.1f} ms  ({ms * 1000 / n:6.1f} µs per link){was}")
    growth = chains[-1][1] / chains[0][1]
    linear = growth <= 1.5 * chains[-1][0] / chains[0][0]
    verdict = "near-linear" if linear else "NOT near-linear"
    print(f"chain {chains[0][0]:,}→{chains[-1][0]:,} links: {growth:.1f}× the time ({verdict})")
    sys.exit(0 if ok and linear else 1)


if __name__ == "__main__":
    main()
