"""The console as the table's adapters: one more ``Remote`` and one more ``Board``, beside the real ones.

:class:`ConsoleTable` wraps whatever table the configuration chose (sim, gpio, bus) and hands the director a
remote that is both the handheld (when there is one) and the console: every time the director draws the judge's
screen, the handheld gets the picture and the console's phones get the judge's view. The director does not know
which remote it talks to, nor how many. In the same way :class:`ConsoleBoard` stands where the HDMI board would,
tells the public pages, and passes the facts on to the real board (with the pairing code and the QR code, which
belong on the board in the room and nowhere else).

The table's own controls keep the last word: holding the handheld's BACK key for ``revoke_hold_s`` signs every
phone out and puts a fresh pairing code on the board and the remote (the judge takes the console back).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from PIL import Image

from controller.ports import Board, InputEvent, Remote, RemoteKey, RemoteKeyEvent, Seat, Sink, Table
from controller.screens.fonts import SMALL


class ConsoleRemote:
    """The ``Remote`` the director draws on: forwards to the handheld (with the pairing code laid over its
    bottom line while a phone may pair) and tells the console that the judge's view changed."""

    def __init__(self, hardware: Remote | None, changed: Callable[[], None], banner: Callable[[], str | None]) -> None:
        self.hardware = hardware
        self._changed = changed
        self._banner = banner
        self.last: Image.Image | None = None
        self._shown_banner: str | None = None

    def display(self, image: Image.Image) -> None:
        self.last = image
        self._forward()
        self._changed()

    def banner_changed(self) -> None:
        """The pairing code appeared, changed or went: redraw the handheld's last picture."""
        if self._banner() != self._shown_banner and self.last is not None:
            self._forward()

    def _forward(self) -> None:
        if self.hardware is None or self.last is None:
            return
        text = self._banner()
        self._shown_banner = text
        self.hardware.display(self.last if text is None else with_banner(self.last, text))

    def __getattr__(self, name: str) -> Any:  # the sim remote's ``image``, ``frames`` for the window and tests
        if self.hardware is None:
            raise AttributeError(name)
        return getattr(self.hardware, name)


def with_banner(image: Image.Image, text: str) -> Image.Image:
    """``image`` with ``text`` white on black across its bottom 13 pixels (the remote's last status line)."""
    out = image.convert("1").copy()
    h = SMALL.line + 1
    band = Image.new("1", (out.width, h), 1)
    SMALL.draw(band, (2, 0), text, fill=0)
    out.paste(band, (0, out.height - h))
    return out


class ConsoleBoard:
    """The ``Board`` the director shows its public facts on: the console's public pages get them as they are;
    the HDMI board (if any) gets them with the pairing code and the table's address added."""

    def __init__(self, hardware: Board | None, changed: Callable[[Mapping[str, object]], None],
                 pairing: Callable[[], Mapping[str, object] | None]) -> None:
        self.hardware = hardware
        self._changed = changed
        self._pairing = pairing
        self.facts: Mapping[str, object] | None = None

    def show(self, public: Mapping[str, object]) -> None:
        self.facts = public
        self._changed(public)
        self._forward()

    def pairing_changed(self) -> None:
        if self.facts is not None:
            self._forward()

    def _forward(self) -> None:
        if self.hardware is None or self.facts is None:
            return
        pairing = self._pairing()
        self.hardware.show(self.facts if pairing is None else {**self.facts, "pairing": dict(pairing)})


class ConsoleTable:
    """``table`` with the console as (another) remote. Everything else is the wrapped table's own."""

    def __init__(self, table: Table, remote: ConsoleRemote, loop: asyncio.AbstractEventLoop,
                 on_hold_back: Callable[[], None], revoke_hold_s: float = 3.0) -> None:
        self.inner = table
        self._remote = remote
        self._loop = loop
        self._on_hold_back = on_hold_back
        self.revoke_hold_s = revoke_hold_s
        self._hold: asyncio.TimerHandle | None = None

    @property
    def seats(self) -> Mapping[int, Seat]:
        return self.inner.seats

    @property
    def remote(self) -> ConsoleRemote:
        return self._remote

    def start(self, sink: Sink) -> None:
        def watched(event: InputEvent) -> None:
            if isinstance(event, RemoteKeyEvent) and event.key is RemoteKey.BACK:
                self._loop.call_soon_threadsafe(self._back, event.pressed)
            sink(event)

        self.inner.start(watched)

    def _back(self, pressed: bool) -> None:
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
        if pressed:
            self._hold = self._loop.call_later(self.revoke_hold_s, self._held)

    def _held(self) -> None:
        self._hold = None
        self._on_hold_back()

    def stop(self) -> None:
        if self._hold is not None:
            self._hold.cancel()
        self.inner.stop()

    def __getattr__(self, name: str) -> Any:  # press/tap/follow/physical...: the wrapped table's
        return getattr(self.inner, name)
