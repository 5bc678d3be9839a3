"""``judge cards import`` of the shared card file, and cold ``judge card`` against importing click.

Goals (issue 12): the import within 60 s and 300 MB peak resident memory; a cold
``judge card "Platinum Angel"`` within 1.5x of ``python -c "import click"`` (median of at least
10 runs, side by side), without importing whoosh. Also printed: each kind of name lookup inside
one process, the trigram "did you mean" beside a difflib scan of every name, and the streaming
reader beside ijson (when it is installed) and ``json.load`` of the whole file.

    python benchmarks/cards_speed.py [--runs 15] [--cr CR-FILE] [--real-size] [CARD-FILE]

``--real-size`` also imports a copy of the card file padded, face by face, with the fields the
real MTGJSON file has and the shared copy lacks (foreign names and text, legalities, printings,
identifiers) to the real file's size, about 120 MB of JSON: memory must not grow with it.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import (
    ROOT,
    environment,
    median_ms,
    newest_corpus_file,
    peak_child_memory_mib,
)

CARDS = ROOT.parent / "shared" / "cards" / "AtomicCards.json.xz"

_READERS = r"""
import json, lzma, resource, sys, time
sys.path.insert(0, sys.argv[3])
path, how = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if how == "stream":
    from index.cards.reader import AtomicCardsReader
    with open(path, "rb") as fh:
        reader = AtomicCardsReader(fh, path)
        n = sum(1 for _ in reader.entries())
elif how == "ijson":
    import ijson
    with lzma.open(path) as fh:
        n = sum(1 for _ in ijson.kvitems(fh, "data"))
else:
    with lzma.open(path) as fh:
        n = len(json.load(fh)["data"])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{n} {time.perf_counter() - start:.2f} {peak:.0f}")
"""

_LOOKUPS = r"""
import difflib, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from index.cards.lookup import CardDB
from index.cards.names import fold_name
from index.cards.errors import UnknownCardError
db = CardDB.open()
cases = [("exact", "Platinum Angel"), ("face", "Insectile Aberration"),
         ("folded", "thrun the last troll"), ("prefix", "platinum an"),
         ("fuzzy", "Platnum Angel"), ("miss", "Xyzzy Quux")]
for label, name in cases:
    times = []
    for _ in range(20):
        start = time.perf_counter()
        try:
            db.get(name)
        except UnknownCardError:
            pass
        times.append(time.perf_counter() - start)
    print(f"  {label:7} {name!r:26} median {statistics.median(times) * 1000:6.2f} ms")
start = time.perf_counter()
names = [row[0] for row in db.conn.execute("SELECT folded FROM names")]
difflib.get_close_matches(fold_name("Platnum Angel"), names, n=5, cutoff=0.6)
scan = (time.perf_counter() - start) * 1000
print(f"  difflib over all {len(names)} names (instead of the trigrams): {scan:.0f} ms")
"""


def _interleaved(
    commands: list[list[str]], env: dict[str, str], runs: int
) -> tuple[list[list[float]], list[list[float]]]:
    """Wall and CPU seconds of each command, run in turn (one warm-up each), ``runs`` times.

    Taking turns keeps a change in the machine's load from falling on one command only.
    """
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for argv in commands:
        subprocess.run(argv, env=env, check=True, capture_output=True)
    for _ in range(runs):
        for i, argv in enumerate(commands):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, env=env, check=True, capture_output=True)
            walls[i].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[i].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def _padded_copy(source: str, target: Path) -> int:
    """Writes the card file padded to the real file's size; returns its size in bytes."""
    sys.path.insert(0, str(ROOT))
    from index.cards.reader import AtomicCardsReader

    languages = ["German", "Spanish", "French", "Italian", "Japanese", "Portuguese", "Russian"]
    formats = ["standard", "pioneer", "modern", "legacy", "vintage", "commander", "pauper"]
    with open(source, "rb") as raw, target.open("w", encoding="utf-8") as out:
        reader = AtomicCardsReader(raw, source)
        out.write('{"meta": {"date": "2026-07-04", "version": "padded"}, "data": {')
        for i, (name, faces) in enumerate(reader.entries()):
            for face in faces:
                text = face.get("text") or ""
                face["foreignData"] = [
                    {
                        "language": lang,
                        "name": f"{name} ({lang})",
                        "text": text,
                        "type": face["type"],
                    }
                    for lang in languages
                ]
                face["legalities"] = dict.fromkeys(formats, "Legal")
                face["printings"] = ["LEA", "LEB", "2ED", "3ED", "4ED", "5ED", "M10", "M11"]
                face["identifiers"] = {"scryfallOracleId": f"{i:08d}-0000-0000-0000-000000000000"}
            out.write(("," if i else "") + json.dumps(name) + ":" + json.dumps(faces))
        out.write("}}")
    return target.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(CARDS), help="AtomicCards file")
    parser.add_argument("--cr", help="CR file for the rules (default: newest in the corpus)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--real-size", action="store_true", help="also import a 120 MB copy")
    args = parser.parse_args()
    if not Path(args.file).is_file():
        sys.exit(f"{args.file} is missing: the benchmark needs ../shared/cards")
    cr = args.cr or str(newest_corpus_file())
    with tempfile.TemporaryDirectory() as home:
        env = environment(JUDGE_HOME=home)
        judge = [sys.executable, "-m", "judge_cli"]
        subprocess.run([*judge, "index", "build", cr], env=env, check=True, capture_output=True)
        seconds, peak = peak_child_memory_mib([*judge, "cards", "import", args.file], env)
        name = Path(args.file).name
        met = "met" if seconds <= 60 and peak <= 300 else "NOT met"
        print(f"judge cards import {name}: {seconds:.2f} s, peak {peak:.0f} MiB")
        print(f"goal: <= 60 s and <= 300 MiB  {met}")
        info = json.loads(
            subprocess.run(
                [*judge, "cards", "--json"], env=env, check=True, capture_output=True, text=True
            ).stdout
        )
        db = Path(home) / "cards"
        size = sum(p.stat().st_size for p in db.rglob("*.sqlite"))
        print(
            f"  {info['cards']} cards, {info['faces']} faces, {info['rulings']} rulings; "
            f"database {size / 2**20:.0f} MiB"
        )

        lookup = [*judge, "card", "Platinum Angel"]
        modules = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "judge_cli", "card", "Platinum Angel"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stderr
        whoosh = "imports whoosh" if "whoosh" in modules else "does not import whoosh"
        commands = {
            'python -c "import click"': [sys.executable, "-c", "import click"],
            'judge card "Platinum Angel"': lookup,
            "judge rule 704.5j": [*judge, "rule", "704.5j"],
        }
        walls, cpus = _interleaved(list(commands.values()), env, args.runs)
        base_ms, base_cpu = median_ms(walls[0]), median_ms(cpus[0])
        print(f"cold runs, interleaved, median of {args.runs} (wall; CPU user+sys):")
        for i, label in enumerate(commands):
            wall, cpu = median_ms(walls[i]), median_ms(cpus[i])
            what = "baseline" if i == 0 else f"{wall / base_ms:.2f}x; CPU {cpu / base_cpu:.2f}x"
            extra = f"; {whoosh}" if i == 1 else ""
            print(f"  {label:30} {wall:6.1f} ms; CPU {cpu:6.1f} ms  ({what}{extra})")
        card_ms = median_ms(walls[1])
        print(f"goal: <= 1.50x  {'met' if card_ms <= 1.5 * base_ms else 'NOT met'}")

        if args.real_size:
            padded = Path(home) / "padded.json"
            size = _padded_copy(args.file, padded)
            seconds, peak = peak_child_memory_mib([*judge, "cards", "import", str(padded)], env)
            print(
                f"judge cards import of a padded copy ({size / 2**20:.0f} MiB of JSON): "
                f"{seconds:.2f} s, peak {peak:.0f} MiB"
            )
            padded.unlink()

        print("lookups inside one process:")
        out = subprocess.run(
            [sys.executable, "-c", _LOOKUPS, str(ROOT)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        print(out, end="")

    print("reading the card file (cards, seconds, peak MiB):")
    for how, label in (
        ("stream", "index.cards.reader, one entry at a time"),
        ("ijson", "ijson.kvitems (yajl2_c), data only"),
        ("whole", "json.load of the whole file"),
    ):
        run = subprocess.run(
            [sys.executable, "-c", _READERS, args.file, how, str(ROOT)],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            reason = "not installed" if "ModuleNotFoundError" in run.stderr else "failed"
            print(f"  {label:42} {reason}")
            continue
        n, secs, peak_mib = run.stdout.split()
        print(f"  {label:42} {n} cards  {secs} s  {peak_mib} MiB")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"(benchmark took {time.perf_counter() - start:.0f} s)")
