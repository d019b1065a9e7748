"""The hall's web page (the hall's TV, anyone's phone on the club network): Starlette on uvicorn, one page with
no build step and nothing fetched from the internet, kept live over a web socket. Chinese by default, English
with ``?lang=en``.

``GET /`` the page · ``GET /state`` the snapshot as JSON · ``WS /ws`` a snapshot on every change ·
``POST /waiting`` {name} · ``DELETE /waiting/{name}`` · ``POST /send`` {key}: the organiser's actions. With
``[hall] organiser_code`` set, those three need it (``code`` in the JSON body, from the page's ``?code=``); a
client that keeps guessing it is locked out for a while. Without a code they are taken only from the hall's own
machine (a loopback client): the page is on the club network for everyone to look at, and a guest's phone must
not empty the waiting list or send members to a room (docs/security.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.hall.service import HallError, HallService

PAGE = Path(__file__).with_name("page.html")


#: Wrong codes a client may send in a row before it is refused for :data:`LOCKOUT_S` seconds (a 4-digit code
#: would otherwise be guessed from a phone in minutes).
MAX_WRONG = 5
LOCKOUT_S = 60.0


def on_this_machine(client: str, server: str = "") -> bool:
    """Whether a request comes from the hall's own machine: a loopback address (also IPv4 mapped into IPv6), or
    the very address it reached the hall on (a browser on the hall's Pi opening the page at its club-network
    address: TCP's handshake means no other machine can connect from that address)."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    if (mapped or address).is_loopback:
        return True
    try:
        return address == ipaddress.ip_address(server)
    except ValueError:
        return False


class OrganiserRefused(PermissionError):
    """An organiser action refused: ``code`` says why, for the page to say it in its language."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class OrganiserGate:
    """Who may use the organiser's buttons: with a code, whoever sends it (a client that sent :data:`MAX_WRONG`
    wrong ones in a row waits :data:`LOCKOUT_S`); without one, only the hall's own machine."""

    def __init__(self, code: str | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.code = code or None
        self.clock = clock
        self._wrong: dict[str, tuple[int, float]] = {}

    def check(self, client: str, given: object, server: str = "") -> None:
        if self.code is None:
            if not on_this_machine(client, server):
                raise OrganiserRefused("organiser_code_unset",
                                       "the organiser's buttons work only on the hall's own machine until [hall] "
                                       "organiser_code is set in tianhei.toml (then open the page with ?code=...)")
            return
        count, since = self._wrong.get(client, (0, 0.0))
        if count >= MAX_WRONG and self.clock() - since < LOCKOUT_S:
            raise OrganiserRefused("organiser_locked", f"too many wrong codes: wait {LOCKOUT_S:.0f} seconds")
        if hmac.compare_digest(str(given if given is not None else "").encode(), self.code.encode()):
            self._wrong.pop(client, None)
            return
        count = 0 if count >= MAX_WRONG else count  # a lockout served: counting starts again
        self._wrong[client] = (count + 1, self.clock())
        raise OrganiserRefused("organiser_code_needed",
                               "the organiser's code is needed for this: open the page with ?code=...")


def create_app(service: HallService, *, organiser_code: str | None = None,
               clock: Callable[[], float] = time.monotonic) -> Starlette:
    page = PAGE.read_text(encoding="utf-8")
    gate = OrganiserGate(organiser_code, clock)

    async def index(request: Request) -> Response:
        lang = "en" if request.query_params.get("lang") == "en" else "zh"
        return HTMLResponse(page.replace("__LANG__", lang), headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> Response:
        return JSONResponse(service.snapshot())

    async def body(request: Request) -> dict[str, Any]:
        try:
            data = await request.json()
        except ValueError:
            raise HallError("send JSON, like {\"name\": \"Ada\"}") from None
        if not isinstance(data, dict):
            raise HallError("send a JSON object")
        server = request.scope.get("server") or ("", 0)
        gate.check(request.client.host if request.client is not None else "", data.get("code"), str(server[0]))
        return data

    def acted(fn: Any) -> Any:
        async def handler(request: Request) -> Response:
            try:
                return JSONResponse(await fn(request) or {"ok": True})
            except OrganiserRefused as exc:
                return JSONResponse({"error": str(exc), "why": exc.code}, status_code=403)
            except HallError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
        return handler

    async def add(request: Request) -> dict[str, Any]:
        data = await body(request)
        service.add_waiting(str(data.get("name", "")))
        return {"ok": True}

    async def remove(request: Request) -> dict[str, Any]:
        await body(request)
        service.remove_waiting(request.path_params["name"])
        return {"ok": True}

    async def send(request: Request) -> dict[str, Any]:
        data = await body(request)
        p = service.send(str(data.get("key", "")))
        return {"ok": True, "room": p.room, "members": list(p.members)}

    async def live(ws: WebSocket) -> None:
        await ws.accept()
        changed = asyncio.Event()
        changed.set()
        service.listeners.append(changed.set)
        try:
            while True:
                await changed.wait()
                changed.clear()
                await ws.send_json(service.snapshot())
                await asyncio.sleep(0.2)  # at most five pictures a second, whatever the rooms send
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            service.listeners.remove(changed.set)
            with contextlib.suppress(RuntimeError):
                await ws.close()

    return Starlette(routes=[
        Route("/", index), Route("/state", state),
        Route("/waiting", acted(add), methods=["POST"]),
        Route("/waiting/{name}", acted(remove), methods=["DELETE"]),
        Route("/send", acted(send), methods=["POST"]),
        WebSocketRoute("/ws", live),
    ])
