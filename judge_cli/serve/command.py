"""``judge serve``: the rules server, on uvicorn, bound to loopback unless told otherwise."""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import TYPE_CHECKING, Any

import click

from ..common import CONTEXT_SETTINGS, Command, echo, open_store
from . import MissingExtraError

if TYPE_CHECKING:
    import uvicorn

__all__ = ["BindError", "bind", "is_loopback", "make_server", "serve"]


class BindError(OSError):
    """Raised when the server cannot listen on the address asked for."""

    def __init__(self, host: str, port: int, reason: str) -> None:
        self.host = host
        self.port = port
        self.reason = reason
        super().__init__(f"cannot listen on {host} port {port} ({reason})")


def require_server() -> None:
    """Checks that the ``serve`` extra is installed; raises :class:`MissingExtraError`."""
    for module in ("starlette", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            raise MissingExtraError("serve", module) from None


def is_loopback(host: str) -> bool:
    """Checks if ``host`` is this machine only: ``localhost``, ``127.0.0.0/8`` or ``::1``.

    A host name other than ``localhost`` is not looked up (that would ask a name server) and
    counts as reachable from elsewhere.
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port`` (0: any free port); raises :class:`BindError`."""
    address = "127.0.0.1" if host.strip().lower() == "localhost" else host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off only on sockets that say they are
    # TCP, and with it on a keep-alive client waits ~40 ms for each answer (delayed ACKs).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        # Listening now: a client that connects before uvicorn's loop runs waits, not fails.
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise BindError(host, port, exc.strerror or str(exc)) from None
    return sock


def make_server(app: Any, *, access_log: bool = False) -> uvicorn.Server:
    """A uvicorn server for ``app``: HTTP/1.1 (h11), no lifespan, short keep-alive."""
    import uvicorn

    config = uvicorn.Config(
        app,
        http="h11",
        lifespan="off",
        access_log=access_log,
        log_level="info" if access_log else "warning",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    return uvicorn.Server(config)


@click.command(cls=Command, context_settings=CONTEXT_SETTINGS)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    default=8470,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port, printed at start).",
)
@click.option(
    "--public",
    is_flag=True,
    help="Allow a host that other machines can reach (default: loopback only).",
)
@click.option("--access-log", is_flag=True, help="Log every request on standard error.")
def serve(host: str, port: int, public: bool, access_log: bool) -> None:
    """Answer over HTTP: the JSON of rule, define, search, check, editions, diff, history and card
    under /api/, Academy Ruins-style routes under /cr/, and pages for people at /.

    Editions and search indexes stay warm between requests. Needs the serve extra:
    pip install "judge-cli[serve]".
    """
    require_server()
    if not public and not is_loopback(host):
        raise click.UsageError(
            f"{host} is not a loopback address: other machines could reach the server. "
            "Add --public if that is what you want."
        )
    from .app import make_app
    from .state import Editions

    sock = bind(host, port)
    editions = Editions(open_store(), notice=lambda text: echo(text, err=True))
    ed = editions.get(None)  # the newest edition is read now, not by the first request
    if ed.path is not None:
        ed.search("legend rule", limit=1)  # and its search index opened
    server = make_server(make_app(editions), access_log=access_log)
    shown = f"[{host}]" if ":" in host else host
    echo(f"Serving {ed.label} on http://{shown}:{sock.getsockname()[1]}/ (Ctrl+C stops)")
    sys.stdout.flush()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn stops on Ctrl+C, then raises it again: stopping is not an error here
    finally:
        editions.close()
        sock.close()
