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
=================  ======  =============================================================================

Every call that changes something must come from the table's own pages: the browser's ``Origin`` must be the
address it asked (a page on another site is refused before anything is read), the session cookie is SameSite
Strict, HttpOnly and (over HTTPS, the default) Secure, commands carry the session's CSRF token in a header and a counter that must grow. Every
response forbids framing and caching; pages load nothing but their own files (no inline script, nothing from the
internet).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.web import commands
from controller.web.access import Paired, Refusal
from controller.web.console import Console

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "tianhei_judge"
CSRF_HEADER = "x-tianhei-csrf"
#: The largest request body read (a command is a few dozen bytes).
MAX_BODY = 2048
#: Open sockets at most (a room of players with the public page open, and the judge): more are turned away, so a
#: flood of connections cannot eat the Pi's memory.
MAX_SOCKETS = 64

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                                 b"style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
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


async def read_json(request: Request) -> dict[str, Any] | Refusal:
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return Refusal(413, "request too large", "请求过大")
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return Refusal(400, "the request is not JSON", "请求不是 JSON")
    if not isinstance(data, dict):
        return Refusal(400, "the request must be a JSON object", "请求必须是 JSON 对象")
    return data


def make_app(console: Console) -> Starlette:
    access = console.access

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
        data = await read_json(request)
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
        data = await read_json(request)
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

    async def stream(ws: WebSocket, kind: str, allowed: Callable[[], bool]) -> None:
        """Send ``kind``'s view now and whenever it changes, until the phone goes or is no longer allowed."""
        lang = "en" if ws.query_params.get("lang") == "en" else "zh"
        if len(console.wakers) >= MAX_SOCKETS:
            await ws.close(code=1013)  # try again later
            return
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
        if not same_origin(ws) or access.session(token, now()) is None:
            await ws.close(code=4401)
            return
        await stream(ws, "judge", lambda: access.session(token, now()) is not None)

    async def public_socket(ws: WebSocket) -> None:
        await stream(ws, "public", lambda: True)  # the board's view: the whole room may see it

    routes = [
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
    app.add_middleware(SecurityHeaders)
    return app
