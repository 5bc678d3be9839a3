"""`judge serve`'s tournament-document routes: the JSON of `judge ipg/mtr/jar`, diff and history.

A data folder with the small fixture documents (two MTRs, so that there is something to
compare) and a small CR edition; each route is compared with its command run by ``CliRunner``
on the same folder, errors included.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_cli.cli import cli

from .servefixture import cli_json, fetch, quoted, running

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-docs")
    newer = (FIXTURES / "mini-mtr.txt").read_text(encoding="utf-8")
    newer = newer.replace("Effective June 2, 2030", "Effective June 2, 2031")
    newer = newer.replace("is 40 minutes", "is 50 minutes")
    (root / "mini-mtr-2031.txt").write_text(newer, encoding="utf-8")
    home = root / "home"
    files = [
        *(str(FIXTURES / n) for n in ("mini-cr.txt", "mini-ipg.txt", "mini-mtr.txt")),
        str(FIXTURES / "mini-jar.txt"),
        str(root / "mini-mtr-2031.txt"),
    ]
    result = CliRunner().invoke(cli, ["index", "build", *files], env={"JUDGE_HOME": str(home)})
    assert result.exit_code == 0, result.output
    return home


@pytest.fixture(scope="module")
def base(home: Path) -> Iterator[str]:
    with running(home) as url:
        yield url


# (CLI arguments, the route that must answer the same JSON)
SAME_JSON = [
    (["ipg", "2.1", "--json"], "/api/ipg/2.1"),
    (["ipg", "2", "--json"], "/api/ipg/2"),
    (["ipg", "missed", "trigger", "--json"], "/api/ipg/" + quoted("missed trigger")),
    (["ipg", "missd trigger", "--json"], "/api/ipg/" + quoted("missd trigger")),
    (["ipg", "2.1", "2.2", "--json"], "/api/ipg/" + quoted("2.1 2.2")),
    (["ipg", "2.1", "--cr-edition", "2030-03-01", "--json"], "/api/ipg/2.1?cr_edition=2030-03-01"),
    (["mtr", "2.1", "--json"], "/api/mtr/2.1"),
    (["mtr", "appendix b", "--json"], "/api/mtr/appendix%20b"),
    (["mtr", "2.1", "--edition", "2030-06-02", "--json"], "/api/mtr/2.1?edition=2030-06-02"),
    (["jar", "--json"], "/api/jar"),
    (["jar", "common", "issues", "--json"], "/api/jar/" + quoted("common issues")),
    (["editions", "--json"], "/api/editions"),
    (["diff", "--doc", "mtr", "--json"], "/api/diff?doc=mtr"),
    (["diff", "--doc", "mtr", "appendix b", "--from", "2030", "--json"],
     "/api/diff?doc=mtr&ref=appendix+b&from=2030"),
    (["history", "--doc", "mtr", "Appendix B", "--json"], "/api/history/Appendix%20B?doc=mtr"),
    (["history", "--doc", "mtr", "2.1", "--edition", "2030-06-02", "--json"],
     "/api/history/2.1?doc=mtr&edition=2030-06-02"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "route"), SAME_JSON, ids=[r for _, r in SAME_JSON])
def test_every_document_route_answers_the_cli_json(
    home: Path, base: str, argv: list[str], route: str
) -> None:
    answer = fetch(base, route)
    assert answer.status == 200, answer.body
    assert answer.json() == cli_json(home, argv)


def _cli_error(home: Path, argv: list[str], code: int = 1) -> str:
    result = CliRunner().invoke(cli, argv, env={"JUDGE_HOME": str(home)})
    assert result.exit_code == code, result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("Error: ")]
    return line[len("Error: ") :]


# (CLI arguments, the route, the route's status)
SAME_ERROR = [
    (["ipg", "9.9", "--json"], "/api/ipg/9.9", 404),
    (["ipg", "flying carpet", "--json"], "/api/ipg/" + quoted("flying carpet"), 404),
    (["ipg", "2.1", "--edition", "1999", "--json"], "/api/ipg/2.1?edition=1999", 404),
    (["ipg", "2.1", "--cr-edition", "1999", "--json"], "/api/ipg/2.1?cr_edition=1999", 404),
    (["mtr", "2.1", "--digital", "--json"], "/api/mtr/2.1?digital=true", 404),
    (["diff", "--doc", "mtr", "7.7", "--json"], "/api/diff?doc=mtr&ref=7.7", 404),
    (["diff", "--doc", "ipg", "--json"], "/api/diff?doc=ipg", 404),
    (["history", "--doc", "jar", "nothing", "--json"], "/api/history/nothing?doc=jar", 404),
]


@pytest.mark.parametrize(("argv", "route", "status"), SAME_ERROR, ids=[r[1] for r in SAME_ERROR])
def test_errors_are_json_with_the_cli_message(
    home: Path, base: str, argv: list[str], route: str, status: int
) -> None:
    answer = fetch(base, route)
    assert answer.status == status
    assert answer.json() == {"error": _cli_error(home, argv), "status": status}


@pytest.mark.parametrize(
    ("route", "message"),
    [
        ("/api/ipg/", "give a section: /api/ipg/2.1, or a name: /api/ipg/NAME"),
        ("/api/diff?doc=cr", "doc='cr' is not one of mtr, ipg, jar, dmtr, dipg"),
        (
            "/api/mtr/2.1?digital=perhaps",
            "digital='perhaps' is not true or false; use digital=true or digital=false",
        ),
    ],
)
def test_bad_requests(base: str, route: str, message: str) -> None:
    answer = fetch(base, route)
    assert (answer.status, answer.json()) == (400, {"error": message, "status": 400})
