"""The console's pages, calls and web sockets (Starlette).

=================  ======  =============================================================================
``/``              page    the public page: the board's view, for anyone in the room
``/pair``          page    type the code from the board
``/judge``         page    the judge's console (a paired phone only; anyone else is sent to ``/pair``)
``/api/pair``      POST    ``{"code": "123456"}`` -> the session cookie
``/api/command``   POST    ``{"seq": 7, "command": "eject", "args": {"seat": 5}, "confirmed": true}``
``/api/state``     GET     the judge's view once (a paired phone only)
``/api/logout``    POST    this phone signs itself out
``/ws/judge``      socket  the judge's view, sent whenever it changes (a paired phone only)
``/ws/public``     socket  the board's view, sent whenever it changes
``/record`` …      page    the club's judge records the prompts (controller/web/recorder.py)
=================  ======  =============================================================================

Every request must name the table (its ``Host`` one of the table's names or the address it reached, or it gets
421: controller/web/hosts.py). Every call that changes something must come from the table's own pages: the
browser's ``Origin`` must be the address it asked (a page on another site is refused before anything is read), the session cookie is SameSite
Strict, HttpOnly and (over HTTPS, the default) Secure, commands carry the session's CSRF token in a header and a counter that must grow. Every
response forbids framing and caching; pages load nothing but their own files (no inline script, nothing from the
internet). A call's body is JSON (``application/json``), at most :data:`MAX_BODY` bytes and a few levels deep
(controller/web/safejson.py); anything else is refused with one line in the log, never a traceback.

Web sockets have limits of their own, so no crowd can take the judge's place: the public page's sockets at most
:data:`MAX_PUBLIC_SOCKETS` in all and :data:`PUBLIC_PER_ADDRESS` from one address; the judge's are counted apart,
:data:`JUDGE_SOCKETS_PER_PHONE` for each paired phone (a few tabs), and never wait for the public ones.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.web import commands, recorder
from controller.web.access import Paired, Refusal
from controller.web.console import Console, lan_address
from controller.web.hosts import HostGuard, Throttled, default_names
from controller.web.safejson import BadBody, read_object

log = logging.getLogger("controller.web.console")

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "tianhei_judge"
CSRF_HEADER = "x-tianhei-csrf"
#: The largest request body read (a command is a few dozen bytes).
MAX_BODY = 2048
#: Public sockets open at most (a room of players with the public page open): more are turned away, so a flood
#: of connections cannot eat the Pi's memory. The judge's sockets are not among them.
MAX_PUBLIC_SOCKETS = 64
#: Public sockets from one address (a phone with the page open in a few tabs).
PUBLIC_PER_ADDRESS = 4
#: The judge's sockets for each paired phone (its tabs); a session's own, whatever the public ones do.
JUDGE_SOCKETS_PER_PHONE = 4

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                 b"style-src 'self'; script-src 'self'; media-src 'self' blob:; frame-ancestors 'none'; "
                                 b"base-uri 'none'; "
                                 b"form-action 'self'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


class JudgesConnections:
    """Tells the doorman which connections carry a paired judge's session (a request or the judge's socket), so
    that making room for others never closes them (controller/web/doorman.py)."""

    def __init__(self, app: ASGIApp, console: Console) -> None:
        self.app = app
        self.console = console

    async def __call__(self, scope: Scope, receive: Callable[[], Awaitable[Message]],
                       send: Callable[[Message], Awaitable[None]]) -> None:
        doorman = self.console.doorman
        if scope["type"] in ("http", "websocket") and doorman is not None:
            conn = HTTPConnection(scope)
            token = conn.cookies.get(COOKIE)
            if conn.client is not None and token and \
                    self.console.access.session(token, self.console.loop.time()) is not None:
                doorman.judge(conn.client.host, conn.client.port)
        await self.app(scope, receive, send)


def same_origin(conn: HTTPConnection) -> bool:
    """The browser says the request comes from a page of this very address (``Origin`` is set by the browser
    on every POST and socket, and a page cannot change it). No ``Origin`` at all: not a page of ours. The scheme
    must be the one this server speaks: over HTTPS, a page served by plain HTTP on the same host (which anyone on
    the Wi-Fi could forge) is another origin."""
    origin = conn.headers.get("origin")
    host = conn.headers.get("host")
    if not origin or not host:
        return False
    if conn.headers.get("sec-fetch-site") not in (None, "same-origin"):
        return False
    scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
    return origin == f"{scheme}://{host}"


def refused(r: Refusal) -> JSONResponse:
    headers = {"retry-after": str(int(r.retry_after) + 1)} if r.retry_after else None
    return JSONResponse(r.as_json(), status_code=r.status, headers=headers)


CROSS_SITE = Refusal(403, "refused: this request did not come from the table's own page",
                     "已拒绝：请求不是来自本桌页面")


def client_of(conn: HTTPConnection) -> str:
    return conn.client.host if conn.client is not None else "?"


async def read_json(request: Request, refusals: Throttled) -> dict[str, Any] | Refusal:
    """The call's JSON object, or the refusal to answer with (said in ``refusals``' log, one line per address and
    call a minute: a page of ours never sends such a body, so it is someone trying the table)."""
    try:
        return await read_object(request, max_bytes=MAX_BODY)
    except BadBody as bad:
        who = client_of(request)
        refusals.warning(who, request.url.path, f"judge's console: {request.method} {request.url.path} from "
                                                     f"{who} refused ({bad.status}): {bad.en}")
        return Refusal(bad.status, bad.en, bad.zh)


def names_of(console: Console) -> frozenset[str]:
    """The names the console answers to: its host, its ``url``'s, this machine's and the ``[console] names``."""
    settings = console.settings
    url = urlsplit(console.url).hostname if settings.url else None
    return default_names(settings.host, url, lan_address(), *settings.names)


def make_app(console: Console) -> Starlette:
    access = console.access
    refusals = Throttled(log)
    #: The open sockets: the public ones by address, the judge's by session.
    public: dict[str, int] = {}
    judges: dict[str, int] = {}

    def now() -> float:
        return console.loop.time()

    def page(name: str, **fields: str) -> HTMLResponse:
        text = (STATIC / name).read_text(encoding="utf-8")
        for key, value in fields.items():
            text = text.replace("{{" + key + "}}", value)
        return HTMLResponse(text)

    async def public_page(request: Request) -> Response:
        return page("public.html")

    async def pair_page(request: Request) -> Response:
        if access.session(request.cookies.get(COOKIE), now()) is not None:
            return RedirectResponse("/judge", status_code=303)
        return page("pair.html")

    async def judge_page(request: Request) -> Response:
        s = access.session(request.cookies.get(COOKIE), now())
        if s is None:
            return RedirectResponse("/pair", status_code=303)
        return page("judge.html", csrf=s.csrf, seq=str(s.last_seq))

    async def pair(request: Request) -> Response:
        if not same_origin(request):
            return refused(CROSS_SITE)
        data = await read_json(request, refusals)
        if isinstance(data, Refusal):
            return refused(data)
        result = access.pair(str(data.get("code", "")), client_of(request),
                             request.headers.get("user-agent", ""), now())
        if isinstance(result, Refusal):
            return refused(result)
        assert isinstance(result, Paired)
        response = JSONResponse({"ok": True, "phone": result.session.id, "next": "/judge"})
        # Secure over HTTPS: the browser never sends the session over plain HTTP, where the Wi-Fi could read it
        response.set_cookie(COOKIE, result.token, max_age=int(access.session_ttl_s), httponly=True,
                            samesite="strict", path="/", secure=request.url.scheme == "https")
        return response

    async def command(request: Request) -> Response:
        if not same_origin(request):
            return refused(CROSS_SITE)
        data = await read_json(request, refusals)
        if isinstance(data, Refusal):
            return refused(data)
        checked = access.check_call(request.cookies.get(COOKIE), request.headers.get(CSRF_HEADER),
                                    data.get("seq"), now())
        if isinstance(checked, Refusal):
            return refused(checked)
        args = data.get("args") or {}
        if not isinstance(args, dict):
            return refused(Refusal(400, "args must be a JSON object", "args 必须是 JSON 对象"))
        outcome = commands.run(console.director, console.lobby, str(data.get("command", "")), args,
                               data.get("confirmed") is True)
        console.changed()
        return JSONResponse(outcome.as_json(), status_code=outcome.status)

    async def state(request: Request) -> Response:
        if access.session(request.cookies.get(COOKIE), now()) is None:
            return refused(Refusal(401, "not paired", "未配对"))
        lang = "en" if request.query_params.get("lang") == "en" else "zh"
        return Response(console.message("judge", lang), media_type="application/json")

    async def logout(request: Request) -> Response:
        if not same_origin(request):
            return refused(CROSS_SITE)
        s = access.session(request.cookies.get(COOKIE), now())
        if s is None or request.headers.get(CSRF_HEADER) != s.csrf:
            return refused(Refusal(401, "not paired", "未配对"))
        access.revoke(s.id)
        response = JSONResponse({"ok": True, "next": "/pair"})
        response.delete_cookie(COOKIE, path="/", secure=request.url.scheme == "https", httponly=True,
                               samesite="strict")
        return response

    async def stream(ws: WebSocket, kind: str, allowed: Callable[[], bool], counts: dict[str, int], key: str,
                     limit: int, total: int | None = None) -> None:
        """Send ``kind``'s view now and whenever it changes, until the phone goes or is no longer allowed. At most
        ``limit`` sockets for ``key`` in ``counts`` (and ``total`` in all), counted while open."""
        lang = "en" if ws.query_params.get("lang") == "en" else "zh"
        if counts.get(key, 0) >= limit or (total is not None and sum(counts.values()) >= total):
            refusals.warning(client_of(ws), f"{kind}-sockets", f"judge's console: a {kind} socket from "
                             f"{client_of(ws)} turned away ({counts.get(key, 0)} open for it, "
                             f"{sum(counts.values())} {kind} sockets in all)")
            await ws.close(code=1013)  # try again later
            return
        counts[key] = counts.get(key, 0) + 1
        try:
            await _stream(ws, kind, lang, allowed)
        finally:
            counts[key] -= 1
            if not counts[key]:
                del counts[key]

    async def _stream(ws: WebSocket, kind: str, lang: str, allowed: Callable[[], bool]) -> None:
        await ws.accept()
        wake = asyncio.Event()
        wake.set()
        gone = False

        async def drain() -> None:
            nonlocal gone
            try:
                while True:
                    await ws.receive_text()  # pages send nothing; anything sent is ignored
            except (WebSocketDisconnect, RuntimeError):
                pass
            gone = True
            wake.set()

        console.wakers.add(wake)
        reader = asyncio.create_task(drain())
        last = ""
        try:
            while True:
                await wake.wait()
                wake.clear()
                if gone:
                    break
                if not allowed():
                    await ws.close(code=4401)
                    break
                text = console.message(kind, lang)
                if text != last:
                    await ws.send_text(text)
                    console.sent += 1
                    last = text
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            console.wakers.discard(wake)
            reader.cancel()

    async def judge_socket(ws: WebSocket) -> None:
        token = ws.cookies.get(COOKIE)
        s = access.session(token, now())
        if not same_origin(ws) or s is None:
            await ws.close(code=4401)
            return
        await stream(ws, "judge", lambda: access.session(token, now()) is not None, judges, s.id,
                     JUDGE_SOCKETS_PER_PHONE)

    async def public_socket(ws: WebSocket) -> None:
        # the board's view: the whole room may see it
        await stream(ws, "public", lambda: True, public, client_of(ws), PUBLIC_PER_ADDRESS, MAX_PUBLIC_SOCKETS)

    def record_guard(request: Request, changes: bool) -> Refusal | None:
        """The recording page's calls: a paired phone; one that changes the pack also from our own page."""
        if changes and not same_origin(request):
            return CROSS_SITE
        s = access.session(request.cookies.get(COOKIE), now())
        if s is None:
            return Refusal(401, "not paired", "未配对")
        if changes and not hmac.compare_digest(request.headers.get(CSRF_HEADER, "").encode(), s.csrf.encode()):
            return Refusal(403, "this request did not come from the judge's page", "请求不是来自法官页面")
        return None

    def csrf_of(request: Request) -> str | None:
        s = access.session(request.cookies.get(COOKIE), now())
        return s.csrf if s is not None else None

    extra = [] if console.recorder is None else recorder.routes(console.recorder, record_guard, page, refused,
                                                                 csrf_of)
    routes = [
        *extra,
        Route("/", public_page),
        Route("/pair", pair_page),
        Route("/judge", judge_page),
        Route("/api/pair", pair, methods=["POST"]),
        Route("/api/command", command, methods=["POST"]),
        Route("/api/state", state),
        Route("/api/logout", logout, methods=["POST"]),
        WebSocketRoute("/ws/judge", judge_socket),
        WebSocketRoute("/ws/public", public_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(JudgesConnections, console=console)  # inside the Host check: a judge's own requests only
    app.add_middleware(HostGuard, names=names_of(console), who="judge's console", key="[console] names",
                       log=refusals)
    app.add_middleware(SecurityHeaders)  # outermost: on every answer, the Host refusals too
    return app
