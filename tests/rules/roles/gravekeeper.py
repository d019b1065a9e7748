"""A 守墓人 (gravekeeper), defined here and nowhere else: each night he learns the side of the player voted out the
day before. The proof that a new role is one ability module plus a variant file (docs/architecture.md, "Add a
role"): tests/rules/test_add_a_role.py registers this module, reads ``gravekeeper-2.0.toml`` beside it and plays
games with it; no file of the engine, the bots or the director knows this role.

"Yesterday": the most recent player voted out, unless the gravekeeper read that player last night (his step is
``not_twice_running``, so after a day that voted nobody out he is not woken at all).
"""

from __future__ import annotations

from controller.rules.ability import Ability, register, unregister
from controller.rules.state import GameState

NAME = "read_grave"


def voted_out_last(s: GameState, actors: tuple[int, ...]) -> tuple[int, ...]:
    """The player most recently voted out (C3: an execution), dead by now; nobody before the first vote."""
    for seat, cause in reversed(s.dead):
        if cause.startswith("executed"):
            return (seat,)
    return ()


def side_of(s: GameState, target: int) -> str:
    """What the gravekeeper learns: the side of the card the player held."""
    return s.side_of(target)


def install() -> Ability:
    """Register the gravekeeper's ability (before its variant file is read)."""
    return register(Ability(NAME, ("C3",), choose="custom", choices=voted_out_last, learns="custom", learn=side_of,
                            not_twice_running=True, answers=("good", "killers")))


def uninstall() -> None:
    unregister(NAME)
