"""How the live table takes the console on (controller/live.py calls these few functions, and only when the
console is switched on, so a table without it imports none of the web stack)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from controller.web.console import Console, ConsoleSettings
from controller.web.server import ConsoleServer

if TYPE_CHECKING:
    from controller.config import Config


async def open_console(config: Config, loop: asyncio.AbstractEventLoop) -> tuple[Console, ConsoleServer]:
    """Serve the console on ``[console]`` host:port from now on; the first pairing code goes on the log."""
    lang = "en" if config.table.language.startswith("en") else "zh"
    settings: ConsoleSettings = config.console
    console = Console(settings, loop, lang=lang)
    server = ConsoleServer(console)
    await server.start()
    return console, server
