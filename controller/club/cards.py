"""Member cards at a table that is dealing or playing: "a member card, not a role card", and nothing changes.

A member who taps their member card on the reader during the deal (or later) must not disturb the game: the
director would call it an unknown card, say so aloud and show it to the judge. This adapter sits between the
table and the director (a Table around a Table, like controller/director/places.py): a member card never reaches
the director; the seat that read it shows a short notice for a few seconds, then what it showed before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PIL import Image

from controller.director.clock import Handle, Scheduler
from controller.ports import RGB, CardEvent, InputEvent, Remote, Seat, Sink, Table
from controller.screens import views as v
from controller.screens.render import render

NOTICE_S = 3.0


class _Seat:
    """A seat that remembers its last image, so a notice can be taken down again."""

    def __init__(self, seat: Seat) -> None:
        self.inner = seat
        self.last: Image.Image | None = None
        self.covered = False

    @property
    def number(self) -> int:
        return self.inner.number

    def __getattr__(self, name: str) -> Any:  # the adapter's own (the sim seat's frames, image, ...)
        return getattr(self.inner, name)

    def display(self, image: Image.Image) -> None:
        self.last = image
        if not self.covered:
            self.inner.display(image)

    def set_led(self, rgb: RGB) -> None:
        self.inner.set_led(rgb)


class MemberCardGuard:
    def __init__(self, table: Table, is_member_card: Callable[[str], bool], clock: Scheduler,
                 lang: str = "zh") -> None:
        self.inner = table
        self.is_member_card = is_member_card
        self.clock = clock
        self.lang = lang
        self._seats = {n: _Seat(s) for n, s in table.seats.items()}
        self._timers: dict[int, Handle] = {}
        #: (seat, uid) of every member card kept from the game, for the judge's log and tests.
        self.kept: list[tuple[int, str]] = []

    def __getattr__(self, name: str) -> Any:  # the sim adapter's hands (press, tap, ...) pass through
        return getattr(self.inner, name)

    @property
    def seats(self) -> Mapping[int, _Seat]:
        return self._seats

    @property
    def remote(self) -> Remote | None:
        return self.inner.remote

    def start(self, sink: Sink) -> None:
        def filtered(event: InputEvent) -> None:
            if isinstance(event, CardEvent) and self.is_member_card(event.uid):
                if event.present:
                    self.clock.call_at(self.clock.now(), lambda: self._notice(event.seat, event.uid))
                return
            sink(event)

        self.inner.start(filtered)

    def stop(self) -> None:
        for handle in self._timers.values():
            handle.cancel()
        self.inner.stop()

    def _notice(self, seat: int, uid: str) -> None:
        """On the scheduler's loop (a reader's thread never draws)."""
        port = self._seats.get(seat)
        if port is None:
            return
        self.kept.append((seat, uid))
        port.covered = True
        port.inner.display(render(v.Message(v.L10n("会员卡", "Member card"),
                                            v.L10n("不是身份牌", "not a role card")),
                                  self.lang))
        if seat in self._timers:
            self._timers[seat].cancel()
        self._timers[seat] = self.clock.call_at(self.clock.now() + NOTICE_S, lambda: self._restore(seat))

    def _restore(self, seat: int) -> None:
        port = self._seats[seat]
        port.covered = False
        self._timers.pop(seat, None)
        if port.last is not None:
            port.inner.display(port.last)
