"""The game state: immutable, rebuilt exactly by folding the events (engine.fold)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from controller.rules.events import Acted, Opened
from controller.rules.record import record
from controller.rules.setup import GameConfig
from controller.rules.variant import RoleSpec

EMPTY: Mapping[Any, Any] = MappingProxyType({})


#: A settled night action of the current night is kept as its own Acted event (the event holds every field the
#: rules ask: step, ability, actors, target, how, result), not copied into another record at every night step.
Act = Acted

#: What the engine waits for is the Opened event that opened the step (kind, step, seats, choices, group, role,
#: ability), kept as it is rather than copied at every step; see events.Opened for the kinds.
Waiting = Opened


@record
class TieState:
    procedure: str
    stage: int
    tied: tuple[int, ...]


class GameState(NamedTuple):
    """Immutable (a tuple): every change makes a new state through :func:`evolve`, one per event. A tuple
    because the engine makes one for every event, and copying a tuple is several times cheaper than
    ``dataclasses.replace`` on a 27-field frozen dataclass (see benchmarks/simulate_speed.py)."""

    config: GameConfig
    roles: tuple[str, ...] = ()
    alive: frozenset[int] = frozenset()
    phase: str = "setup"  # setup | night | day | over
    night: int = 0
    day: int = 0
    waiting: Waiting | None = None
    agenda: tuple[Any, ...] = ()
    #: C6 picks of the open night step, or the hands of the open vote: seat -> target.
    picks: Mapping[int, int | None] = EMPTY
    reasked: bool = False
    #: Speakers still to come in the open speech step; ``queue[0]`` is speaking.
    queue: tuple[int, ...] = ()
    acts: tuple[Act, ...] = ()
    night_dead: tuple[int, ...] = ()
    speech_order: tuple[int, ...] = ()
    direction: int = 0
    defence: tuple[int, ...] = ()
    tie: TieState | None = None
    lastwords_given: int = 0
    #: Ability bookkeeping, e.g. "checks_used", "spent:7" (V3.3).
    marks: Mapping[str, int] = EMPTY
    penalties: Mapping[int, int] = EMPTY
    winner: str | None = None
    end_reason: str = ""
    seed: int | None = None
    #: Everyone who died, in order, with the cause (public: the fact; causes are secret until the end).
    dead: tuple[tuple[int, str], ...] = ()
    #: D1 (dual-card versions): each seat's cards still to play, the current one first ("doctor#2" names a
    #: numbered copy); ``roles`` holds the current card's role. Empty in the single-card versions.
    cards: tuple[tuple[str, ...], ...] = ()

    # --- queries every layer uses -------------------------------------------------------------------------
    def role_of(self, seat: int) -> str:
        return self.roles[seat - 1]

    def spec(self, seat: int) -> RoleSpec:
        return self.config.variant.roles[self.roles[seat - 1]]

    def side_of(self, seat: int) -> str:
        return self.config.variant.roles[self.roles[seat - 1]].side

    def living(self) -> tuple[int, ...]:
        return tuple(sorted(self.alive))

    def living_with(self, roles: tuple[str, ...] | frozenset[str]) -> tuple[int, ...]:
        return tuple(s for s in sorted(self.alive) if self.roles[s - 1] in roles)

    def partners(self, seat: int) -> tuple[int, ...]:
        """The seats a player knows as partners (V2.2 recognition), the dead included."""
        if not self.spec(seat).knows_partners:
            return ()
        mine = self.roles[seat - 1]
        return tuple(i + 1 for i, r in enumerate(self.roles) if r == mine and i + 1 != seat)

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def over(self) -> bool:
        return self.phase == "over"




_INDEX = {name: i for i, name in enumerate(GameState._fields)}
_tuple_new = tuple.__new__

#: Field positions for the engine's few hottest apply functions (one per event of every night and vote):
#: copying the tuple to a list and writing by position costs half of what :func:`evolve`'s keyword arguments
#: cost (benchmarks/simulate_speed.py). Everything else uses :func:`evolve`.
ALIVE, PHASE, NIGHT, DAY, WAITING, AGENDA, PICKS, REASKED, ACTS, MARKS, NIGHT_DEAD, SPEECH_ORDER, DIRECTION, \
    DEFENCE, TIE, DEAD = (_INDEX[name] for name in (
        "alive", "phase", "night", "day", "waiting", "agenda", "picks", "reasked", "acts", "marks", "night_dead",
        "speech_order", "direction", "defence", "tie", "dead"))


#: A state from a full list of field values in field order (``list(state)`` with some positions changed); a
#: partial of ``tuple.__new__`` rather than a def, which would add a Python call to every event.
from_list: Callable[[list[Any]], GameState] = functools.partial(_tuple_new, GameState)


def evolve(s: GameState, **changes: Any) -> GameState:
    """``s`` with ``changes``: the engine's one way to make a new state."""
    values = list(s)
    for name, value in changes.items():
        values[_INDEX[name]] = value
    return _tuple_new(GameState, values)
