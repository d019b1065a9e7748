"""Simulated people at the ``sim`` table, for ``--auto`` and the end-to-end tests.

They read the hint of what a script is waiting for (:attr:`controller.diag.script.Wait.hint`) and answer it
after a short, fixed delay, by pressing and tapping the sim table like a person would. Seats listed in
``absent`` never answer (a seat whose wiring is dead), so a run shows what failure looks like.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.diag.script import Wait
from controller.director.clock import Scheduler
from controller.ports import Button

REACTION_S = 0.8
#: How long a card lies on a reader before its hand lifts it (the seat bus hands' default): the next card of a
#: pile goes down on that reader only once it is free, or the lift would take the new card away with it.
CARD_LIES_S = 1.0


class Fingers(Protocol):
    """What simulated people need of a table: its seats, and buttons and readers to use. The in-memory
    ``SimTable`` has them, and so do the hands on the simulated seat bus's nodes
    (:class:`controller.sessions.bus_session.BusHands`)."""

    @property
    def seats(self) -> Mapping[int, object]: ...

    def click(self, seat: int, button: Button) -> None: ...

    def tap(self, seat: int, uid: str) -> None: ...


def card_uid(n: int) -> str:
    """A 7-byte NTAG-style UID for the ``n``-th simulated card."""
    return f"04D1A6{n:08X}"


@dataclass
class SimPeople:
    table: Fingers
    scheduler: Scheduler
    absent: Collection[int] = ()
    #: The physical deck they hold: (UID, printed role), tapped in this order during enrollment and checks.
    pile: list[tuple[str, str]] = field(default_factory=list)
    #: The UID of the n-th card they lay down (7-byte NTAG UIDs, as the decks' cards have, on every table).
    uid_of: Callable[[int], str] = field(default=lambda n: card_uid(n))
    _next_card: Iterator[int] = field(init=False)

    def __post_init__(self) -> None:
        self._next_card = iter(range(1, 1_000_000))
        self._pile_at = 0
        self._card_down: dict[int, float] = {}  # seat -> when its last card went down
        self._turn = 0  # pile cards go round the seats, as people pass the deck along

    def on_wait(self, wait: Wait) -> None:
        """A :class:`~controller.diag.script.ScriptRunner` listener."""
        answer = self._answer(wait.hint)
        if answer is not None:
            seat, action = answer
            at = self.scheduler.now() + REACTION_S
            if wait.hint[0] == "confirm":
                at += wait.hint[2]
            if wait.hint[0] in ("card", "next card"):
                at = max(at, self._card_down.get(seat, -CARD_LIES_S) + CARD_LIES_S + 0.1)
                self._card_down[seat] = at
            self.scheduler.call_at(at, action)

    def _answer(self, hint: tuple[Any, ...]) -> tuple[int, Callable[[], None]] | None:
        """The seat that answers and what it does, or None when nobody will."""
        if not hint:
            return None
        kind, seat = hint[0], hint[1]
        if seat is None:  # anyone: a seat with someone at it (the next one in turn for a pile's card)
            present = [n for n in sorted(self.table.seats) if n not in self.absent]
            if not present:
                return None
            seat = present[0]
            if kind == "next card":
                seat = present[self._turn % len(present)]
                self._turn += 1
        if seat in self.absent:
            return None
        action = self._action(kind, seat, hint)
        return None if action is None else (seat, action)

    def _action(self, kind: str, seat: int, hint: tuple[Any, ...]) -> Callable[[], None] | None:
        if kind == "confirm":
            return lambda: self.table.click(seat, Button.OK)
        if kind == "button":
            button: Button = hint[2]
            return lambda: self.table.click(seat, button)
        if kind == "card":
            return lambda: self.table.tap(seat, self.uid_of(next(self._next_card)))
        if kind == "next card":  # enrollment or check: the next card of the pile, or OK when it is done
            if self._pile_at >= len(self.pile):
                return lambda: self.table.click(seat, Button.OK)
            uid = self.pile[self._pile_at][0]
            self._pile_at += 1
            return lambda: self.table.tap(seat, uid)
        if kind == "choose":  # enrollment: move to the printed role, then OK
            uid, shown = hint[2], hint[3]
            wanted = dict(self.pile).get(uid)
            button = Button.OK if wanted == shown else Button.NEXT
            return lambda: self.table.click(seat, button)
        return None
