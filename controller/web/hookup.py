"""How the live table takes the console on (controller/live.py calls these few functions, and only when the
console is switched on, so a table without it imports none of the web stack)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from controller.web import certificate
from controller.web.access import Access
from controller.web.console import Console, ConsoleSettings, lan_address
from controller.web.server import ConsoleServer

if TYPE_CHECKING:
    from controller.config import Config


#: The door of each fixed address this process served: ``tianhei serve`` plays game after game, each with its own
#: console, and a phone paired for the first game stays paired for the next (its page reconnects by itself).
_DOORS: dict[tuple[str, int], Access] = {}


async def open_console(config: Config, loop: asyncio.AbstractEventLoop) -> tuple[Console, ConsoleServer]:
    """Serve the console on ``[console]`` host:port from now on; the first pairing code goes on the log."""
    lang = "en" if config.table.language.startswith("en") else "zh"
    settings: ConsoleSettings = config.console
    access = None
    if settings.port:  # port 0 (any free port) is a new address each time: nothing to carry over
        access = _DOORS.setdefault((settings.host, settings.port), Access(
            code_ttl_s=settings.code_ttl_s, session_ttl_s=settings.session_ttl_s, phones=settings.phones))
    console = Console(settings, loop, lang=lang, access=access, certificate=certificate_for(config))
    from controller.web.recorder import Recorder

    console.recorder = Recorder(config)
    server = ConsoleServer(console)
    await server.start()
    return console, server


def certificate_for(config: Config) -> certificate.Certificate | None:
    """The certificate the console serves: None with ``tls = false``; the club's own ``cert`` and ``key``; else
    the table's own beside the journal (made the first time), naming every address the table may be reached at."""
    settings: ConsoleSettings = config.console
    found = certificate.where(settings.tls, settings.cert, settings.key, config.journal.path)
    if found is None:
        return None
    cert, key, own = found
    if not own:
        return certificate.load(cert, key)
    hosts = [settings.host, lan_address()]
    if settings.url:
        hosts.append(urlsplit(settings.url).hostname or "")
    return certificate.own(cert.parent, hosts)
