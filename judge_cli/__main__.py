"""``python -m judge_cli``."""

from .launch import main

main()
