"""Win conditions (V1.4, V2.9, F3, V3.6, ...), as the variant's win table says. Checked after the dawn
resolution and after each death by day, never in the middle of one (C8).

Decision (V3.6, V4.9): when the conditions of both sides hold at the same moment, the game is a draw.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Final

from controller.rules.hands import living_cards
from controller.rules.setup import GameConfig
from controller.rules.state import GameState
from controller.rules.variant import WinRow


def _holds(s: GameState, row: WinRow, living: dict[str, int]) -> bool:
    """The conditions other than "all dead" (that one :func:`check` tests itself: it is every death's question)."""
    roles = row.roles
    if row.when == "at_least_others":  # F3: bandits >= all others
        mine = sum(living.get(r, 0) for r in roles)
        return mine > 0 and mine >= len(s.alive) - mine
    if row.when == "only_left":  # V7.2 decision: nobody but these roles, each of them alive
        return all(living.get(r) for r in roles) and sum(living.get(r, 0) for r in roles) == len(s.alive)
    if row.when == "last_pair":  # V5.4 decision: two players of opposite sides that cannot end it
        if len(s.alive) != 2:
            return False
        a, b = s.alive
        return s.roles[a - 1] in roles and s.roles[b - 1] in roles and s.side_of(a) != s.side_of(b)
    raise ValueError(f"unknown win predicate {row.when!r}")


def _any_in(roles: tuple[str, ...], present: AbstractSet[str]) -> bool:
    """Does any of ``roles`` live? (Membership tests, compiled to a loop: cheaper than ``isdisjoint``, a method
    call on a set the compiler cannot type, after every death.)"""
    return any(r in present for r in roles)


class _Row:
    """One row of a configuration's win table, its predicate read once."""

    def __init__(self, row: WinRow, dealt: bool) -> None:
        owners = row.roles
        self.row = row
        self.roles = owners
        self.all_dead = row.when == "all_dead"
        #: (a row naming a role twice counts its players twice: :func:`_holds` does that)
        self.at_least_others = row.when == "at_least_others" and len(set(owners)) == len(owners)
        self.dealt = dealt


class _Rows:
    """The win table of one configuration (kept while its deals are checked)."""

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.rows = [_Row(row, dealt) for row, dealt in config.win_checks]


class _Deal:
    """One deal: the seats holding each role, and each win row's seats (worked out once a deal: the single-card
    games never change a seat's card, and every death asks)."""

    def __init__(self, rows: _Rows, roles: tuple[str, ...]) -> None:
        self.config = rows.config
        self.roles = roles
        self.rows = rows.rows
        seats_of: dict[str, list[int]] = {}
        for i in range(len(roles)):  # (a range: compiled to a plain loop, where enumerate is an object)
            role = roles[i]
            seats = seats_of.get(role)
            if seats is None:
                seats_of[role] = [i + 1]
            else:
                seats.append(i + 1)
        #: role -> the seats dealt it, in seat order (never changed once made: the lists are shared).
        self.seats_of = seats_of
        #: By row: the seats dealt one of its roles, in seat order.
        self.holders = [seats_holding(seats_of, r.roles) for r in self.rows]


def seats_holding(seats_of: dict[str, list[int]], owners: tuple[str, ...]) -> list[int]:
    """The seats dealt one of ``owners``' roles, in seat order, from :func:`seats_by_role` (do not change it)."""
    if len(owners) == 1:
        return seats_of.get(owners[0]) or []
    merged: list[int] = []
    for role in owners:
        seats = seats_of.get(role)
        if seats is not None:
            merged.extend(seats)
    merged.sort()
    seats = []
    last = 0
    for seat in merged:  # a role named twice
        if seat != last:
            seats.append(seat)
            last = seat
    return seats


class _Last:
    """The deal checked last (one a game; the simulator plays its games one after the other) and the win
    table it was checked against."""

    def __init__(self) -> None:
        self.deal: _Deal | None = None
        self.rows: _Rows | None = None


_LAST: Final = _Last()


def _deal(s: GameState) -> _Deal:
    d = _LAST.deal
    config = s.config
    if d is not None and d.roles is s.roles and d.config is config:
        return d
    rows = _LAST.rows
    if rows is None or rows.config is not config:
        rows = _LAST.rows = _Rows(config)
    d = _LAST.deal = _Deal(rows, s.roles)
    return d


def seats_by_role(s: GameState) -> dict[str, list[int]]:
    """role -> the seats dealt it, in seat order, for ``s``'s deal (the night's steps find their seats here
    too). Shared: do not change it."""
    return _deal(s).seats_of


def check(s: GameState) -> tuple[str, str] | None:
    if s.cards:  # D1/D3: every card not yet dead counts, the second cards too
        return _check_cards(s)
    alive = s.alive
    living: dict[str, int] | None = None
    hits: list[WinRow] = []
    d = _deal(s)
    holders = d.holders
    i = -1
    for r in d.rows:
        i += 1
        if r.all_dead:  # V1.4, V2.9: every player of these roles is out (roles never dealt: never)
            if r.dealt:
                for seat in holders[i]:
                    if seat in alive:
                        break
                else:
                    hits.append(r.row)
        elif r.at_least_others:  # F3: bandits >= all others
            mine = 0
            for seat in holders[i]:
                if seat in alive:
                    mine += 1
            if mine > 0 and mine >= len(alive) - mine:
                hits.append(r.row)
        else:
            if living is None:
                living = {}
                roles = s.roles
                for seat in alive:
                    role = roles[seat - 1]
                    living[role] = living.get(role, 0) + 1
            if _holds(s, r.row, living):
                hits.append(r.row)
    return _outcome(hits)


def _check_cards(s: GameState) -> tuple[str, str] | None:
    living = living_cards(s)
    present: AbstractSet[str] = living.keys()
    hits: list[WinRow] = []
    for row, dealt in s.config.win_checks:
        if row.when == "all_dead":
            if dealt and not _any_in(row.roles, present):
                hits.append(row)
        elif _holds(s, row, living):
            hits.append(row)
    return _outcome(hits)


def _outcome(hits: list[WinRow]) -> tuple[str, str] | None:
    """Decision (V3.6, V4.9): both sides' conditions at once is a draw."""
    if not hits:  # the common case: nobody has won yet
        return None
    sides = {row.side for row in hits}
    reason = "; ".join(f"{row.when}:{'+'.join(row.roles)}" for row in hits)
    if len(sides) > 1 or "draw" in sides:
        return "draw", reason
    return hits[0].side, reason
