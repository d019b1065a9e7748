"""The hall's web page (the hall's TV, anyone's phone on the club network): Starlette on uvicorn, one page with
no build step and nothing fetched from the internet, kept live over a web socket. Chinese by default, English
with ``?lang=en``.

``GET /`` the page · ``GET /state`` the snapshot as JSON · ``WS /ws`` a snapshot on every change ·
``POST /waiting`` {name} · ``DELETE /waiting/{name}`` · ``POST /send`` {key}: the organiser's actions. With
``[hall] organiser_code`` set, those three need it (``code`` in the JSON body).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from controller.hall.service import HallError, HallService

PAGE = Path(__file__).with_name("page.html")


def create_app(service: HallService, *, organiser_code: str | None = None) -> Starlette:
    page = PAGE.read_text(encoding="utf-8")

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
        if organiser_code and not hmac.compare_digest(str(data.get("code", "")), organiser_code):
            raise PermissionError("the organiser's code is needed for this")
        return data

    def acted(fn: Any) -> Any:
        async def handler(request: Request) -> Response:
            try:
                return JSONResponse(await fn(request) or {"ok": True})
            except PermissionError as exc:
                return JSONResponse({"error": str(exc)}, status_code=403)
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
