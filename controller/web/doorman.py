"""Who may hold a connection to the console open, and for how long before it says what it wants.

uvicorn (0.55 here) has no deadline for a request's head: its keep-alive timer starts only after a response, so a
connection that sends nothing, or half a header line, is held for ever; over TLS, asyncio gives the handshake a
minute. Its one limit, ``limit_concurrency``, counts every open connection alike, so 140 such connections from
the club's Wi-Fi made the server answer the paired judge's own requests with 503 for as long as they stayed open.

So the console's listening socket checks every connection as it is accepted, below TLS (a handshake that never
ends is counted too), and the HTTP protocol tells it when a request's head (and body) has arrived:

- **a deadline**: a connection must deliver a whole request within :attr:`Doorman.head_timeout_s` of being
  accepted (the TLS handshake included), and again after each response while it is kept alive; otherwise it is
  closed;
- **per address**: at most :attr:`Doorman.per_address` connections open from one address (a phone's browser
  opens six or so); more are closed as they come;
- **in all**: at most :attr:`Doorman.total`; a new connection beyond it makes room by closing one that is still
  waiting for its request (from the address holding the most connections, its oldest first), never one whose
  request is being answered or a web socket, and **never a connection that carried a paired judge's request**
  (:meth:`Doorman.judge`; the judge's phone holds two, its socket and a kept-alive connection, so "the address
  holding the most" was the judge's when 250 addresses held one each). The judge's requests are whole in a few
  milliseconds, so a flood of silent connections only ever pushes out its own kind, and uvicorn's
  ``limit_concurrency`` (which would answer the judge 503) is not used.

The same doorman guards the hall's and the league's pages (controller/web/server.py, :class:`GuardedServer`).
Refusals go to the log once per reason a minute, with how many there were since the last line
(:class:`~controller.web.hosts.Throttled`): a flood from a /24 is a few lines, not one per address.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.web.hosts import Throttled


@dataclass(eq=False)
class Guest:
    """One accepted connection: its address, whether it is waiting for (the rest of) a request, since when."""

    sock: socket.socket
    address: str
    since: float
    port: int = 0
    waiting: bool = True
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    closed: bool = False
    #: Requests it sent whole (a kept-alive connection gone quiet after some is routine, not worth a line).
    requests: int = 0
    #: It carried a paired judge's request or socket: never closed to make room.
    judge: bool = False


class Doorman:
    """The limits above, for one listening socket. ``loop`` runs the deadlines; ``clock`` orders the waiting."""

    def __init__(self, loop: asyncio.AbstractEventLoop, log: Throttled, *, per_address: int = 16, total: int = 160,
                 head_timeout_s: float = 10.0, clock: Callable[[], float] = time.monotonic,
                 who: str = "judge's console") -> None:
        self.loop = loop
        #: The server's name in the log ("hall's page: …").
        self.who = who
        self.log = log
        self.per_address = per_address
        self.total = total
        self.head_timeout_s = head_timeout_s
        self.clock = clock
        self._by_address: dict[str, set[Guest]] = {}
        self._by_fd: dict[int, Guest] = {}
        #: How many connections were refused or closed, and why (for the tests and the benchmark).
        self.refused = {"address": 0, "full": 0, "deadline": 0, "evicted": 0}

    def __len__(self) -> int:
        return len(self._by_fd)

    def open_from(self, address: str) -> int:
        return len(self._by_address.get(address, ()))

    # ---- the listening socket's side -----------------------------------------------------------------------
    def admit(self, sock: socket.socket, address: str, port: int = 0) -> bool:
        """A connection was just accepted: keep it (and start its deadline) or close it now."""
        if self.open_from(address) >= self.per_address:
            self.refused["address"] += 1
            self._say("per-address", f"{address} has {self.per_address} connections open; another one is closed")
            _close(sock)
            return False
        if len(self._by_fd) >= self.total and not self._evict():
            self.refused["full"] += 1
            self._say("full", f"{self.total} connections open, every one busy; a new one from {address} is closed")
            _close(sock)
            return False
        guest = Guest(sock, address, self.clock(), port)
        self._by_fd[sock.fileno()] = guest
        self._by_address.setdefault(address, set()).add(guest)
        self._arm(guest)
        return True

    def gone(self, sock: socket.socket) -> None:
        """The connection's socket is being closed (by asyncio, whoever decided it)."""
        with contextlib.suppress(OSError):
            guest = self._by_fd.get(sock.fileno())
            if guest is not None and guest.sock is sock:
                self._forget(guest)

    def judge(self, address: str, port: int) -> None:
        """The connection from ``address``:``port`` carried a paired judge's request or socket (the console's app
        says so once it has checked the session): it is never closed to make room."""
        for guest in self._by_address.get(_plain(address), ()):
            if guest.port == port:
                guest.judge = True

    # ---- the HTTP protocol's side --------------------------------------------------------------------------
    def guest_of(self, transport: asyncio.BaseTransport) -> Guest | None:
        sock = transport.get_extra_info("socket")
        return self._by_fd.get(sock.fileno()) if sock is not None else None

    def request_whole(self, guest: Guest) -> None:
        """The connection's request (head and body) has arrived, or it became a web socket: it is answered, not
        timed out, and never pushed out for room."""
        if guest.waiting:
            guest.requests += 1
        guest.waiting = False
        if guest.timer is not None:
            guest.timer.cancel()
            guest.timer = None

    def awaiting_request(self, guest: Guest) -> None:
        """A response was sent on a kept-alive connection, or a request is still coming: it must be whole within
        the deadline (counted from now if it was busy)."""
        if not guest.waiting:
            guest.waiting = True
            guest.since = self.clock()
            self._arm(guest)

    # ---- inside -------------------------------------------------------------------------------------------
    def _arm(self, guest: Guest) -> None:
        if guest.timer is not None:
            guest.timer.cancel()
        guest.timer = self.loop.call_later(self.head_timeout_s, self._deadline, guest)

    def _deadline(self, guest: Guest) -> None:
        guest.timer = None
        if guest.waiting and not guest.closed:
            self.refused["deadline"] += 1
            if not guest.requests:
                self._say("deadline", f"a connection from {guest.address} sent no whole request within "
                                      f"{self.head_timeout_s:g} s; closed")
            self._shut(guest)

    def _evict(self) -> bool:
        """Make room: close the oldest waiting connection of the address that holds the most, never a judge's (and
        an address where the judge is gives way last: the judge's phone may be opening another)."""
        candidates = [g for g in self._by_fd.values() if g.waiting and not g.closed and not g.judge]
        if not candidates:
            return False
        judged = {g.address for g in self._by_fd.values() if g.judge}
        victim = min(candidates, key=lambda g: (g.address in judged, -self.open_from(g.address), g.since))
        self.refused["evicted"] += 1
        self._say("evicted", f"{self.total} connections open; the oldest one waiting for a request (from "
                             f"{victim.address}) is closed")
        self._shut(victim)
        return True

    def _say(self, reason: str, text: str) -> None:
        """One line per reason a minute, however many addresses take part, with the count since the last."""
        self.log.warning("*", reason, f"{self.who}: {text}")

    def _shut(self, guest: Guest) -> None:
        """End a connection asyncio owns, in any state (TLS handshake included): shut the socket down; asyncio
        reads the end of it and closes the connection the usual way. It no longer counts from now."""
        with contextlib.suppress(OSError):
            guest.sock.shutdown(socket.SHUT_RDWR)
        self._forget(guest)

    def _forget(self, guest: Guest) -> None:
        if guest.closed:
            return
        guest.closed = True
        if guest.timer is not None:
            guest.timer.cancel()
            guest.timer = None
        for fd, g in list(self._by_fd.items()):
            if g is guest:
                del self._by_fd[fd]
                break
        peers = self._by_address.get(guest.address)
        if peers is not None:
            peers.discard(guest)
            if not peers:
                del self._by_address[guest.address]


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.close()


class GuestSocket(socket.socket):
    """An accepted connection's socket: tells the doorman when asyncio closes it."""

    doorman: Doorman | None = None

    def close(self) -> None:
        if self.doorman is not None:
            self.doorman.gone(self)
        super().close()


class DoorSocket(socket.socket):
    """The listening socket: each connection it accepts is shown to the doorman first; one it refuses is closed
    and the next is taken (asyncio sees only the connections kept)."""

    doorman: Doorman | None = None

    def accept(self) -> tuple[socket.socket, Any]:
        while True:
            fd, address = self._accept()  # type: ignore[attr-defined]  # BlockingIOError when none is left
            sock = GuestSocket(self.family, self.type, self.proto, fileno=fd)
            if socket.getdefaulttimeout() is None and self.gettimeout():
                sock.setblocking(True)
            if self.doorman is None:
                return sock, address
            sock.doorman = self.doorman
            if self.doorman.admit(sock, _plain(str(address[0])), int(address[1])):
                return sock, address


def _plain(address: str) -> str:
    """An IPv4 address mapped into IPv6 (a dual-stack socket) counts as the IPv4 address."""
    return address[7:] if address.startswith("::ffff:") and "." in address else address


def protocol_for(doorman: Doorman) -> type[H11Protocol]:
    """uvicorn's h11 protocol, telling ``doorman`` when each request is whole (then it is no longer timed out or
    pushed out) and when the connection waits for the next one."""

    class GuardedH11Protocol(H11Protocol):
        guest: Guest | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.guest = doorman.guest_of(transport)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._tell()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._tell()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            if self.guest is not None:
                doorman.request_whole(self.guest)
                self.guest = None  # the socket's protocol from now on; its connection is never timed out
            super().handle_websocket_upgrade(event)

        def _tell(self) -> None:
            if self.guest is None or self.transport.is_closing():
                return
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                doorman.awaiting_request(self.guest)
            else:
                doorman.request_whole(self.guest)

    return GuardedH11Protocol
