"""The transaction every rule module works on (:class:`Tx`: one input's events, applied as they are made) and
how each event changes the state (``apply``, ``fold``).

Apart from engine.py so that the rule modules (night, day, turns, cards, win) and the engine all import it and none
of them imports the engine: the engine calls the rule modules, the rule modules call only this and one another
downwards (no circle). Pure: no clock, no I/O, randomness only from the ``random.Random`` a Tx is given.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from types import MappingProxyType
from typing import Any, Final

from mypy_extensions import mypyc_attr

from controller.rules import hands
from controller.rules.actions import Rejected
from controller.rules.events import (
    Acted,
    BadgeChanged,
    Candidacy,
    CardShown,
    Dawn,
    DayBroke,
    Dealt,
    DefenceClaimed,
    Died,
    DirectionChosen,
    ElectionClosed,
    Event,
    GameCreated,
    GameEnded,
    NightFell,
    Opened,
    Penalised,
    Picked,
    Reasked,
    Spoke,
    TieRound,
    VoteClosed,
    Voted,
)
from controller.rules.setup import GameConfig
from controller.rules.state import CANDIDATE, ELECTION, EMPTY, SHERIFF, GameState, TieState
from controller.rules.variant import parse_variant
from controller.rules.variant_record import from_record

SPEECH_KINDS: Final = frozenset({"speeches", "last_words"})


# --------------------------------------------------------------------------------------------------------
# apply: events -> state. Bookkeeping only; every decision was made when the event was created.
# --------------------------------------------------------------------------------------------------------

def _created(e: GameCreated) -> GameState:
    variant = parse_variant(from_record(e.variant), e.variant_source)  # journal formats 1, 2: variant_record.py
    config = GameConfig(variant, e.players, MappingProxyType(dict(e.options)), e.composition, e.history, e.quota,
                        e.talk)
    return GameState(config=config, seed=e.seed)


# Every apply function writes the fields its event changes on the engine's draft (GameState.draft): one copy per
# input, not one whole new state per event. A field's old value is never changed in place (a new tuple, set or
# map replaces it), since the state the draft was copied from still holds it.

def _opened(s: GameState, e: Opened) -> None:
    s.waiting, s.agenda, s.picks, s.reasked = e, e.agenda, EMPTY, False
    if e.kind in SPEECH_KINDS:
        s.queue = e.seats
        if e.kind == "last_words":
            s.lastwords_given += len(e.seats)
        elif e.step == "speeches":
            s.speech_order = e.seats


def _spoke(s: GameState, e: Spoke) -> None:
    queue = tuple([x for x in s.queue if x != e.seat])
    s.queue = queue
    if not queue:
        s.waiting = None


#: Held as constants: compiled, a module global or a method is otherwise looked up by name at every use.
_PROXY: Final = MappingProxyType
#: {seat} for every seat a table may have (the D2 places included), made once: a death by day takes one out of
#: ``alive`` with a set difference, without building the one-seat set each time.
_ONE_SEAT: Final = tuple([frozenset((seat,)) for seat in range(65)])


def _merged(marks: MappingProxyType[str, int], changes: tuple[tuple[str, int], ...]) -> MappingProxyType[str, int]:
    merged = marks.copy()  # the underlying dict's own copy (dict(proxy) would go key by key)
    for key, value in changes:  # compiled, native stores (dict.update takes pairs through the generic protocol)
        merged[key] = value
    return _PROXY(merged)


def _acted(s: GameState, e: Acted) -> None:
    if e.marks:
        s.marks = _merged(s.marks, e.marks)
    s.acts = s.acts + (e,)  # noqa: RUF005 (compiled, one concatenation; unpacking builds a list first)
    s.waiting, s.picks = None, EMPTY


def _dawn(s: GameState, e: Dawn) -> None:
    dead_seats = tuple([seat for seat, _ in e.deaths])
    if e.marks:
        s.marks = _merged(s.marks, e.marks)
    s.phase, s.day, s.waiting = "day", s.day + 1, None
    # A quiet night keeps the same set of the living (a frozenset: shared, never changed); compiled, the set
    # operator costs a fraction of frozenset.difference with a tuple.
    if len(dead_seats) == 1 and 0 < dead_seats[0] < len(_ONE_SEAT):
        s.alive = s.alive - _ONE_SEAT[dead_seats[0]]
    elif dead_seats:
        s.alive = s.alive - frozenset(dead_seats)
    s.dead, s.night_dead = s.dead + e.deaths, dead_seats
    s.speech_order, s.direction, s.defence, s.tie = (), 0, (), None


def _picked(s: GameState, e: Picked | Voted) -> None:
    picks = dict(s.picks)
    picks[e.seat] = e.target
    s.picks = MappingProxyType(picks)


def _died(s: GameState, e: Died) -> None:
    seat = e.seat
    s.alive = s.alive - (_ONE_SEAT[seat] if 0 < seat < len(_ONE_SEAT) else frozenset((seat,)))
    s.dead = s.dead + ((seat, e.cause),)  # noqa: RUF005 (a concatenation, compiled)


def _card_shown(s: GameState, e: CardShown) -> None:
    s.marks = _merged(s.marks, ((f"shown:{e.seat}", 1),))
    if e.why == "self_destruct":  # W11: the day ends there, whatever it waited for (a speech, a vote)
        s.waiting, s.picks, s.queue = None, EMPTY, ()


def _night_fell(s: GameState, e: NightFell) -> None:
    s.phase, s.night, s.acts, s.waiting = "night", e.night, (), None


def _vote_closed(s: GameState, e: VoteClosed) -> None:
    s.waiting, s.picks = None, EMPTY


def _penalised(s: GameState, e: Penalised) -> None:
    pen = dict(s.penalties)
    pen[e.seat] = e.total
    s.penalties = MappingProxyType(pen)


def _tie(s: GameState, e: TieRound) -> None:
    s.tie = TieState(e.procedure, e.stage, e.tied) if e.outcome == "revote" else None


def _dealt(s: GameState, e: Dealt) -> None:
    seats = s.config.all_seats
    s.roles, s.alive = e.roles, seats if len(seats) == len(e.roles) else frozenset(range(1, len(e.roles) + 1))


def _day_broke(s: GameState, e: DayBroke) -> None:
    s.phase, s.day, s.waiting, s.night_dead, s.speech_order = "day", e.day, None, (), ()
    s.direction, s.defence, s.tie = 0, (), None


def _reasked(s: GameState, e: Reasked) -> None:
    s.picks, s.reasked = EMPTY, True


def _defence_claimed(s: GameState, e: DefenceClaimed) -> None:
    s.defence = (*s.defence, e.seat)


def _direction_chosen(s: GameState, e: DirectionChosen) -> None:
    s.direction, s.waiting = e.direction, None


def _candidacy(s: GameState, e: Candidacy) -> None:
    w = s.waiting
    if w is not None and w.kind == "candidacy":  # W10: a hand at the call to run
        picks = dict(s.picks)
        picks[e.seat] = e.seat if e.running else None
        s.picks = MappingProxyType(picks)
        return
    s.marks = _merged(s.marks, ((f"{CANDIDATE}{e.seat}", 0),))  # W10: a withdrawal (its speech ends)
    if e.seat in s.queue:
        s.queue = tuple([x for x in s.queue if x != e.seat])
        if not s.queue:
            s.waiting = None


def _election_closed(s: GameState, e: ElectionClosed) -> None:
    s.waiting, s.picks = None, EMPTY
    if e.outcome == "run":
        s.marks = _merged(s.marks, tuple([(f"{CANDIDATE}{x}", 1 if x in e.candidates else 0)
                                          for x in range(1, s.players + 1)]))
    elif e.outcome == "postponed":  # W11: held again before the next dawn
        s.marks = _merged(s.marks, ((ELECTION, s.night),))
    else:
        s.marks = _merged(s.marks, ((ELECTION, -1),))


def _badge_changed(s: GameState, e: BadgeChanged) -> None:
    s.waiting, s.picks = None, EMPTY
    s.marks = _merged(s.marks, ((SHERIFF, e.seat), (ELECTION, -1)))


def _ended(s: GameState, e: GameEnded) -> None:
    s.phase, s.winner, s.end_reason, s.waiting = "over", e.winner, e.reason, None


_APPLY: Final[dict[type, Callable[[GameState, Any], None]]] = {
    Dealt: _dealt,
    NightFell: _night_fell,
    DayBroke: _day_broke,
    Opened: _opened,
    Picked: _picked,
    Reasked: _reasked,
    Acted: _acted,
    Dawn: _dawn,
    Spoke: _spoke,
    DefenceClaimed: _defence_claimed,
    DirectionChosen: _direction_chosen,
    Voted: _picked,
    VoteClosed: _vote_closed,
    TieRound: _tie,
    Died: _died,
    CardShown: _card_shown,
    Candidacy: _candidacy,
    ElectionClosed: _election_closed,
    BadgeChanged: _badge_changed,
    Penalised: _penalised,
    GameEnded: _ended,
}
_APPLY.update(hands.APPLY)  # D1-D3: hands, first identities, a lost card


def apply(state: GameState, event: Event) -> GameState:
    """The state after ``event`` (a new state; ``state`` is left as it is)."""
    if isinstance(event, GameCreated):
        return _created(event)
    draft = state.draft()
    _APPLY[type(event)](draft, event)
    return draft


def fold(events: Iterable[Event]) -> GameState:
    """Rebuild a game's state from its events; the first must be GameCreated."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, GameCreated):
        raise ValueError("a game's events begin with game_created")
    state = _created(first)  # a fresh state nobody else holds: the events are applied to it in place
    table = _APPLY
    for event in it:
        table[type(event)](state, event)
    return state


# --------------------------------------------------------------------------------------------------------
# The transaction: one input's worth of events, applied as they are made.
# --------------------------------------------------------------------------------------------------------

# Acyclic, and the one freed kept for the next input (see GameState).
@mypyc_attr(acyclic=True, free_list_len=1)
class Tx:
    """Collects the events of one input and keeps the state they lead to. The rule modules (night, day, win)
    work on a Tx; ``agenda`` is the script still to run in this phase (tasks are tuples)."""

    __slots__ = ("agenda", "events", "rng", "s")

    def __init__(self, state: GameState, rng: random.Random | None) -> None:
        self.s = state.draft()  # the one copy of the state this input makes; the caller's stays as it was
        self.events: list[Event] = []
        self.rng = rng
        self.agenda: list[Any] = list(state.agenda)

    def emit(self, event: Event) -> None:
        self.events.append(event)
        # The frequent events by the identity of their class, each a direct call (compiled, a pointer
        # comparison): a lookup in _APPLY is a Python-level call through the apply function's wrapper.
        s = self.s
        if type(event) is VoteClosed:
            _vote_closed(s, event)
        elif type(event) is Acted:
            _acted(s, event)
        elif type(event) is NightFell:
            _night_fell(s, event)
        elif type(event) is Dawn:
            _dawn(s, event)
        elif type(event) is Died:
            _died(s, event)
        elif type(event) is Opened:
            _opened(s, event)
        elif type(event) is Dealt:
            _dealt(s, event)
        else:
            _APPLY[type(event)](s, event)

    def open(self, kind: str, step: str, seats: Sequence[int], choices: Sequence[int | None] = (),
             group: bool = False, role: str = "", ability: str = "") -> None:
        event = Opened(kind, step, tuple(seats), tuple(choices), group, tuple(self.agenda), role, ability)
        self.events.append(event)
        _opened(self.s, event)  # emit() inlined: one of every night step and every vote

    def push(self, *tasks: Any) -> None:
        """Run ``tasks`` next, before the rest of the agenda. (Called with a ``*`` at the call site, this is a
        Python-level call in the compiled rules; ``push_all`` takes the tasks as one tuple.)"""
        self.push_all(tasks)

    def push_all(self, tasks: tuple[Any, ...]) -> None:
        """Run ``tasks`` next, before the rest of the agenda: one insert per task (compiled, a slice
        assignment costs a slice object and the generic sequence protocol)."""
        agenda = self.agenda
        i = len(tasks)
        while i:
            i -= 1
            agenda.insert(0, tasks[i])

    def end(self, winner: str, reason: str) -> None:
        self.emit(GameEnded(winner, reason))

    def random(self) -> random.Random:
        if self.rng is None:
            raise Rejected("needs_rng", "this input needs a random choice; pass an rng")
        return self.rng
