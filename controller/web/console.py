"""The judge's console: the state the web pages share, on the table's loop.

It knows the director (once dealt) or the lobby (check-in), the sessions (:mod:`access`) and the pages listening
on web sockets. The adapters call :meth:`Console.changed` whenever the director draws the judge's screen or the
board; that only bumps a version and wakes the sockets, so the director's step is not held up: each socket then
builds (once per language and version, shared by every phone) and sends its view on its own time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from controller.config.settings import ConsoleSection as ConsoleSettings
from controller.web.access import Access
from controller.web.adapters import ConsoleBoard, ConsoleRemote, ConsoleTable
from controller.web.certificate import Certificate
from controller.web.views import judge_view, public_view

if TYPE_CHECKING:
    from controller.director.director import Director
    from controller.director.lobby import Lobby
    from controller.ports import Board, Table
    from controller.web.doorman import Doorman
    from controller.web.recorder import Recorder

log = logging.getLogger(__name__)

#: How long the handheld says "phone paired" after a phone paired.
PAIRED_NOTICE_S = 10.0
#: Over HTTPS, while a phone may pair, the handheld's bottom line shows the code and the start of the certificate's
#: fingerprint in turn, this long each (the judge compares the fingerprint with the phone's warning page).
BANNER_TURN_S = 3.0


def lan_address() -> str:
    """This machine's address on the club's network (the one a packet to the LAN would leave from); loopback
    when there is no network. Nothing is sent: a UDP socket is only pointed somewhere."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


class Console:
    def __init__(self, settings: ConsoleSettings, loop: asyncio.AbstractEventLoop, *, lang: str = "zh",
                 access: Access | None = None, certificate: Certificate | None = None) -> None:
        self.settings = settings
        #: The certificate served (HTTPS), or None for plain HTTP (``[console] tls = false``).
        self.certificate = certificate
        self.loop = loop
        self.lang = lang
        self.access = access or Access(code_ttl_s=settings.code_ttl_s, session_ttl_s=settings.session_ttl_s,
                                       phones=settings.phones)
        self.access.log = lambda text: log.info("%s", text)
        self.access.listeners.append(self._access_changed)
        self.director: Director | None = None
        self.lobby: Lobby | None = None
        self.remote: ConsoleRemote | None = None
        self.board: ConsoleBoard | None = None
        self.facts: Mapping[str, object] | None = None
        #: The recording page's takes and pack (controller/web/recorder.py); None: no recording page.
        self.recorder: Recorder | None = None
        self.port = settings.port
        self._url: str | None = None
        self.version = 0
        self._views: dict[tuple[str, str], tuple[int, str]] = {}
        #: One event per open socket: set when there is something new to send.
        self.wakers: set[asyncio.Event] = set()
        self._code_timer: asyncio.TimerHandle | None = None
        self._turn_timer: asyncio.TimerHandle | None = None
        self._paired_until = 0.0
        self._phones = len(self.access.sessions(loop.time()))  # a door carried over may have phones already
        #: Who holds a connection open (controller/web/doorman.py), once the server listens.
        self.doorman: Doorman | None = None
        #: Counters for the benchmark: views built, messages sent.
        self.built = 0
        self.sent = 0

    def close(self) -> None:
        """The table stops: this console stops listening to the door (which may serve the next game's)."""
        if self._access_changed in self.access.listeners:
            self.access.listeners.remove(self._access_changed)
        if self._code_timer is not None:
            self._code_timer.cancel()
            self._code_timer = None
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None

    # ---- the table's adapters ------------------------------------------------------------------------------
    def wrap(self, table: Table) -> ConsoleTable:
        """The table as the director and the lobby should see it: the console is (another) remote."""
        self.remote = ConsoleRemote(table.remote, self.changed, self.banner)
        return ConsoleTable(table, self.remote, self.loop, self.revoke_at_table, self.settings.revoke_hold_s)

    def board_for(self, hardware: Board | None) -> ConsoleBoard:
        self.board = ConsoleBoard(hardware, self._facts, self.pairing)
        return self.board

    def watch(self, director: Director) -> None:
        self.director = director
        self.changed()

    def watch_lobby(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.changed()

    # ---- pairing as the room sees it ---------------------------------------------------------------------
    @property
    def url(self) -> str:
        """The address a phone opens (the QR code on the board): ``[console] url``, else this machine's LAN
        address and the port listened on (worked out once: the board asks at every redraw)."""
        if self.settings.url:
            return self.settings.url
        if self._url is None or not self._url.endswith(f":{self.port}/"):
            host = self.settings.host
            if host in ("0.0.0.0", "::", ""):
                host = lan_address()
            if ":" in host:
                host = f"[{host}]"
            self._url = f"{self.scheme}://{host}:{self.port}/"
        return self._url

    @property
    def scheme(self) -> str:
        return "https" if self.certificate is not None else "http"

    def code(self) -> str | None:
        return self.access.code(self.loop.time())

    def pairing(self) -> dict[str, object] | None:
        """What the board shows while a phone may pair: the code and the address (drawn as a QR code too), and the
        start of the certificate's fingerprint, which the judge compares with the one the phone shows."""
        code = self.code()
        if code is None:
            return None
        shown: dict[str, object] = {"code": code, "url": self.url}
        if self.certificate is not None:
            shown["fingerprint"] = self.certificate.short
        return shown

    def banner(self) -> str | None:
        """The handheld's bottom line: the code while a phone may pair (over HTTPS in turn with the start of the
        certificate's fingerprint); for a few seconds after one paired, that it did (a judge who did not pair it
        holds BACK)."""
        code = self.code()
        if code is not None:
            if self.certificate is not None and int(self.loop.time() // BANNER_TURN_S) % 2:
                return self.certificate.short
            return f"手机配对 {code}" if self.lang == "zh" else f"phone code {code}"
        if self.loop.time() < self._paired_until:
            return "手机已配对" if self.lang == "zh" else "phone paired"
        return None

    def open(self) -> None:
        """Called once the server listens: the first code goes on the board and the log."""
        code = self.code()
        log.info("judge's console at %s%s", self.url, f" (pairing code {code})" if code else "")
        self._turn()
        if self.certificate is not None:
            log.info("judge's console certificate%s %s, SHA-256 fingerprint %s (the phone warns once: compare "
                     "this with the fingerprint it shows, then accept)", " made now:" if self.certificate.made
                     else ":", self.certificate.cert, self.certificate.fingerprint)

    def _turn(self) -> None:
        """The handheld's line turns between the code and the fingerprint while a code is shown (HTTPS only)."""
        self._turn_timer = None
        if self.certificate is None or self.code() is None:
            return  # _access_changed starts the turns again when a code is shown again
        if self.remote is not None:
            self.remote.banner_changed()
        now = self.loop.time()
        self._turn_timer = self.loop.call_at((now // BANNER_TURN_S + 1) * BANNER_TURN_S + 0.001, self._turn)

    def _access_changed(self) -> None:
        phones = len(self.access.sessions(self.loop.time()))
        if phones > self._phones:  # a phone paired: say so on the handheld for a moment
            self._paired_until = self.loop.time() + PAIRED_NOTICE_S
            self.loop.call_at(self._paired_until + 0.01, self._access_changed)
        self._phones = phones
        if self._code_timer is not None:
            self._code_timer.cancel()
            self._code_timer = None
        if phones < self.access.phones:
            # the code on show expires: the board and the remote get the next one when it does
            self._code_timer = self.loop.call_at(self.access.code_expires() + 0.01, self._access_changed)
        if self.remote is not None:
            self.remote.banner_changed()
        if self._turn_timer is None:
            self._turn()
        if self.board is not None:
            self.board.pairing_changed()
        self.changed()

    def revoke_at_table(self) -> None:
        n = self.access.revoke_all(self.loop.time())
        log.info("judge's console: the judge held BACK: %d phone(s) signed out", n)

    # ---- what the pages are sent ---------------------------------------------------------------------------
    def _facts(self, facts: Mapping[str, object]) -> None:
        if facts != self.facts:
            self.facts = facts
            self.changed()

    def changed(self) -> None:
        """Something a page shows may have changed: wake the sockets (cheap; nothing is built here)."""
        self.version += 1
        for ev in self.wakers:
            ev.set()

    def message(self, kind: str, lang: str) -> str:
        """The JSON for a ``judge`` or ``public`` socket in ``lang``, built once per version."""
        cached = self._views.get((kind, lang))
        if cached is not None and cached[0] == self.version:
            return cached[1]
        self.built += 1
        view: dict[str, Any]
        if kind == "judge":
            view = judge_view(self.director, lang, lobby=self.lobby,
                              phones=len(self.access.sessions(self.loop.time())))
        else:
            view = public_view(self.facts, lang)
        text = json.dumps(view, ensure_ascii=False, separators=(",", ":"))
        self._views[(kind, lang)] = (self.version, text)
        return text
