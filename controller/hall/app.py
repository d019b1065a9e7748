"""Putting the hall together from the configuration: the store, the voice, the service, the broker link, the web
page. ``tianhei hall`` and ``tianhei club-demo`` both land here."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.config import Config
from controller.hall.announce import Announcer
from controller.hall.mqtt import BrokerAddress
from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from controller.ports import Voice

log = logging.getLogger(__name__)


class SetupError(Exception):
    """Something in the hall's set-up is missing; the message says what and how to fix it."""


def read_password(path: str | None, user: str) -> str | None:
    if path is None:
        return None
    try:
        return Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SetupError(f"[mqtt] password_file {path}: cannot read the password of {user!r} ({exc.strerror}); "
                         f"write it there (systemd/install-broker.sh does) or fix the path") from None


def broker_address(config: Config, user: str) -> BrokerAddress:
    m = config.mqtt
    username = m.username or user
    tls = m.tls_on()  # config check has made sure a TLS link has its CA
    return BrokerAddress(m.host, m.tls_port if tls else m.port, username, read_password(m.password_file, username),
                         m.cafile if tls else None)


def hall_voices(languages: Sequence[str], adapter: str = "pygame") -> list[Voice]:
    """One voice per language, through the table's voice adapter; silent (still timed) without a sound device."""
    from controller.voice.factory import open_voice

    voices = []
    for lang in languages:
        try:
            voices.append(open_voice(adapter, lang))
        except Exception as exc:  # no audio device: the hall still shows the announcement
            log.warning("hall: no sound for %s (%s); the announcement is only shown", lang, exc)
            voices.append(open_voice("null", lang))
    return voices


def build_service(config: Config, *, voices: Sequence[Voice] | None = None, store: HallStore | None = None,
                  auto_send: bool | None = None) -> HallService:
    rooms = [RoomConfig(str(r["id"]), int(r.get("seats", 16)), str(r.get("kind", "standard")))  # type: ignore[call-overload]
             for r in config.hall.rooms]
    from controller.club.scoring import parse_scoring

    announcer = Announcer(voices if voices is not None else hall_voices(config.hall.languages))
    scoring, _ = parse_scoring(config.club.scoring, config.club.levels)  # config check reports its problems
    return HallService(store or HallStore(config.hall.db), config.mqtt.club, rooms, announcer=announcer,
                       auto_send=config.hall.auto_send if auto_send is None else auto_send, scoring=scoring)


async def serve(service: HallService, broker: BrokerAddress, stop: asyncio.Event, *, host: str, port: int,
                organiser_code: str | None = None, web: bool = True, names: Sequence[str] = ()) -> None:
    """The broker link and the web page until ``stop`` is set (or the web server quits). The page answers to
    ``host``, this machine's names and ``names`` (``[hall] http_names``), behind the judge's console's deadlines
    and limits (controller/web/guarded.py): unfinished requests from the club's Wi-Fi cannot take it down. A port
    in use is a :class:`~controller.web.guarded.ListenError` (one line), before anything else starts."""
    server = None
    if web:
        from controller.hall.web import open_page

        server = await open_page(service, host, port, organiser_code=organiser_code, names=names)
    tasks: list[asyncio.Task[Any]] = [asyncio.create_task(service.run_mqtt(broker, stop))]
    for voice in service.announcer.voices if service.announcer is not None else ():
        run = getattr(voice, "run", None)
        if run is not None:
            tasks.append(asyncio.create_task(run()))
    waiter = asyncio.create_task(stop.wait())
    try:
        page = [server.task] if server is not None and server.task is not None else []
        await asyncio.wait([waiter, *page], return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.set()
        waiter.cancel()
        for t in tasks:
            t.cancel()
        if server is not None:
            await server.stop()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
