"""The game state: a value the engine never changes once handed out, rebuilt exactly by folding the events
(engine.fold)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from mypy_extensions import mypyc_attr

from controller.rules.events import Acted, Opened
from controller.rules.record import Record, dataclass_view
from controller.rules.setup import GameConfig
from controller.rules.variant import RoleSpec

#: Constants (Final): compiled code reads them directly, not by name from the module at every use.
EMPTY: Final[Mapping[Any, Any]] = MappingProxyType({})
NO_MARKS: Final[MappingProxyType[str, int]] = MappingProxyType({})

#: W10 marks (controller/rules/sheriff.py): the sheriff's seat (0: none); the election's state (0 due, the night
#: it was put off on, -1 over); ``candidate:<seat>`` 1 while the seat runs. Here, with the state, because the apply
#: functions (tx.py) write them and the rule modules read them.
SHERIFF: Final = "sheriff"
ELECTION: Final = "sheriff.election"
CANDIDATE: Final = "candidate:"

#: The fields of a :class:`GameState`, in order.
FIELDS = ("config", "roles", "alive", "phase", "night", "day", "waiting", "agenda", "picks", "reasked", "queue",
          "acts", "night_dead", "speech_order", "direction", "defence", "tie", "lastwords_given", "marks",
          "penalties", "winner", "end_reason", "seed", "dead", "cards")


#: A settled night action of the current night is kept as its own Acted event (the event holds every field the
#: rules ask: step, ability, actors, target, how, result), not copied into another record at every night step.
Act = Acted

#: What the engine waits for is the Opened event that opened the step (kind, step, seats, choices, group, role,
#: ability), kept as it is rather than copied at every step; see events.Opened for the kinds.
Waiting = Opened


@mypyc_attr(acyclic=True)
class TieState(Record):
    """V2.7: the tie procedure under way (which stage, among whom)."""

    __match_args__ = ("procedure", "stage", "tied")
    procedure: Final[str]
    stage: Final[int]
    tied: Final[tuple[int, ...]]

    def __init__(self, procedure: str, stage: int, tied: tuple[int, ...]) -> None:
        self.procedure = procedure
        self.stage = stage
        self.tied = tied


dataclass_view(TieState)


# Acyclic like the records (record.py); compiled, the one state freed at each step is kept for the next draft
# (free_list_len) instead of going back to the allocator.
@mypyc_attr(acyclic=True, free_list_len=1)
class GameState:
    """One moment of a game. Never changed once the engine has handed it out: :func:`engine.step` copies the
    state it is given once (:meth:`draft`), applies the input's events to that copy field by field, and returns
    the copy, so ``step(state, input) -> (state, events)`` stays pure from the outside and ``fold(events)``
    rebuilds an equal state. (It was a named tuple rebuilt whole for every event: the simulator's main cost.)
    The engine's apply functions are the only code that assigns a field, and only on its own draft; a field's
    value is itself never mutated (containers are replaced, not changed), so a draft shares them safely.
    """

    __slots__ = ("config", "roles", "alive", "phase", "night", "day", "waiting", "agenda", "picks", "reasked",  # noqa: RUF023
                 "queue", "acts", "night_dead", "speech_order", "direction", "defence", "tie", "lastwords_given",
                 "marks", "penalties", "winner", "end_reason", "seed", "dead", "cards")

    config: GameConfig
    roles: tuple[str, ...]
    alive: frozenset[int]
    #: setup | night | day | over
    phase: str
    night: int
    day: int
    waiting: Waiting | None
    agenda: tuple[Any, ...]
    #: C6 picks of the open night step, or the hands of the open vote: seat -> target.
    picks: Mapping[int, int | None]
    reasked: bool
    #: Speakers still to come in the open speech step; ``queue[0]`` is speaking.
    queue: tuple[int, ...]
    acts: tuple[Act, ...]
    night_dead: tuple[int, ...]
    speech_order: tuple[int, ...]
    direction: int
    defence: tuple[int, ...]
    tie: TieState | None
    lastwords_given: int
    #: Ability bookkeeping, e.g. "checks_used", "spent:7" (V3.3). Read it with :meth:`mark`.
    marks: MappingProxyType[str, int]
    penalties: Mapping[int, int]
    winner: str | None
    end_reason: str
    seed: int | None
    #: Everyone who died, in order, with the cause (public: the fact; causes are secret until the end).
    dead: tuple[tuple[int, str], ...]
    #: D1 (dual-card versions): each seat's cards still to play, the current one first ("doctor#2" names a numbered
    #: copy); ``roles`` holds the current card's role. Empty in the single-card versions.
    cards: tuple[tuple[str, ...], ...]

    def __init__(self, config: GameConfig, roles: tuple[str, ...] = (), alive: frozenset[int] = frozenset(), phase:
                 str = "setup", night: int = 0, day: int = 0, waiting: Waiting | None = None, agenda: tuple[Any, ...]
                 = (), picks: Mapping[int, int | None] = EMPTY, reasked: bool = False, queue: tuple[int, ...] = (),
                 acts: tuple[Act, ...] = (), night_dead: tuple[int, ...] = (), speech_order: tuple[int, ...] = (),
                 direction: int = 0, defence: tuple[int, ...] = (), tie: TieState | None = None, lastwords_given: int
                 = 0, marks: MappingProxyType[str, int] = NO_MARKS, penalties: Mapping[int, int] = EMPTY, winner: str | None =
                 None, end_reason: str = "", seed: int | None = None, dead: tuple[tuple[int, str], ...] = (), cards:
                 tuple[tuple[str, ...], ...] = ()) -> None:
        self.config = config
        self.roles = roles
        self.alive = alive
        self.phase = phase
        self.night = night
        self.day = day
        self.waiting = waiting
        self.agenda = agenda
        self.picks = picks
        self.reasked = reasked
        self.queue = queue
        self.acts = acts
        self.night_dead = night_dead
        self.speech_order = speech_order
        self.direction = direction
        self.defence = defence
        self.tie = tie
        self.lastwords_given = lastwords_given
        self.marks = marks
        self.penalties = penalties
        self.winner = winner
        self.end_reason = end_reason
        self.seed = seed
        self.dead = dead
        self.cards = cards

    def draft(self) -> GameState:
        """A copy for the engine to apply one step's events to (the one copy a step makes)."""
        return GameState(self.config, self.roles, self.alive, self.phase, self.night, self.day, self.waiting,
                         self.agenda, self.picks, self.reasked, self.queue, self.acts, self.night_dead,
                         self.speech_order, self.direction, self.defence, self.tie, self.lastwords_given, self.marks,
                         self.penalties, self.winner, self.end_reason, self.seed, self.dead, self.cards)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (self.config == other.config and self.roles == other.roles and self.alive == other.alive and self.phase
                == other.phase and self.night == other.night and self.day == other.day and self.waiting ==
                other.waiting and self.agenda == other.agenda and self.picks == other.picks and self.reasked ==
                other.reasked and self.queue == other.queue and self.acts == other.acts and self.night_dead ==
                other.night_dead and self.speech_order == other.speech_order and self.direction == other.direction and
                self.defence == other.defence and self.tie == other.tie and self.lastwords_given ==
                other.lastwords_given and self.marks == other.marks and self.penalties == other.penalties and
                self.winner == other.winner and self.end_reason == other.end_reason and self.seed == other.seed and
                self.dead == other.dead and self.cards == other.cards)

    __hash__ = None  # type: ignore[assignment]  # equal by value, and the maps it holds are not hashable

    def __repr__(self) -> str:
        return "GameState(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS) + ")"

    # --- queries every layer uses -------------------------------------------------------------------------
    def mark(self, key: str) -> int:
        """An ability's bookkeeping (``marks``), 0 when unset. A membership test and an index, not ``get``: compiled,
        these are two C calls where a method call on a mapping costs several times more, and the 4.0 day asks
        at every turn whether a player is silenced."""
        marks = self.marks
        return marks[key] if key in marks else 0  # noqa: SIM401 (see above)

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


def set_fields(s: GameState, **changes: Any) -> None:
    """Assign ``changes`` on the engine's draft ``s`` (the rare events; the frequent ones assign directly)."""
    for name, value in changes.items():
        setattr(s, name, value)


def evolve(s: GameState, **changes: Any) -> GameState:
    """``s`` with ``changes``, as a new state (``s`` is left as it is)."""
    new = s.draft()
    set_fields(new, **changes)
    return new
