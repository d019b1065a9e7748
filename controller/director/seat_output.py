"""Seat output: each seat's screen and LED, sent only when it changed, and the public board.

The parts of the game only set a seat's view (:meth:`set`) or a short notice (:meth:`notice`); the refresh
decides what each seat actually shows now (paused, its own role while peeking, a notice, the view) and sends
what changed. Kept apart so that the one place a frame leaves for a seat is the one place secrecy is checked:
a role is only ever drawn on its owner's seat.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image

from controller.board.public import public_facts
from controller.director.records import SeatUI
from controller.director.seams import Parts, Setup
from controller.ports import RGB
from controller.rules.state import GameState
from controller.screens import views as v
from controller.screens.numbering import Label, plain
from controller.screens.render import render

LED_SPEAKER: RGB = (255, 255, 255)
LED_NOD: RGB = (0, 255, 0)  # V2.2: the judge nods — a killer
LED_SHAKE: RGB = (255, 0, 0)  # a shake — not a killer
LED_VOTE: RGB = (0, 0, 255)


@lru_cache(maxsize=256)
def draw(view: v.View, lang: str, label: Label = plain) -> Image.Image:
    """Render once per distinct view: a countdown tick shown on eleven listeners' screens is drawn once."""
    return render(view, lang, label=label)


def dead_view(state: GameState | None, seat: int) -> v.Dead:
    """A dead seat's screen: an ejected player is told the judge ruled them out (V2.11 §5.14/§5.15)."""
    ejected = state is not None and any(x == seat and c == "ejected" for x, c in state.dead)
    return v.Dead(seat, "ejected" if ejected else "")


class SeatOutput:
    """Each seat's screen and LED, and the public board."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.label = setup.label
        self.lang = setup.lang
        self.t = setup.t
        self.table = setup.table
        # Seats past the game's player count (a 16-seat table playing 12) stay out of the game.
        self.ui: dict[int, SeatUI] = {n: SeatUI() for n in setup.seats}
        self.led_sent: dict[int, RGB] = {}
        self.board_shown: dict[str, object] | None = None

    def set(self, seat: int, view: v.View, led: RGB | None = None) -> None:
        ui = self.ui[seat]
        ui.view = view
        if led is not None:
            ui.led = led

    def notice(self, seat: int, view: v.View, keep: bool = False) -> None:
        """A message on one seat (where the press happened), for a moment (``keep``: until replaced)."""
        ui = self.ui[seat]
        if ui.notice_handle is not None:
            ui.notice_handle.cancel()
        ui.notice = view

        def clear() -> None:
            ui.notice = None
            ui.notice_handle = None
            self.refresh()

        ui.notice_handle = None if keep else self.clock.call_at(self.clock.now() + self.t.notice_s, clear)
        self.refresh()

    def redraw(self, seat: int) -> None:
        """The seat is back: its screen and LED are sent whole on the next refresh."""
        ui = self.ui.get(seat)
        if ui is not None:
            ui.drawn = None
            self.led_sent.pop(seat, None)

    def eyes_closed(self, seat: int) -> bool:
        """Whether ``seat``'s owner sleeps now: the room was told to close its eyes (and not yet to open them),
        and the seat is not among those woken by the open window. Its screen then shows only what the game draws
        on it (dark), never a peek or a notice."""
        w = self.parts.windows.window
        if self.parts.loop.stage != "play" or not self.parts.announcer.night_shown:
            return False
        return w is None or seat not in w.seats

    def refresh(self) -> None:
        """Send every seat whatever changed since it was last drawn."""
        s = self.parts.loop.state
        for seat, ui in self.ui.items():
            view = ui.view
            if self.parts.judge.paused and not isinstance(view, v.Dead):
                view = v.Paused()
            elif self.eyes_closed(seat):
                pass  # a sleeping seat: no peek, no notice on it (a neighbour awake could read it)
            elif ui.peeking and s is not None and s.roles:
                hand = s.cards[seat - 1] if s.cards else ()
                view = v.RoleReveal(seat, s.role_of(seat), s.partners(seat), hint=False, hand=hand)
            elif ui.notice is not None:
                view = ui.notice
            if view != ui.drawn:
                self.table.seats[seat].display(draw(view, self.lang, self.label))
                ui.drawn = view
            led = ui.led if ui.local_led is None else ui.local_led
            if self.led_sent.get(seat) != led:
                self.table.seats[seat].set_led(led)
                self.led_sent[seat] = led
        self.parts.remote.remote_status()  # the judge's screen follows the game too (the deal, a death, a pause)
        if self.setup.board is not None:
            facts = public_facts(self.parts.loop.state, self.parts.loop.events, window=self.parts.windows.window,
                                 now=self.clock.now(), over=self.parts.loop.stage == "over",
                                 paused=self.parts.judge.paused)
            night = self.parts.announcer.board_night
            if night is not None and self.parts.loop.stage != "over":
                # Eyes closed until the voice says dawn: the engine may already be in the day (the police reading
                # their answer, eyes open), but the board holds the night as it fell; its deaths are told at dawn.
                facts = {**night, "gesture": "paused"} if self.parts.judge.paused else night
            if facts != self.board_shown:
                self.setup.board.show(facts)
                self.board_shown = facts
