"""A web server that one client's unfinished requests cannot take down: uvicorn in the running loop, its
listening socket watched by a :class:`~controller.web.doorman.Doorman` (a deadline for each request, a limit per
address and in all, room made by closing connections still waiting, never the judge's), a bounded shutdown, and
one line a minute when the process runs out of file descriptors (controller/web/out_of_files.py).

The judge's console (controller/web/server.py), the hall's page (controller/hall/app.py) and the league's page
(``tianhei league``) are all served this way, with the same deadlines and limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any

import uvicorn

from controller.web import out_of_files
from controller.web.doorman import Doorman, DoorSocket, protocol_for
from controller.web.hosts import Throttled

#: A connection must deliver a whole request within this many seconds of being accepted (TLS handshake
#: included), and again after each response; a phone on a poor Wi-Fi needs well under a second.
HEAD_TIMEOUT_S = 10.0
#: Connections open at once from one address (a browser opens about six, plus its web socket).
PER_ADDRESS = 16
#: Connections open at once in all: the public sockets (app.MAX_PUBLIC_SOCKETS), the judge's, and room to spare.
TOTAL = 160
#: On the way out, connections still being answered get this long before they are cut (uvicorn waits for ever
#: by default: a process told to stop by systemd must stop).
GRACE_S = 2


class _TableServer(uvicorn.Server):
    """uvicorn that leaves the process's signals to its owner (the table, the hall, the league decide when to stop)
    and ticks once a second instead of ten times (an idle Pi should sleep)."""

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


def listen(host: str, port: int, key: str = "[console] host", who: str = "judge's console") -> DoorSocket:
    """A guarded server's listening socket, bound here so that a port in use is one clear line (uvicorn would log
    it and exit the whole process from inside the loop). ``key`` is the setting that chooses the address."""
    port_key = key.replace("host", "port")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = DoorSocket(family, kind, proto)
    except OSError as exc:
        raise ListenError(f"the {who} cannot listen on {host!r}: {exc} (check {key})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise ListenError(f"the {who} cannot listen on {host}:{port}: {exc.strerror or exc} "
                          f"(another program has the port? change {port_key})") from None
    return sock


class GuardedServer:
    """An ASGI app on uvicorn in the running loop, every connection watched by a :class:`Doorman` (the deadline,
    the limits per address and in all, room made from waiting connections): the judge's console, the hall's page
    and the league's page alike. ``who`` names the server in the log ("hall's page: …"). Its listening socket is
    bound by :meth:`start` (a port in use is a :class:`ListenError`, one line); :attr:`port` says which it got."""

    def __init__(self, app: Any, host: str, port: int, *, who: str, log: logging.Logger,
                 guard_key: str = "[console] host", per_address: int | None = None, total: int | None = None,
                 head_timeout_s: float | None = None, **uvicorn_options: Any) -> None:
        """Must be made in the loop that serves. The limits default to this module's, read now, not at import
        (the tests shorten the deadline and shrink the limits)."""
        self.host = host
        self.port = port
        self.guard_key = guard_key  # the setting that moves the address, for a port in use
        self.throttled = Throttled(log)
        self.doorman = Doorman(asyncio.get_running_loop(), self.throttled, who=who,
                               per_address=PER_ADDRESS if per_address is None else per_address,
                               total=TOTAL if total is None else total,
                               head_timeout_s=HEAD_TIMEOUT_S if head_timeout_s is None else head_timeout_s)
        out_of_files.install()
        # a page's socket carries the server's pictures; what a browser sends on it is a few bytes at most (uvicorn's
        # default, 16 MB a message and 32 queued, is half a gigabyte a connection on a Pi)
        uvicorn_options.setdefault("ws_max_size", 4096)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", http=protocol_for(self.doorman),
                                lifespan="off", access_log=False, proxy_headers=False, server_header=False,
                                timeout_graceful_shutdown=GRACE_S, **uvicorn_options)
        self.server = _TableServer(config)
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        sock = listen(self.host, self.port, self.guard_key, self.doorman.who)
        sock.doorman = self.doorman
        self.port = int(sock.getsockname()[1])
        self.task = asyncio.create_task(self.server.serve(sockets=[sock]))
        while not self.server.started:
            if self.task.done():
                self.task.result()
                raise OSError(f"{self.doorman.who} did not start")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self.server.should_exit = True
        self.server.stopping.set()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self.task


