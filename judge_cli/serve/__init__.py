"""``judge serve``: one long-lived process that answers bots and browsers over HTTP.

The parts:

* :mod:`judge_cli.serve.state`: the editions kept warm, shared safely by the request threads;
* :mod:`judge_cli.serve.routes`: what a route is (a function of an :class:`~.routes.Ask`) and
  how answers and library errors become HTTP responses;
* :mod:`judge_cli.serve.api`: the ``/api/*`` routes, each the JSON of its CLI command;
* :mod:`judge_cli.serve.academy`: routes in the shapes of the Academy Ruins API;
* :mod:`judge_cli.serve.app`: the Starlette application, its limits and error handlers;
* :mod:`judge_cli.serve.command`: the click command, which runs it on uvicorn.

Starlette and uvicorn are the optional extra ``judge-cli[serve]``; nothing here imports them
at the top, so ``judge --help`` and the library never pay for them.
"""

from __future__ import annotations

__all__ = ["MissingExtraError"]


class MissingExtraError(ImportError):
    """Raised when a command needs an optional extra that is not installed."""

    def __init__(self, extra: str, module: str) -> None:
        self.extra = extra
        """The extra of ``judge-cli`` that brings it (``serve``)."""
        self.module = module
        """The module that could not be imported."""
        super().__init__(f"this needs {module}, which is not installed", name=module)
