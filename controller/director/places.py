"""D2 (seed 001's 5.0, both cards live): a table of N seats played as 2N places.

The engine counts every card as a place of its own (player k holds places 2k-1 and 2k), so that each card acts
in its role, is targeted and votes. The table still has one seat per *player*: one screen, one LED, one set of
buttons. :class:`PlaceTable` puts the physical table behind the ``Table`` port with one "seat" per place, so the
director plays D2 exactly as any other version, and decides per physical seat which of its two places the seat
is acting for now:

- the first of its places (card 1, then card 2) that the director waits for (``wants``: a night choice not yet
  made, a hand not yet raised in the vote);
- else the first of its places still in the game, so a player whose first card died sees the second card's
  screen;
- else card 1 (both cards dead: the seat shows that it is out).

The seat's screen and LED show that place's view, and its buttons act for it. At a deal with cards nothing is
dealt yet, so every place is "in the game" and a seat acts for card 1's place: both cards the player taps reach
that place, and the director fills the seat's two places from them, card 1 then card 2 (card_deal.py). A player holding two killer cards
therefore points twice in the kill step (card 1's victim, OK, then card 2's), and a player with two living cards
raises a hand twice in a vote to give both votes (once per call, or twice for one candidate: each press is the
next card's hand). Nothing of the other place leaks: a seat only ever shows views of its own two cards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PIL import Image

from controller.ports import LED_OFF, RGB, Button, ButtonEvent, CardEvent, InputEvent, LinkEvent, Sink
from controller.voice.prompts import MAX_COUNT, MAX_PLACE, MAX_SEAT, prompt, seat_number

#: The most card places a D2 table plays. The voice names a place as its seat and card (:class:`PlaceVoice`), and
#: every living card votes and may raise its hand for any card (its own included), so one place may get a hand
#: from every place: the packs count votes up to MAX_COUNT (one per place) and name seats up to MAX_SEAT.
MAX_PLACES = min(MAX_COUNT, MAX_PLACE, 2 * MAX_SEAT)


def check_table(variant: str, places: int) -> None:
    """Refuse a D2 table with more card places than the voice can count votes for, saying why and what to do."""
    if places > MAX_PLACES:
        raise ValueError(
            f"{variant}: {places // 2} players hold {places} card places, and every living card votes, so one card "
            f"may get {places} hands; the voice counts votes up to {MAX_COUNT}: play at most {MAX_PLACES // 2} "
            f"players (more needs number.{MAX_COUNT + 1}..number.{places} in the voice packs)")


def seat_of(place: int) -> int:
    """The physical seat (the player) holding card place ``place``."""
    return (place + 1) // 2


def places_of(seat: int) -> tuple[int, int]:
    """The two card places of physical seat ``seat``: card 1, card 2."""
    return 2 * seat - 1, 2 * seat


class PlaceScreen:
    """One place's screen and LED as the director sees them: kept, and shown on the seat while it acts for it."""

    def __init__(self, number: int, table: PlaceTable) -> None:
        self.number = number
        self._table = table
        self.image: Image.Image | None = None
        self.led: RGB = LED_OFF
        #: Every LED colour the director set for this place (the secrecy property reads it).
        self.led_history: list[RGB] = []

    def display(self, image: Image.Image) -> None:
        self.image = image
        self._table.show(seat_of(self.number))

    def set_led(self, rgb: RGB) -> None:
        if rgb != self.led:
            self.led_history.append(rgb)
        self.led = rgb
        self._table.show(seat_of(self.number))


class PlaceTable:
    """The ``Table`` port over a physical table (``physical``: seats 1..N, a remote, ``start``/``stop``), with
    places 1..2N. ``wants(place)`` and ``alive(place)`` come from the director once it exists (:meth:`follow`)."""

    def __init__(self, physical: Any) -> None:
        self.physical = physical
        self._places = {p: PlaceScreen(p, self) for seat in physical.seats for p in places_of(seat)}
        self._sink: Sink | None = None
        self.wants: Callable[[int], bool] = lambda _place: False
        self.alive: Callable[[int], bool] = lambda _place: True
        #: The place each physical seat last showed (tests and the remote read it).
        self.shown: dict[int, int] = {}
        self._sent: dict[int, Image.Image] = {}

    def follow(self, wants: Callable[[int], bool], alive: Callable[[int], bool]) -> None:
        self.wants, self.alive = wants, alive

    # ---- the Table port --------------------------------------------------------------------------------------
    @property
    def seats(self) -> Mapping[int, PlaceScreen]:
        return self._places

    @property
    def remote(self) -> Any:
        return self.physical.remote

    def start(self, sink: Sink) -> None:
        self._sink = sink
        self.physical.start(self._route)

    def stop(self) -> None:
        self.physical.stop()
        self._sink = None

    # ---- which place a seat acts for ---------------------------------------------------------------------------
    def acting(self, seat: int) -> int:
        places = places_of(seat)
        for p in places:
            if self.wants(p):
                return p
        return next((p for p in places if self.alive(p)), places[0])

    def show(self, seat: int) -> None:
        """Send the seat what its acting place shows (only what changed: the adapter skips equal frames)."""
        place = self._places[self.acting(seat)]
        screen = self.physical.seats[seat]
        if place.image is not None and self._sent.get(seat) is not place.image:
            screen.display(place.image)
            self._sent[seat] = place.image
        screen.set_led(place.led)
        self.shown[seat] = place.number

    def _route(self, event: InputEvent) -> None:
        """A physical seat's input, handed on as its acting place's; a link event concerns both places."""
        if self._sink is None:
            return
        if isinstance(event, (ButtonEvent, CardEvent)):
            place = self.acting(event.seat)
            routed: InputEvent = (ButtonEvent(place, event.button, event.pressed, event.at)
                                  if isinstance(event, ButtonEvent) else
                                  CardEvent(place, event.uid, event.present, event.at))
            self._sink(routed)
        elif isinstance(event, LinkEvent) and event.seat:
            for p in places_of(event.seat):
                self._sink(LinkEvent(p, event.up, event.at, event.reason))
        else:
            self._sink(event)
        for seat in self.physical.seats:  # whom each seat acts for may have changed (a card picked, voted)
            self.show(seat)

    # ---- the bots' fingers (they think per place; the press lands on the place's seat) --------------------------
    def click(self, place: int, button: Button) -> None:
        self.physical.click(seat_of(place), button)

    def tap(self, place: int, uid: str) -> None:
        self.physical.tap(seat_of(place), uid)


_CARD = (prompt("card.first"), prompt("card.second"))


def place_parts(prompts: Sequence[str]) -> list[str]:
    """The director names places as seats ("seat.13"); the room hears the seat and the card ("7号 第一张牌")."""
    out: list[str] = []
    for p in prompts:
        if p.startswith("seat."):
            place = int(p[5:])
            out += [*seat_number(seat_of(place)), _CARD[(place - 1) % 2]]
        else:
            out.append(p)
    return out


class PlaceVoice:
    """The voice behind a :class:`PlaceTable`: says every place as its seat and card, and is otherwise the voice
    it wraps (durations included, so the director still opens a vote window exactly when a call ends)."""

    def __init__(self, voice: Any) -> None:
        self._voice = voice

    def duration(self, prompts: Sequence[str]) -> float:
        return float(self._voice.duration(place_parts(prompts)))

    def say(self, prompts: Sequence[str], *, urgent: bool = False) -> float:
        return float(self._voice.say(place_parts(prompts), urgent=urgent))

    def masking(self, on: bool) -> None:
        self._voice.masking(on)

    def beep(self, kind: str = "warning") -> None:
        self._voice.beep(kind)

    def __getattr__(self, name: str) -> Any:  # the wrapped voice's extras (run, said, prompts_said, ...)
        return getattr(self._voice, name)
