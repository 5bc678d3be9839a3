"""``python -m judge_cli``."""

from .cli import cli

cli(prog_name="judge")
