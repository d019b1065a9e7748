"""uvicorn inside the table's own event loop, beside the director (no thread, no second process).

Two changes to uvicorn's defaults, both for a Pi Zero sitting under a table all evening: it does not take the
process's signals (the table decides when to stop), and its housekeeping tick runs once a second instead of ten
times (an idle table should sleep). ``X-Forwarded-For`` is not believed: the rate limit counts the real address.

Every connection is watched from the moment it is accepted (controller/web/guarded.py, doorman.py): a deadline
for each request, a limit per address and in all, and room made by closing connections that are still waiting,
never the judge's; uvicorn's own ``limit_concurrency`` (which answers everyone 503 alike) is off. The hall's and
the league's pages are served the same way.

With a certificate (``[console] tls``, the default) the port speaks TLS only. A plain ``http://`` request to it is
not answered, not even with a redirect: a redirect sent in the clear could as well be forged by whoever is on the
Wi-Fi, a second plain-HTTP port would be one more thing listening on the Pi, and the addresses the table gives
out (the QR code, the board, the log) all say ``https://``. The browser shows that the site sent no answer.
"""

from __future__ import annotations

import asyncio
import logging

from controller.web import guarded
from controller.web.app import make_app
from controller.web.console import Console
from controller.web.guarded import GuardedServer, ListenError

__all__ = ["HEAD_TIMEOUT_S", "PER_ADDRESS", "TOTAL", "ConsoleServer", "ListenError"]

log = logging.getLogger("controller.web.console")
#: The console's limits are the guarded server's (controller/web/guarded.py); named here for the console's tests,
#: which shorten the deadline and shrink the limits.
HEAD_TIMEOUT_S, PER_ADDRESS, TOTAL = guarded.HEAD_TIMEOUT_S, guarded.PER_ADDRESS, guarded.TOTAL


class ConsoleServer:
    """Serve ``console`` on its host and port (port 0: any free one; :attr:`port` tells which)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        settings = self.console.settings
        tls = self.console.certificate
        self.guarded = GuardedServer(make_app(self.console), settings.host, settings.port, who="judge's console",
                                     log=log, per_address=PER_ADDRESS, total=TOTAL, head_timeout_s=HEAD_TIMEOUT_S,
                                     ws="websockets-sansio", ws_max_size=4096,
                                     ssl_certfile=tls.cert if tls else None, ssl_keyfile=tls.key if tls else None)
        self.doorman = self.console.doorman = self.guarded.doorman
        await self.guarded.start()
        self.console.port = self.guarded.port
        self.server, self.task = self.guarded.server, self.guarded.task
        self.console.open()

    async def stop(self) -> None:
        self.console.close()
        if self.task is not None:
            await self.guarded.stop()
