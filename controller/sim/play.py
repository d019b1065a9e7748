"""One person at the simulated table: ``tianhei table --seat 3`` plays seat 3 in the window while bots play the
others.

What a player of seat 3 may see is what a real seat 3 sees: its own screen, LED and buttons, the public board,
and what the table says (the transcript). Hiding the rest is the window's part (controller/sim/emulator.py draws
only the seat played); keeping the bots' fingers off that seat is :class:`OtherHands`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from controller.ports import Button


class OtherHands:
    """The bots' hands on every seat but the ones people play (``people``: physical seat numbers). ``seat_of``
    maps what the bots press (a card place, in dual-card-5.0) to the physical seat it belongs to."""

    def __init__(self, table: Any, people: set[int], seat_of: Callable[[int], int] = lambda n: n) -> None:
        self.wrapped = table
        self.people = people
        self.seat_of = seat_of

    def _theirs(self, seat: int) -> bool:
        return self.seat_of(seat) not in self.people

    def click(self, seat: int, button: Button) -> None:
        if self._theirs(seat):
            self.wrapped.click(seat, button)

    def tap(self, seat: int, uid: str) -> None:
        if self._theirs(seat):
            self.wrapped.tap(seat, uid)

    def __getattr__(self, name: str) -> Any:  # everything else is the table's (isinstance checks aside)
        return getattr(self.wrapped, name)


def card_labels(uids: Sequence[str]) -> list[tuple[str, str]]:
    """Face-down cards for the window's tray, labelled by their place in it (the role stays hidden)."""
    return [(uid, str(i)) for i, uid in enumerate(uids, start=1)]


def untapped(hands: dict[int, tuple[str, ...]], tapped: dict[int, tuple[str, ...]] | None
             ) -> dict[int, tuple[str, ...]]:
    """The cards the bots still have to lay on their readers. A game resumed after its deal has every card it was
    dealt with in the journal (``Replay.cards``): tapping them again would only flash each seat's role on its
    screen and write a line per card in the transcript. Cards are matched by UID, whoever tapped them (in D2 a
    seat's two cards are dealt to its two places)."""
    done = {uid for cards in (tapped or {}).values() for uid in cards}
    left = {seat: tuple(uid for uid in cards if uid not in done) for seat, cards in hands.items()}
    return {seat: cards for seat, cards in left.items() if cards}


async def tap_in_turn(table: Any, hands: dict[int, tuple[str, ...]], people: set[int], start_s: float = 1.0,
                      every_s: float = 0.5) -> None:
    """The bots lay their cards on their readers one after another, as players do around a table; the seats
    people play wait for them to drag their own."""
    await asyncio.sleep(start_s)
    for seat, cards in sorted(hands.items()):
        if seat in people:
            continue
        for uid in cards:
            table.tap(seat, uid)
            await asyncio.sleep(every_s)
