"""Hostile scenario files: bounded work and memory, and a one-line error naming the file and line.

One seeded case for every report of issue 16 item 1, then hypothesis over alias bombs, deep
nesting and mutations of real boards. Every case is refused by a limit (or loads) after reading
at most a few hundred thousand values, so each takes milliseconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_cli.scenario import (
    ScenarioError,
    ScenarioLimitError,
    ScenarioSyntaxError,
    ScenarioValueError,
    load_scenario_path,
    load_scenario_text,
    reading,
)
from judge_cli.scenario.parse import MAX_BYTES, MAX_DEPTH, MAX_DIGITS, MAX_VALUES

SCENARIOS = Path(__file__).parent / "scenarios"


def laughs(levels: int, width: int, where: str = "top") -> str:
    """A "billion laughs" board: each level an anchored list of ``width`` aliases of the last."""
    rows = ['&l0 "lol"']
    for i in range(1, levels + 1):
        rows.append(f"&l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    if where == "top":
        return "".join(f"l{i}: {row}\n" for i, row in enumerate(rows)) + "players: [Alice, Bob]\n"
    lines = ["players: [Alice, Bob]", "objects:"]
    for i, row in enumerate(rows):
        lines.append(f"  - {{id: o{i}, controller: Alice, keywords: {row}}}")
    return "\n".join(lines) + "\n"


# (name, file name, text, error type, line, words in the message, limit or None)
CASES = [
    (
        "billion laughs",
        "b.yaml",
        laughs(9, 9),
        ScenarioLimitError,
        7,
        f"{MAX_VALUES:,}",
        MAX_VALUES,
    ),
    (
        "laughs in objects",
        "b.yaml",
        laughs(9, 9, "objects"),
        ScenarioLimitError,
        9,
        "aliases are expanded",
        MAX_VALUES,
    ),
    (
        "merge key",
        "b.yaml",
        "base: &b {name: Alice}\nplayers:\n  - <<: *b\n    life: 3\n  - Bob\n",
        ScenarioValueError,
        3,
        "merge keys (<<) are not supported",
        None,
    ),
    ("custom tag", "b.yaml", "players: [!foo Alice, Bob]\n", ScenarioValueError, 1, "!foo", None),
    (
        "custom tag on a list",
        "b.yaml",
        "players: !foo [Alice, Bob]\n",
        ScenarioValueError,
        1,
        "!foo",
        None,
    ),
    (
        "python name",
        "b.yaml",
        "players:\n  - name: !!python/name:os.system Alice\n",
        ScenarioValueError,
        2,
        "!!python/name:os.system is not supported",
        None,
    ),
    (
        "recursive anchor",
        "b.yaml",
        "players: &a [*a]\n",
        ScenarioValueError,
        1,
        "refers to itself",
        None,
    ),
    (
        "5,000 nested [",
        "b.yaml",
        "players: " + "[" * 5000 + "]" * 5000 + "\n",
        ScenarioLimitError,
        1,
        f"more than {MAX_DEPTH} levels",
        MAX_DEPTH,
    ),
    (
        "JSON 100,000 deep",
        "b.json",
        "[" * 100_000 + "]" * 100_000,
        ScenarioLimitError,
        1,
        f"more than {MAX_DEPTH} levels",
        MAX_DEPTH,
    ),
    (
        "5,000-digit integer",
        "b.yaml",
        "players:\n  - name: Alice\n    life: " + "9" * 5000 + "\n",
        ScenarioLimitError,
        3,
        f"at most {MAX_DIGITS}",
        MAX_DIGITS,
    ),
    (
        "5,000-digit integer in JSON",
        "b.json",
        '{"players": [{"name": "Alice", "life": ' + "9" * 5000 + "}]}",
        ScenarioLimitError,
        1,
        "5,000 digits",
        MAX_DIGITS,
    ),
    (
        "impossible date",
        "b.yaml",
        "edition: 2099-13-45\nplayers: [Alice, Bob]\n",
        ScenarioValueError,
        1,
        "not a valid date: '2099-13-45'",
        None,
    ),
    (
        "control character",
        "b.yaml",
        "players: [Alice\x01, Bob]\n",
        ScenarioSyntaxError,
        1,
        "#x0001",
        None,
    ),
    (
        "aliases nesting deeper than the text",
        "b.yaml",
        "".join(f"d{i}: &d{i} [*d{i - 1}]\n" if i else "d0: &d0 [x]\n" for i in range(40))
        + "players: [Alice]\n",
        ScenarioLimitError,
        None,
        f"more than {MAX_DEPTH} levels",
        MAX_DEPTH,
    ),
]


@pytest.mark.parametrize(
    ("name", "filename", "text", "error", "line", "words", "limit"),
    CASES,
    ids=[case[0] for case in CASES],
)
def test_hostile_file_is_one_clean_error(
    name: str,
    filename: str,
    text: str,
    error: type[ScenarioError],
    line: int | None,
    words: str,
    limit: int | None,
) -> None:
    with pytest.raises(error) as info:
        load_scenario_text(text, filename)
    exc = info.value
    if line is not None:
        assert exc.line == line
    else:
        assert exc.line is not None
    message = str(exc)
    assert message.startswith(f"{filename}, line {exc.line}")
    assert words in message
    assert "\n" not in message
    if limit is not None:
        assert isinstance(exc, ScenarioLimitError) and exc.limit == limit
        assert f"{limit:,}" in message or str(limit) in message


def test_a_file_larger_than_the_limit_is_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"players: [Alice, Bob]\n" + b"#" * MAX_BYTES)
    with pytest.raises(ScenarioLimitError, match=f"larger than {MAX_BYTES:,} bytes") as info:
        load_scenario_path(path)
    assert info.value.limit == MAX_BYTES
    with pytest.raises(ScenarioLimitError, match="the limit is"):
        load_scenario_text("#" * (MAX_BYTES + 1), "big.yaml")


def test_too_many_objects_and_players(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "MAX_OBJECTS", 3)
    monkeypatch.setattr(reading, "MAX_PLAYERS", 2)
    objects = "".join(f"  - {{id: o{i}, controller: Alice}}\n" for i in range(4))
    with pytest.raises(
        ScenarioLimitError, match="4 objects; a scenario may have at most 3"
    ) as info:
        load_scenario_text("players: [Alice, Bob]\nobjects:\n" + objects, "b.yaml")
    assert (info.value.line, info.value.key, info.value.limit) == (2, "objects", 3)
    with pytest.raises(ScenarioLimitError, match="3 players; a scenario may have at most 2"):
        load_scenario_text("players: [Alice, Bob, Carol]\n", "b.yaml")


def test_aliases_within_the_limits_still_load() -> None:
    text = "players:\n  - &alice {name: Alice, life: 3}\n  - Bob\nobjects:\n"
    text += "  - {id: a, controller: Alice, keywords: &kw [flying, vigilance]}\n"
    text += "  - {id: b, controller: Bob, keywords: *kw}\n"
    board = load_scenario_text(text, "b.yaml").board
    assert board.objects[1].keywords == ["flying", "vigilance"]


def test_a_key_with_control_characters_is_shown_escaped() -> None:
    text = 'players: [Alice, Bob]\nobjects: [{id: x, controller: Alice, "bad\\e[2Jkey": 1}]\n'
    with pytest.raises(ScenarioValueError) as info:
        load_scenario_text(text, "b.yaml")
    assert "\x1b" not in str(info.value)
    assert "bad\\x1b[2Jkey" in str(info.value)
    assert info.value.key == "objects[0].bad\x1b[2Jkey"


# -- hypothesis -------------------------------------------------------------------------------

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@SETTINGS
@given(st.integers(1, 14), st.integers(1, 14), st.sampled_from(["top", "objects"]))
def test_alias_bombs_are_refused_exactly_past_the_limit(
    levels: int, width: int, where: str
) -> None:
    sizes = [1]
    for _ in range(levels):
        sizes.append(1 + width * sizes[-1])
    expanded = sum(sizes)  # the values the lists stand for, without keys and ids
    try:
        load_scenario_text(laughs(levels, width, where), "b.yaml")
    except ScenarioLimitError as exc:
        assert exc.limit in (MAX_VALUES, MAX_DEPTH)
        assert expanded > MAX_VALUES or levels + 3 > MAX_DEPTH
    except ScenarioValueError:
        # Unknown top-level keys, or lists of lists where words belong: not a limit.
        assert expanded < MAX_VALUES
    else:
        assert expanded < MAX_VALUES


@SETTINGS
@given(st.integers(1, 3 * MAX_DEPTH), st.sampled_from("[{"), st.booleans())
def test_nesting_is_refused_past_the_limit(depth: int, opener: str, closed: bool) -> None:
    closer = "]" if opener == "[" else "}"
    inner = "x" if opener == "[" else "x: 1"
    nested = opener * depth + inner + (closer * depth if closed else "")
    try:
        load_scenario_text(
            f"players: [Alice]\nobjects: [{{id: o, controller: Alice, keywords: {nested}}}]\n",
            "b.yaml",
        )
    except ScenarioLimitError:
        assert depth + 4 > MAX_DEPTH  # the board, objects, the object, the lists, the word
    except ScenarioError:
        # Not a list of words, not valid YAML (unclosed), or a mapping used as a key.
        assert depth + 4 <= MAX_DEPTH
    else:
        assert depth + 4 <= MAX_DEPTH


def _real_boards() -> list[str]:
    import yaml

    out = []
    for path in sorted(SCENARIOS.glob("*.yaml"))[:20]:
        out.append(yaml.safe_dump(yaml.safe_load(path.read_text(encoding="utf-8"))["board"]))
    return out


REAL = _real_boards()
PIECES = [
    "&a ", "*a", "<<: ", "!!str ", "!foo ", "[", "]", "{", "}", ": ", "- ", "\n", "  ", "'", '"',
    "9" * 30, "2099-13-45", "\x00", "\x1b[2J", "\u202e", "&b [*b]", "? ", "|\n", "%YAML 1.1\n",
]  # fmt: skip


@SETTINGS
@given(
    st.sampled_from(REAL),
    st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(PIECES), st.integers(0, 12)),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["b.yaml", "b.json", "b.md"]),
)
def test_mutated_real_boards_load_or_raise_the_loaders_own_error(
    board: str, edits: list[tuple[float, str, int]], filename: str
) -> None:
    text = board
    for where, piece, cut in edits:
        at = int(where * len(text))
        text = text[:at] + piece + text[at + cut :]
    if filename == "b.md":
        text = f"# Q\n\n```yaml\n{text}```\n"
    elif filename == "b.json":
        text = json.dumps(text) if "{" not in text else text
    try:
        load_scenario_text(text, filename)
    except ScenarioError as exc:
        assert "\n" not in str(exc)
        assert str(exc).startswith(filename)


@SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes_load_or_raise_the_loaders_own_error(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    try:
        load_scenario_text(text, "b.yaml")
    except ScenarioError as exc:
        assert "\n" not in str(exc)
