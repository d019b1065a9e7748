"""Win conditions (V1.4, V2.9, F3, V3.6, ...), as the variant's win table says. Checked after the dawn
resolution and after each death by day, never in the middle of one (C8).

Decision (V3.6, V4.9): when the conditions of both sides hold at the same moment, the game is a draw.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

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


def check(s: GameState) -> tuple[str, str] | None:
    config = s.config
    roles = s.roles
    living: dict[str, int] = {}
    if s.cards:  # D1/D3: every card not yet dead counts, the second cards too
        from controller.rules.cards import living_cards

        living = living_cards(s)
        present: AbstractSet[str] = living.keys()
    elif config.win_counts:
        for seat in s.alive:
            r = roles[seat - 1]
            living[r] = living.get(r, 0) + 1
        present = living.keys()
    else:  # "all dead" conditions only: which roles live is enough
        present = {roles[seat - 1] for seat in s.alive}
    hits: list[WinRow] = []
    for row, dealt in config.win_checks:
        if row.when == "all_dead":  # V1.4, V2.9: every player of these roles is out (roles never dealt: never)
            if dealt and not _any_in(row.roles, present):
                hits.append(row)
        elif _holds(s, row, living):
            hits.append(row)
    if not hits:  # the common case: nobody has won yet
        return None
    sides = {row.side for row in hits}
    reason = "; ".join(f"{row.when}:{'+'.join(row.roles)}" for row in hits)
    if len(sides) > 1 or "draw" in sides:
        return "draw", reason
    return hits[0].side, reason
