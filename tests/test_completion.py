"""Shell completion: the candidates, and the generated bash script in a real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli
from judge_cli.completion import rule_candidates, term_candidates

from .cardfixture import atomic, face, small_cards, write_cards
from .servefixture import hostile_home

NUMBERS = ["7", "700", "704", "704.1", "704.5", "704.5a", "704.5b", "704.6", "705", "705.1"]


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("704.5", ["704.5", "704.5a", "704.5b"]),
        ("704", ["704", "704.1", "704.5", "704.6"]),
        ("70", ["700", "704", "705"]),
        ("7", ["7", "700", "704", "705"]),
        ("704.5b", ["704.5b"]),
        ("8", []),
    ],
)
def test_rule_candidates(prefix: str, expected: list[str]) -> None:
    assert rule_candidates(NUMBERS, prefix) == expected


TERMS = ["Legend", "Legend Rule", "Legendary", "Life, Life Total", "Lifelink"]


@pytest.mark.parametrize(
    ("words", "incomplete", "expected"),
    [
        ([], "legen", ["Legend", "Legend Rule", "Legendary"]),
        ([], "LIFE", ["Life, Life Total", "Lifelink"]),
        (["legend"], "r", ["Rule"]),
        (["life,"], "", ["Life Total"]),
        ([], "xyz", []),
    ],
)
def test_term_candidates(words: list[str], incomplete: str, expected: list[str]) -> None:
    assert term_candidates(TERMS, words, incomplete) == expected


def test_completion_prints_each_shells_script() -> None:
    for shell, mark in (
        ("bash", "complete -o nosort -F"),
        ("zsh", "#compdef judge"),
        ("fish", "complete --no-files --command judge"),
    ):
        result = CliRunner().invoke(cli, ["completion", shell])
        assert result.exit_code == 0, result.output
        assert mark in result.output and "_JUDGE_COMPLETE" in result.output
    assert CliRunner().invoke(cli, ["completion", "tcsh"]).exit_code == 2


def _bash_complete(script: Path, home: Path, words: str) -> list[str]:
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "judge").is_file(), "the judge command must be installed beside python"
    line = (
        f"source {script}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); "
        '_judge_completion judge; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {
        **os.environ,
        "JUDGE_HOME": str(home),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return [x for x in done.stdout.splitlines() if x]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_bash_script_completes_in_a_real_bash(tmp_path: Path) -> None:
    script = tmp_path / "judge.bash"
    script.write_text(CliRunner().invoke(cli, ["completion", "bash"]).output, encoding="utf-8")
    home = hostile_home()
    assert _bash_complete(script, home, "judge rule 704.5") == [
        "704.5",
        "704.5a",
        "704.5f",
        "704.5j",
    ]
    assert _bash_complete(script, home, "judge define legen") == ["Legend Rule"]
    assert _bash_complete(script, home, "judge define legend r") == ["Rule"]
    assert _bash_complete(script, home, "judge rule --edition 20") == ["2025-03-01"]
    assert _bash_complete(script, home, "judge se") == ["search", "serve"]
    # with nothing stored, the bundled sample's terms
    assert "Mana Burn" in _bash_complete(script, tmp_path / "empty", "judge define mana")


def test_a_tab_imports_neither_whoosh_nor_the_document_model(tmp_path: Path) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('whoosh', 'markdown_it', 'yaml', 'starlette') or m in ('index.model', 'index.search')),"
        " file=sys.stderr))\n"
        "from judge_cli.cli import cli\n"
        "cli(prog_name='judge')\n"
    )
    env = {
        **os.environ,
        "JUDGE_HOME": str(hostile_home()),
        "_JUDGE_COMPLETE": "bash_complete",
        "COMP_WORDS": "judge rule 704.5",
        "COMP_CWORD": "2",
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert "plain,704.5j" in done.stdout.splitlines()
    assert done.stderr.strip() == "[]"


# --- card names ---------------------------------------------------------------------------------

QUOTED_CARDS = {
    'Kongming, "Sleeping Dragon"': [face('Kongming, "Sleeping Dragon"', "Legendary Creature")],
    "Kongming's Contraptions": [face("Kongming's Contraptions", "Artifact")],
    "Back\\slash Golem": [face("Back\\slash Golem", "Artifact Creature — Golem")],
    "Bad\x1b[31mName": [face("Bad\x1b[31mName", "Artifact")],
}


@pytest.fixture(scope="module")
def cards_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small edition of :func:`hostile_home` beside our card fixture and a few odd names."""
    from index.cards.store import CardStore

    home = tmp_path_factory.mktemp("completion-cards")
    shutil.copytree(hostile_home(), home, dirs_exist_ok=True)
    doc = atomic({**small_cards(), **QUOTED_CARDS})
    CardStore(home).import_cards(write_cards(home / "cards.json", doc))
    return home


def test_card_names_start_with_what_was_typed(cards_home: Path) -> None:
    from index.cards.lookup import CardDB
    from index.cards.store import CardStore

    with CardDB.open(CardStore(cards_home)) as db:
        assert db.complete("plat") == ["Platinum Angel", "Platinum Emperion"]
        assert db.complete("PLATINUM E") == ["Platinum Emperion"]
        assert db.complete("lim-dul") == ["Lim-Dûl's Vault"]  # without the accent
        assert db.complete("insectile") == ["Insectile Aberration"]  # a face
        assert db.complete("ice") == ["Ice"]  # a face named only in "Fire // Ice"
        assert db.complete("delver") == [
            "Delver of Secrets",
            "Delver of Secrets // Insectile Aberration",
        ]
        # Punctuation counts while something matches with it, and is dropped when nothing does.
        assert db.complete('kongming, "s') == ['Kongming, "Sleeping Dragon"']
        assert db.complete("kongming") == ["Kongming's Contraptions", 'Kongming, "Sleeping Dragon"']
        assert db.complete("thrun the") == ["Thrun, the Last Troll"]
        assert db.complete("") == [] and db.complete("xyzzy") == [] and db.complete("'") == []
        # Too many: the first and the last are kept, so what they share is still all they share.
        assert db.complete("p") == [
            "Pir, Imaginative Rascal",
            "Platinum Angel",
            "Platinum Emperion",
        ]
        assert db.complete("p", limit=2) == ["Pir, Imaginative Rascal", "Platinum Emperion"]


@pytest.mark.parametrize(
    ("value", "opening", "quoted"),
    [
        ("Platinum Angel", "", "'Platinum Angel'"),
        ("Plateau", "", "'Plateau'"),  # quoted all the same, so all candidates start alike
        ("Lim-Dûl's Vault", "", "'Lim-Dûl'\"'\"'s Vault'"),
        ("Lim-Dûl's Vault", "'", "'Lim-Dûl'\"'\"'s Vault'"),
        ("Lim-Dûl's Vault", '"', '"Lim-Dûl\'s Vault"'),
        ('Kongming, "Sleeping Dragon"', '"', '"Kongming, \\"Sleeping Dragon\\""'),
        ("$5 `x` \\", '"', '"\\$5 \\`x\\` \\\\"'),
    ],
)
def test_bash_quote(value: str, opening: str, quoted: str) -> None:
    from judge_cli.completion import bash_quote

    assert bash_quote(value, opening) == quoted
    # What bash makes of the word is the name again.
    if shutil.which("bash"):
        done = subprocess.run(
            ["bash", "-c", f"printf '%s' {quoted}"], capture_output=True, text=True, timeout=30
        )
        assert done.stdout == value


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_card_names_come_back_quoted_for_bash(tmp_path: Path, cards_home: Path) -> None:
    script = tmp_path / "judge.bash"
    script.write_text(CliRunner().invoke(cli, ["completion", "bash"]).output, encoding="utf-8")
    cases = [
        ("judge card plat", ["'Platinum Angel'", "'Platinum Emperion'"]),
        # (bash keeps the quotes of the words typed in COMP_WORDS: so does this array)
        ("judge card \"'Darksteel Citadel'\" plat", ["'Platinum Angel'", "'Platinum Emperion'"]),
        ('judge card "\'platinum e"', ["'Platinum Emperion'"]),
        ("judge card '\"platinum e'", ['"Platinum Emperion"']),
        ("judge card lim", ["'Lim-Dûl'\"'\"'s Vault'"]),
        ("judge card '\"lim'", ['"Lim-Dûl\'s Vault"']),
        ("judge card '\"Kongming, \\\"S'", ['"Kongming, \\"Sleeping Dragon\\""']),
        ("judge card back", ["'Back\\slash Golem'"]),
        ("judge card insectile", ["'Insectile Aberration'"]),
        ("judge card --edition 2025 thrun", ["'Thrun, the Last Troll'"]),
        ("judge card xyzzy", []),
        ("judge card bad", []),  # a name holding an escape sequence is never put in the line
    ]
    for words, expected in cases:
        assert _bash_complete(script, cards_home, words) == expected, words
    # Each candidate, as bash reads it back, is the card's name exactly.
    for words, name in (
        ("judge card lim", "Lim-Dûl's Vault"),
        ("judge card '\"Kongming, \\\"S'", 'Kongming, "Sleeping Dragon"'),
        ("judge card back", "Back\\slash Golem"),
    ):
        (word,) = _bash_complete(script, cards_home, words)
        done = subprocess.run(["bash", "-c", f"printf '%s' {word}"], capture_output=True, text=True)
        assert done.stdout == name
    # Other shells quote what they insert themselves: zsh gets the plain name.
    env = {
        **os.environ,
        "JUDGE_HOME": str(cards_home),
        "_JUDGE_COMPLETE": "zsh_complete",
        "COMP_WORDS": "judge card lim",
        "COMP_CWORD": "2",
    }
    judge = str(Path(sys.executable).parent / "judge")
    done = subprocess.run([judge], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.splitlines() == ["plain", "Lim-Dûl's Vault", "_"]
    # No card data: nothing offered, no error.
    assert _bash_complete(script, hostile_home(), "judge card plat") == []


def _interactive_bash(rc: Path, keys: bytes, wait_for: bytes, timeout: float = 30.0) -> bytes:
    """What an interactive bash prints while ``keys`` are typed, until ``wait_for`` appears."""
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: a real interactive bash on the terminal
        os.execvpe("bash", ["bash", "--noprofile", "--rcfile", str(rc), "-i"], {
            **os.environ, "TERM": "dumb", "HOME": str(rc.parent)})  # fmt: skip
    out = b""
    try:
        os.write(fd, keys)
        deadline = time.monotonic() + timeout
        while wait_for not in out and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        os.close(fd)
    return out


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_tab_in_an_interactive_bash_completes_a_quoted_card_name(
    tmp_path: Path, cards_home: Path
) -> None:
    # The whole road: readline takes the candidate, puts it in the line, and bash reads the line.
    script = tmp_path / "judge.bash"
    script.write_text(CliRunner().invoke(cli, ["completion", "bash"]).output, encoding="utf-8")
    rc = tmp_path / "bashrc"
    bin_dir = Path(sys.executable).parent
    rc.write_text(
        f"PS1='$ '\nexport PATH={bin_dir}:$PATH\nexport JUDGE_HOME={cards_home}\n"
        f"source {script}\nbind 'set bell-style none'\n",
        encoding="utf-8",
    )
    # Type the start of a name, TAB, then go to the start of the line (Ctrl-A) and turn the
    # command into printf, so that bash prints the words it parsed from the completed line.
    for typed, name in (
        (b"'platinum e", "Platinum Emperion"),
        (b'"lim-d', "Lim-Dûl's Vault"),
        (b"thrun", "Thrun, the Last Troll"),
    ):
        keys = b"judge card " + typed + b"\t\x01printf '<%s>\\n' \x05\r"
        out = _interactive_bash(rc, keys, f"<{name}>".encode(), timeout=30)
        assert f"\n<{name}>".encode() in out.replace(b"\r", b""), out


def test_a_card_tab_imports_no_whoosh(cards_home: Path) -> None:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('whoosh', 'markdown_it', 'yaml', 'starlette', 'onnxruntime') or m in ('index.model', "
        "'index.search', 'index.fetch')), file=sys.stderr))\n"
        "from judge_cli.cli import cli\n"
        "cli(prog_name='judge')\n"
    )
    env = {
        **os.environ,
        "JUDGE_HOME": str(cards_home),
        "_JUDGE_COMPLETE": "bash_complete",
        "COMP_WORDS": "judge\ncard\nplat",
        "COMP_CWORD": "2",
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.stdout.splitlines() == ["plain,'Platinum Angel'", "plain,'Platinum Emperion'"]
    assert done.stderr.strip() == "[]"
