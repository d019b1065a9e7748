"""uvicorn inside the table's own event loop, beside the director (no thread, no second process).

Two changes to uvicorn's defaults, both for a Pi Zero sitting under a table all evening: it does not take the
process's signals (the table decides when to stop), and its housekeeping tick runs once a second instead of ten
times (an idle table should sleep). ``X-Forwarded-For`` is not believed: the rate limit counts the real address.

Every connection is watched from the moment it is accepted (controller/web/doorman.py): a deadline for each
request, a limit per address and in all, and room made by closing connections that are still waiting, never the
judge's requests being answered; uvicorn's own ``limit_concurrency`` (which answers everyone 503 alike) is off.

With a certificate (``[console] tls``, the default) the port speaks TLS only. A plain ``http://`` request to it is
not answered, not even with a redirect: a redirect sent in the clear could as well be forged by whoever is on the
Wi-Fi, a second plain-HTTP port would be one more thing listening on the Pi, and the addresses the table gives
out (the QR code, the board, the log) all say ``https://``. The browser shows that the site sent no answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any

import uvicorn

from controller.web.app import make_app
from controller.web.console import Console
from controller.web.doorman import Doorman, DoorSocket, protocol_for
from controller.web.hosts import Throttled

log = logging.getLogger("controller.web.console")

#: A connection must deliver a whole request within this many seconds of being accepted (TLS handshake
#: included), and again after each response; a phone on a poor Wi-Fi needs well under a second.
HEAD_TIMEOUT_S = 10.0
#: Connections open at once from one address (a browser opens about six, plus its web socket).
PER_ADDRESS = 16
#: Connections open at once in all: the public sockets (app.MAX_PUBLIC_SOCKETS), the judge's, and room to spare.
TOTAL = 160


class _TableServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stopping = asyncio.Event()

    def capture_signals(self) -> Any:
        return contextlib.nullcontext()

    async def main_loop(self) -> None:
        counter = 0
        while not await self.on_tick(counter):
            counter += 10  # on_tick refreshes the Date header when counter % 10 == 0
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), 1.0)


class ListenError(OSError):
    """The console cannot listen where the configuration says: one line naming the key to change (a user error
    for the CLI's guard, like a bad configuration, not a crash)."""


def listen(host: str, port: int) -> DoorSocket:
    """The console's listening socket, bound here so that a port in use is one clear line (uvicorn would log it and
    exit the whole process from inside the loop)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = DoorSocket(family, kind, proto)
    except OSError as exc:
        raise ListenError(f"the judge's console cannot listen on {host!r}: {exc} (check [console] host)") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise ListenError(f"the judge's console cannot listen on {host}:{port}: {exc.strerror or exc} "
                      "(another program has the port? change [console] port)") from None
    return sock


class ConsoleServer:
    """Serve ``console`` on its host and port (port 0: any free one; :attr:`port` tells which)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        settings = console.settings
        tls = console.certificate
        self.doorman = Doorman(console.loop, Throttled(log), per_address=PER_ADDRESS, total=TOTAL,
                               head_timeout_s=HEAD_TIMEOUT_S)
        console.doorman = self.doorman
        config = uvicorn.Config(make_app(console), host=settings.host, port=settings.port, log_level="warning",
                                http=protocol_for(self.doorman), ws="websockets-sansio", lifespan="off",
                                access_log=False, proxy_headers=False, server_header=False, ws_max_size=4096,
                                ssl_certfile=tls.cert if tls else None, ssl_keyfile=tls.key if tls else None)
        self.server = _TableServer(config)
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        sock = listen(self.console.settings.host, self.console.settings.port)
        sock.doorman = self.doorman
        self.console.port = int(sock.getsockname()[1])
        self.task = asyncio.create_task(self.server.serve(sockets=[sock]))
        while not self.server.started:
            if self.task.done():
                self.task.result()
                raise OSError("the judge's console did not start")
            await asyncio.sleep(0.01)
        self.console.open()

    async def stop(self) -> None:
        self.console.close()
        self.server.should_exit = True
        self.server.stopping.set()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
