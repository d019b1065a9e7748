"""Which names a request may be addressed to, and which pages may call: the console's and the hall's first check.

**Host.** A page on another site can make the browser talk to the table without the browser noticing anything
wrong: its own name is made to resolve to the table's address (DNS rebinding), and the browser then treats the
table's answers as that site's own and lets its script read them. What gives it away is the ``Host`` header, which
still names the other site. So a request is answered only when its ``Host`` is one of the server's own names (the
configured host, ``localhost``, this machine's name and ``name.local``, the names the configuration adds) or the
very address the connection arrived at (a phone that typed the Pi's address: a rebinding page cannot send that,
since its script only knows its own name). Anything else gets 421 and one line in the log.

**Origin.** A browser says which page a call comes from (``Origin``, and ``Sec-Fetch-Site`` in today's browsers);
a page on another site cannot change either. A call whose ``Origin`` is another site, or that the browser marks as
cross-site, is refused before its body is read.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from starlette.requests import HTTPConnection

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: A refused request is said in the log once per client and reason in this many seconds (a flood is not a flood
#: of lines).
LOG_EVERY_S = 60.0


def default_names(host: str = "", *extra: str | None) -> frozenset[str]:
    """The names a server on ``host`` answers to without being told: ``host`` itself (unless it is every
    interface), loopback, this machine's name (and its ``.local`` name on the club's mDNS), and ``extra``."""
    names = {"localhost", "127.0.0.1", "::1"}
    if host and host not in ("0.0.0.0", "::"):
        names.add(host)
    try:
        me = socket.gethostname()
    except OSError:
        me = ""
    if me:
        names.update({me, me.split(".")[0], f"{me.split('.')[0]}.local"})
    names.update(name for name in extra if name)
    return frozenset(n.strip("[]").lower().rstrip(".") for n in names)


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without its port (``[::1]:8080`` -> ``::1``), lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def _same_address(name: str, local: str) -> bool:
    try:
        a, b = ipaddress.ip_address(name), ipaddress.ip_address(local)
    except ValueError:
        return False
    return (getattr(a, "ipv4_mapped", None) or a) == (getattr(b, "ipv4_mapped", None) or b)


def host_allowed(header: str | None, names: frozenset[str], local_address: str = "") -> bool:
    """Whether a request's ``Host`` is one of ``names`` or the address the connection arrived at."""
    if not header:
        return False
    name = host_name(header)
    return name in names or _same_address(name, local_address)


def cross_site(conn: HTTPConnection) -> bool:
    """The browser says this call comes from a page of another site: its ``Origin`` is not this very address
    (scheme and host), or ``Sec-Fetch-Site`` is neither same-origin nor a user's own navigation. A call with no
    ``Origin`` is no page's (a program on the network, which could send anything anyway): not cross-site."""
    site = conn.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return True
    origin = conn.headers.get("origin")
    if origin is None:
        return False
    scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
    return origin != f"{scheme}://{conn.headers.get('host', '')}"


class Throttled:
    """A logger that says a refusal once per (client, reason) in :data:`LOG_EVERY_S`, with how many there were."""

    def __init__(self, log: logging.Logger, clock: Callable[[], float] = time.monotonic) -> None:
        self.log = log
        self.clock = clock
        self._last: dict[tuple[str, str], tuple[float, int]] = {}

    def warning(self, client: str, reason: str, text: str) -> None:
        now = self.clock()
        key = (client, reason)
        last, skipped = self._last.get(key, (-LOG_EVERY_S, 0))
        if now - last < LOG_EVERY_S:
            self._last[key] = (last, skipped + 1)
            return
        if len(self._last) > 1024:  # forget the quiet ones: the table is not a log of every address ever seen
            self._last = {k: v for k, v in self._last.items() if now - v[0] < LOG_EVERY_S}
        self._last[key] = (now, 0)
        more = f" ({skipped} more like it since the last line)" if skipped else ""
        self.log.warning("%s%s", text, more)


class HostGuard:
    """ASGI middleware: a request or socket whose ``Host`` is not one of ``names`` (nor the address it arrived at)
    is refused with 421 (a socket: closed before it opens), and said in the log (``who`` names the server,
    ``key`` the setting that adds a name)."""

    def __init__(self, app: ASGIApp, names: frozenset[str], *, who: str, key: str, log: Throttled) -> None:
        self.app = app
        self.names = names
        self.who = who
        self.key = key
        self.throttled = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        header = conn.headers.get("host")
        server = scope.get("server") or ("", 0)
        if host_allowed(header, self.names, str(server[0])):
            await self.app(scope, receive, send)
            return
        client = conn.client.host if conn.client is not None else "?"
        self.throttled.warning(client, "host", f"{self.who}: refused a request from {client} for Host {header!r}: "
                                               f"not one of its names (add it to {self.key} if it is)")
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = b"this server does not answer to that name\n"
        await send({"type": "http.response.start", "status": 421,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def names_from(values: Iterable[str]) -> tuple[str, ...]:
    """Configured names as the guard compares them (lower case, no brackets, no trailing dot)."""
    return tuple(v.strip().strip("[]").lower().rstrip(".") for v in values if v.strip())
