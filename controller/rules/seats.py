"""Seat geometry, defined once for every order rule (V2.4, V2.5, V4.7).

Seats are numbered 1..N **clockwise** as seen from above the table. A player faces the centre, so the clockwise
neighbour sits on their *left* and the **right-hand neighbour** of seat ``k`` is seat ``k - 1`` (seat N for seat
1). Going **counter-clockwise** therefore means going down the seat numbers: 5, 4, 3, 2, 1, N, ...

Seed 004 §3.15 ("由被杀者右手边第一人开始") starts the speeches at the victim's right-hand neighbour and goes on
counter-clockwise, which with this convention is simply "down the seat numbers from victim - 1".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

CLOCKWISE: Final = 1
COUNTER_CLOCKWISE: Final = -1


def right_hand_neighbour(seat: int, players: int) -> int:
    """The seat on ``seat``'s right: one step counter-clockwise."""
    return players if seat == 1 else seat - 1


def left_hand_neighbour(seat: int, players: int) -> int:
    """The seat on ``seat``'s left: one step clockwise."""
    return 1 if seat == players else seat + 1


def walk(start: int, direction: int, players: int) -> list[int]:
    """Every seat once, beginning at ``start`` and moving ``direction`` (CLOCKWISE or COUNTER_CLOCKWISE)."""
    return [((start - 1 + direction * i) % players) + 1 for i in range(players)]


def next_seat(seat: int, direction: int, players: int) -> int:
    """The seat one step from ``seat`` in ``direction`` (CLOCKWISE or COUNTER_CLOCKWISE)."""
    return (seat - 1 + direction) % players + 1


class _Order:
    """One order worked out by :func:`order_from`, with what it was worked out from. Never changed once made, so
    that reading the remembered one is safe from any thread."""

    __slots__ = ("among", "direction", "players", "seats", "start")

    def __init__(self, start: int, direction: int, players: int, among: frozenset[int], seats: tuple[int, ...]) -> None:
        self.start = start
        self.direction = direction
        self.players = players
        self.among = among
        self.seats = seats


#: The last order asked for. Every V4.8 turn and every vote of a day asks for the order of the same living players
#: (the same frozenset object until a death replaces it): one comparison of four fields instead of a cache lookup
#: that hashes a key tuple (a functools.lru_cache costs a Python-level call and boxes every argument).
_last_order: Final[list[_Order]] = [_Order(0, 0, 0, frozenset(), ())]


def order_from(start: int, direction: int, players: int, among: frozenset[int]) -> tuple[int, ...]:
    """The seats of ``among`` in table order, beginning at ``start`` (or the first of ``among`` after it) and moving
    ``direction``."""
    last = _last_order[0]
    if last.among is among and last.start == start and last.direction == direction and last.players == players:
        return last.seats
    ordered = sorted(among)
    if direction < 0:
        ordered.reverse()
    i = start_index(ordered, start, direction)
    order = (*ordered[i:], *ordered[:i])
    _last_order[0] = _Order(start, direction, players, among, order)
    return order


def start_index(ordered: list[int], start: int, direction: int) -> int:
    """Where the order from ``start`` begins in ``ordered`` (seats up the seat numbers when ``direction`` is
    CLOCKWISE, down them when COUNTER_CLOCKWISE): at the first seat at or after ``start`` in that direction, so
    that ``ordered[i:] + ordered[:i]`` is the order."""
    i, n = 0, len(ordered)
    if direction < 0:  # down the seat numbers: start, start-1, ..., 1, N, ..., start+1
        while i < n and ordered[i] > start:
            i += 1
    else:  # up the seat numbers: start, start+1, ..., N, 1, ..., start-1
        while i < n and ordered[i] < start:
            i += 1
    return i


def in_seat_order(seats: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(seats))
