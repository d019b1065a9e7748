"""Seat geometry, defined once for every order rule (V2.4, V2.5, V4.7).

Seats are numbered 1..N **clockwise** as seen from above the table. A player faces the centre, so the clockwise
neighbour sits on their *left* and the **right-hand neighbour** of seat ``k`` is seat ``k - 1`` (seat N for seat
1). Going **counter-clockwise** therefore means going down the seat numbers: 5, 4, 3, 2, 1, N, ...

Seed 004 §3.15 ("由被杀者右手边第一人开始") starts the speeches at the victim's right-hand neighbour and goes on
counter-clockwise, which with this convention is simply "down the seat numbers from victim - 1".
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
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


@functools.lru_cache(maxsize=1024)
def order_from(start: int, direction: int, players: int, among: frozenset[int]) -> tuple[int, ...]:
    """The seats of ``among`` in table order, beginning at ``start`` (or the first of ``among`` after it).

    Remembered (a pure function of hashable values): every vote and every V4.8 turn asks for the order of the same
    living players, which change only with a death, and a frozenset keeps its hash once computed."""
    ordered = sorted(among)
    if direction < 0:  # down the seat numbers: start, start-1, ..., 1, N, ..., start+1
        i = bisect_right(ordered, start)
        return (*reversed(ordered[:i]), *reversed(ordered[i:]))
    i = bisect_left(ordered, start)  # up the seat numbers: start, start+1, ..., N, 1, ..., start-1
    return (*ordered[i:], *ordered[:i])


def in_seat_order(seats: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(seats))
