"""The hall's web page (the hall's TV, anyone's phone on the club network): Starlette on uvicorn, one page with
no build step and nothing fetched from the internet, kept live over a web socket. Chinese by default, English
with ``?lang=en``.

``GET /`` the page · ``GET /state`` the snapshot as JSON · ``WS /ws`` a snapshot on every change ·
``POST /waiting`` {name} · ``DELETE /waiting/{name}`` · ``POST /send`` {key}: the organiser's actions. With
``[hall] organiser_code`` set, those three need it (``code`` in the JSON body, from the page's ``?code=``); a
client that keeps guessing it is locked out for a while. Without a code they are taken only from the hall's own
machine (a loopback client): the page is on the club network for everyone to look at, and a guest's phone must
not empty the waiting list or send members to a room (docs/security.md).

"The hall's own machine" is also where the hall TV's browser shows other sites' pages, so a loopback client is not
enough: every request must name the hall (its ``Host`` one of the hall's names or the address it reached, else
421: a DNS-rebinding page cannot read ``/state``), and every action must come from the hall's own page (no
``Origin`` of another site, no ``Sec-Fetch-Site: cross-site``) with a JSON body (``application/json``, which a page
on another site cannot send without the browser asking first), read with a size and a depth limit
(controller/web/safejson.py). Each refusal is one line in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.hall.service import HallError, HallService
from controller.rules.variant import builtin_ids, load_variant
from controller.web.guarded import GuardedServer
from controller.web.hosts import HostGuard, Throttled, cross_site, default_names
from controller.web.safejson import BadBody, read_object

log = logging.getLogger(__name__)

PAGE = Path(__file__).with_name("page.html")


#: Wrong codes a client may send in a row before it is refused for :data:`LOCKOUT_S` seconds (a 4-digit code
#: would otherwise be guessed from a phone in minutes).
MAX_WRONG = 5
LOCKOUT_S = 60.0
#: The largest body an action sends (a name, a proposal's key, the code).
MAX_BODY = 2048


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


def side_words() -> str:
    """The built-in variants' ``[words.sides]`` as the page's script reads them (variant -> side ID -> [zh,
    en]): a room's winner in its version's words (狼人 after a werewolf board). A club's own variant file, which the
    hall does not have, is shown with the words its table sent with the result (``winner_words``)."""
    table = {vid: {side: list(pair) for side, pair in load_variant(vid).words.get("sides", {}).items()}
             for vid in builtin_ids()}
    return json.dumps({vid: words for vid, words in table.items() if words}).replace("</", "<\\/")


def create_app(service: HallService, *, organiser_code: str | None = None, names: frozenset[str] | None = None,
               clock: Callable[[], float] = time.monotonic) -> Starlette:
    """The hall's page and calls. ``names``: the ``Host`` names answered (default: :func:`default_names` of a hall
    on loopback)."""
    page = PAGE.read_text(encoding="utf-8")
    sides = side_words()
    gate = OrganiserGate(organiser_code, clock)
    refusals = Throttled(log, clock)

    async def index(request: Request) -> Response:
        lang = "en" if request.query_params.get("lang") == "en" else "zh"
        return HTMLResponse(page.replace("__LANG__", lang).replace("__SIDE_WORDS__", sides),
                            headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> Response:
        return JSONResponse(service.snapshot())

    async def body(request: Request) -> dict[str, Any]:
        client = request.client.host if request.client is not None else "?"
        if cross_site(request):
            refusals.warning(client, f"cross-site {request.url.path}", f"hall: {request.method} {request.url.path} from {client} refused: "
                             f"it came from another site's page (Origin {request.headers.get('origin')!r})")
            raise CrossSite()
        try:
            data = await read_object(request, max_bytes=MAX_BODY)
        except BadBody as bad:
            refusals.warning(client, f"body {request.method} {request.url.path}", f"hall: {request.method} {request.url.path} from {client} refused: "
                                             f"{bad.en}")
            raise
        server = request.scope.get("server") or ("", 0)
        gate.check(request.client.host if request.client is not None else "", data.get("code"), str(server[0]))
        return data

    def acted(fn: Any) -> Any:
        async def handler(request: Request) -> Response:
            try:
                return JSONResponse(await fn(request) or {"ok": True})
            except OrganiserRefused as exc:
                return JSONResponse({"error": str(exc), "why": exc.code}, status_code=403)
            except CrossSite:
                return JSONResponse({"error": "refused: this request did not come from the hall's own page",
                                     "why": "cross_site"}, status_code=403)
            except BadBody as bad:
                return JSONResponse({"error": bad.en}, status_code=bad.status)
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
        if cross_site(ws):
            client = ws.client.host if ws.client is not None else "?"
            refusals.warning(client, "cross-site", f"hall: a socket from {client} refused: it came from another "
                                                   f"site's page (Origin {ws.headers.get('origin')!r})")
            await ws.close(code=1008)
            return
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
            # the page may be gone already, or the server stopping under it: nothing is left to tell it
            with contextlib.suppress(RuntimeError, WebSocketDisconnect):
                await ws.close()

    app = Starlette(routes=[
        Route("/", index), Route("/state", state),
        Route("/waiting", acted(add), methods=["POST"]),
        Route("/waiting/{name}", acted(remove), methods=["DELETE"]),
        Route("/send", acted(send), methods=["POST"]),
        WebSocketRoute("/ws", live),
    ])
    app.add_middleware(HostGuard, names=names if names is not None else default_names("127.0.0.1"), who="hall",
                       key="[hall] http_names", log=refusals)
    return app


async def open_page(service: HallService, host: str, port: int, *, organiser_code: str | None = None,
                    names: Sequence[str] = ()) -> GuardedServer:
    """The hall's page on ``host``:``port``, started, behind the judge's console's deadlines and limits
    (controller/web/guarded.py): unfinished requests from the club's Wi-Fi cannot take it down. It answers to
    ``host``, this machine's names and ``names`` (``[hall] http_names``)."""
    app = create_app(service, organiser_code=organiser_code, names=default_names(host, *names))
    server = GuardedServer(app, host, port, who="hall's page", log=log, guard_key="[hall] http_host")
    await server.start()
    return server


class CrossSite(Exception):
    """An action sent by another site's page (its ``Origin``, or the browser's ``Sec-Fetch-Site``)."""
