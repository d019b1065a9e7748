"""The engine: ``step(state, action) -> (state, events)``, ``apply(state, event) -> state``, ``fold(events)``.

Pure: no clock, no I/O, randomness only from the ``random.Random`` passed in (and what it decides is written
into the events, so folding needs no randomness). An illegal input raises :class:`Rejected` and the caller's
state is untouched (states are immutable).

After an input is applied the engine runs the script on by itself (skipping steps nobody can act in, resolving
the dawn, checking the win conditions) until it waits for a person again; :func:`pending` says for whom.

The transaction (:class:`Tx`) and the apply functions live in tx.py, which every rule module imports: the engine
imports the rule modules and none of them imports the engine, so the rules have no import circle.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from controller.rules import cards, day, hooks, night, sheriff, turns, win
from controller.rules.actions import (
    Action,
    Ballot,
    ChooseDirection,
    Eject,
    GroupPick,
    Pass,
    Penalty,
    Pick,
    Rejected,
    SelfDestruct,
    Surrender,
    Timeout,
    Vote,
    Withdraw,
)
from controller.rules.agenda import day_agenda
from controller.rules.draws import shuffle
from controller.rules.events import (
    DayBroke,
    Dealt,
    DirectionChosen,
    Event,
    GameCreated,
    Penalised,
)
from controller.rules.record import Record, dataclass_view
from controller.rules.setup import GameConfig
from controller.rules.state import GameState, Waiting
from controller.rules.tx import SPEECH_KINDS, Tx, apply, fold  # noqa: F401 (apply, fold: still engine.apply, .fold)

# The kinds of waiting each input answers (constants: a set literal in a call would be built at every input).
_PICK_KINDS: Final = frozenset({"night", "recognition", "defence_claim", "candidacy"})
_NIGHT_KINDS: Final = frozenset({"night"})
_VOTE_KINDS: Final = frozenset({"vote"})
_PASS_KINDS: Final = frozenset({"speeches", "last_words", "recognition", "defence_claim", "candidacy"})
_DIRECTION_KINDS: Final = frozenset({"direction"})


def _run_agenda(tx: Tx) -> None:
    """Run the script on until the engine waits for someone or the game is over."""
    s = tx.s
    while s.waiting is None and s.phase != "over":
        agenda = tx.agenda
        if not agenda:
            agenda.append(("night",) if s.phase == "day" else ("dawn",))
        task: tuple[Any, ...] = agenda.pop(0)
        _run_task(tx, task)
        s = tx.s


def _run_task(tx: Tx, task: tuple[Any, ...]) -> None:
    """Run one task. The frequent ones by name, each a direct call (compiled, a call through _TASKS is a
    Python-level call that parses its arguments); test_engine_dispatch checks that each name still means the
    function called here. The rest, and any task a rule module adds, through _TASKS."""
    name: str = task[0]  # a str, so that each test below is a compiled string comparison
    if name == "night_step":
        night.task_night_step(tx, task[1])
    elif name == "defence_turns":
        turns.task_defence_turns(tx, task[1], task[2])
    elif name == "turn_vote":
        turns.task_turn_vote(tx, task[1])
    elif name == "speak_among":
        day.task_speak_among(tx, task[1], task[2])
    elif name == "night":
        night.task_night(tx)
    elif name == "dawn":
        night.task_dawn(tx)
    elif name == "vote":
        day.task_vote(tx)
    elif name == "execute":
        day.task_execute(tx, task[1])
    else:
        fn = _TASKS[name]
        n = len(task)
        if n == 1:  # most tasks take no arguments or one or two: no slice nor argument tuple to build
            fn(tx)
        elif n == 2:
            fn(tx, task[1])
        elif n == 3:
            fn(tx, task[1], task[2])
        else:
            fn(tx, *task[1:])


#: The task functions called directly by :func:`_run_task`, by name (what the test compares with _TASKS).
DIRECT_TASKS: Final = ("night_step", "defence_turns", "turn_vote", "speak_among", "night", "dawn", "vote",
                       "execute")


_TASKS: Final[dict[str, Callable[..., None]]] = {}
_TASKS.update(night.TASKS)
_TASKS.update(day.TASKS)
_TASKS.update(cards.TASKS)


# --------------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------------

def new_game(config: GameConfig, rng: random.Random | None = None, *, seed: int | None = None,
             roles: Sequence[str] | None = None, first: str | None = None) -> tuple[GameState, list[Event]]:
    """Create a game and deal (C1): shuffle the deck with ``rng`` (or ``random.Random(seed)``), or take the
    given ``roles`` (seat 1 first: a physical deal read from the cards). ``first`` overrides the variant's
    first phase ("night" or "day": a day-one blind lynch)."""
    if rng is None:
        rng = random.Random(seed)
    variant = config.variant
    created = GameCreated(
        variant=config.variant_data, variant_source=variant.source, players=config.players,
        options=config.sorted_options, composition=config.composition,
        history=config.history, quota=config.quota, seed=seed, talk=config.talk,
    )
    if variant.live == "both":  # D2: both cards live, one place each; a hand of killer + police voids the deal
        roles = cards.deal_live(config, rng, roles)
    elif variant.hand > 1:  # D1-D3: two cards a player, then each player chooses the first identity
        tx = Tx(GameState(config=config, seed=seed), rng)
        tx.events.append(created)
        cards.deal(tx, config, rng, roles, first or variant.first)
        _run_agenda(tx)
        return tx.s, tx.events
    if roles is None:
        deck = list(config.cards)
        shuffle(rng, deck)
        dealt = tuple(deck)
    else:
        dealt = tuple(roles)
        if sorted(dealt) != sorted(config.deck()):
            raise Rejected("deck_mismatch", "the dealt cards do not match the configuration")
    tx = Tx(GameState(config=config, seed=seed), rng)
    tx.events.append(created)
    tx.emit(Dealt(dealt))
    start = first or variant.first
    if start == "day":
        tx.emit(DayBroke(1))
        tx.agenda = day_agenda(tx.s)
    else:
        tx.agenda = [("night",)]
    _run_agenda(tx)
    return tx.s, tx.events


def step(state: GameState, action: Action, rng: random.Random | None = None) -> tuple[GameState, list[Event]]:
    """Apply one input. Raises Rejected (the state is unchanged) if it is not legal now."""
    if state.phase == "over":
        raise Rejected("game_over", "the game is over")
    tx = Tx(state, rng)
    # The bots' inputs by the identity of their class, each a direct call (see Tx.emit); the rest by _HANDLERS.
    if type(action) is GroupPick:
        _on_group_pick(tx, action)
    elif type(action) is Ballot:
        _on_ballot(tx, action)
    elif type(action) is Pass:
        _on_pass(tx, action)
    elif type(action) is Timeout:
        _on_timeout(tx, action)
    else:
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise Rejected("unknown_input", f"unknown input {action!r}")
        handler(tx, action)
    if tx.s.phase != "over":
        _run_agenda(tx)
    return tx.s, tx.events


def _seat_exists(s: GameState, seat: int) -> None:
    if not isinstance(seat, int) or not 1 <= seat <= s.players:
        raise Rejected("unknown_seat", f"there is no seat {seat} at this {s.players}-player table")


def _living_actor(s: GameState, seat: int) -> None:
    _seat_exists(s, seat)
    if seat not in s.alive:
        raise Rejected("dead", f"seat {seat} is out of the game; the dead do not act (C3)")


def _waiting(s: GameState, kinds: frozenset[str] | set[str], what: str) -> Waiting:
    w = s.waiting
    if w is None or w.kind not in kinds:
        now = w.kind if w else s.phase
        raise Rejected("not_now", f"no {what} now (the table is at: {now})")
    return w


def _on_pick(tx: Tx, a: Pick) -> None:
    s = tx.s
    if s.waiting is not None and s.waiting.kind == cards.FIRST_IDENTITY:  # D1: at the deal, nobody is in yet
        cards.choose_first(tx, a.seat, a.target)
        return
    if s.waiting is not None and s.waiting.kind == sheriff.BADGE:  # W10: the dead sheriff's badge
        _seat_exists(s, a.seat)
        sheriff.pass_badge(tx, a.seat, a.target)
        return
    if a.seat not in s.alive and not hooks.dead_may_act(s, a.seat):  # W8: a last act is taken dead
        _living_actor(s, a.seat)
    w = _waiting(s, _PICK_KINDS, "night action")
    if w.kind == "defence_claim":
        day.claim_defence(tx, a.seat, a.target)
        return
    if w.kind == "candidacy":
        sheriff.candidacy(tx, a.seat, a.target)
        return
    if a.seat not in w.seats:
        night.reject_out_of_turn(s, a.seat)
    if w.kind == "recognition":
        night.acknowledge(tx, a.seat)
        return
    night.pick(tx, a.seat, a.target)


def _on_group_pick(tx: Tx, a: GroupPick) -> None:
    w = tx.s.waiting
    if w is None or w.kind != "night":
        _waiting(tx.s, _NIGHT_KINDS, "night action")
    night.group_pick(tx, a.target)


def _on_vote(tx: Tx, a: Vote) -> None:
    s = tx.s
    _living_actor(s, a.seat)
    _waiting(s, _VOTE_KINDS, "vote")
    day.vote(tx, a.seat, a.target, a.delay_s)


def _on_ballot(tx: Tx, a: Ballot) -> None:
    w = tx.s.waiting
    if w is None or w.kind != "vote":
        _waiting(tx.s, _VOTE_KINDS, "vote")
    day.ballot(tx, a.votes)


def _on_pass(tx: Tx, a: Pass) -> None:
    s = tx.s
    _living_actor(s, a.seat) if s.waiting is None or s.waiting.kind != "last_words" else _seat_exists(s, a.seat)
    w = _waiting(s, _PASS_KINDS, "speech")
    if w.kind == "recognition":
        if a.seat not in w.seats:
            night.reject_out_of_turn(s, a.seat)
        night.acknowledge(tx, a.seat)
    elif w.kind == "defence_claim":
        day.claim_defence(tx, a.seat, None)
    elif w.kind == "candidacy":
        sheriff.candidacy(tx, a.seat, None)
    else:
        day.end_speech(tx, a.seat, "pass")


def _on_timeout(tx: Tx, a: Timeout) -> None:
    w = tx.s.waiting
    if w is None:
        raise Rejected("not_now", "nothing is waiting for a deadline")
    if w.kind == "night":
        night.deadline(tx)
    elif w.kind == "recognition":
        night.end_recognition(tx)
    elif w.kind == cards.FIRST_IDENTITY:
        cards.settle(tx)
    elif w.kind in SPEECH_KINDS:
        day.end_speech(tx, tx.s.queue[0], "timeout")
    elif w.kind == "vote":
        day.close_vote(tx)
    elif w.kind == "defence_claim":
        day.close_defence_claims(tx)
    elif w.kind == "direction":
        tx.emit(DirectionChosen(-1))  # V2.4: the rule's own direction when the judge does not choose
    elif w.kind == "candidacy":
        sheriff.close_candidacy(tx)
    elif w.kind == sheriff.BADGE:
        sheriff.tear_badge(tx)


def _on_direction(tx: Tx, a: ChooseDirection) -> None:
    _waiting(tx.s, _DIRECTION_KINDS, "choice of direction")
    tx.emit(DirectionChosen(1 if a.clockwise else -1))


def _on_surrender(tx: Tx, a: Surrender) -> None:
    day.surrender(tx, a.seat)


def _on_self_destruct(tx: Tx, a: SelfDestruct) -> None:
    _living_actor(tx.s, a.seat)
    if sheriff.in_election(tx.s):  # W11: it ends the election
        sheriff.self_destruct(tx, a.seat)
    else:
        hooks.self_destruct(tx, a.seat)


def _on_withdraw(tx: Tx, a: Withdraw) -> None:
    _living_actor(tx.s, a.seat)
    sheriff.withdraw(tx, a.seat)


def _on_eject(tx: Tx, a: Eject) -> None:
    _living_actor(tx.s, a.seat)
    day.remove_player(tx, a.seat, "ejected")


def _on_penalty(tx: Tx, a: Penalty) -> None:
    _seat_exists(tx.s, a.seat)
    tx.emit(Penalised(a.seat, tx.s.penalties.get(a.seat, 0) + 1))


_HANDLERS: Final[dict[type, Callable[[Tx, Any], None]]] = {
    Pick: _on_pick, GroupPick: _on_group_pick, Vote: _on_vote, Ballot: _on_ballot, Pass: _on_pass,
    Timeout: _on_timeout, ChooseDirection: _on_direction, Surrender: _on_surrender, Eject: _on_eject,
    Penalty: _on_penalty, SelfDestruct: _on_self_destruct, Withdraw: _on_withdraw,
}


@mypyc_attr(acyclic=True, free_list_len=1)
class Pending(Record):
    """What the engine waits for, as the director and the bots see it (made at every input: a record, which the
    simulator's compiled rules build as a native object).

    ``seats``: who may act now (0 = the judge). ``choices``: legal targets (None = skip/abstain where allowed).
    ``picks``: for a group, the members' current picks (only ever shown to the members).
    """

    __match_args__ = ("kind", "step", "seats", "choices", "group", "role", "ability", "picks", "agenda")
    kind: Final[str]
    step: Final[str]
    seats: Final[tuple[int, ...]]
    choices: Final[tuple[int | None, ...]]
    group: Final[bool]
    role: Final[str]
    ability: Final[str]
    picks: Final[Mapping[int, int | None]]
    agenda: Final[tuple[Any, ...]]

    def __init__(self, kind: str, step: str, seats: tuple[int, ...], choices: tuple[int | None, ...], group: bool,
                 role: str, ability: str, picks: Mapping[int, int | None], agenda: tuple[Any, ...]) -> None:
        self.kind = kind
        self.step = step
        self.seats = seats
        self.choices = choices
        self.group = group
        self.role = role
        self.ability = ability
        self.picks = picks
        self.agenda = agenda

    def _replace(self, **changes: Any) -> Pending:
        """A copy with ``changes`` (what the named tuple it once was offered; the director's bots use it)."""
        fields = dict(zip(self.__match_args__, self.values(), strict=True))
        fields.update(changes)
        return Pending(**fields)


dataclass_view(Pending)


def pending(state: GameState) -> Pending | None:
    """Who the engine waits for, with which choices, and what comes after. None when the game is over."""
    w = state.waiting
    if w is None:
        return None
    kind = w.kind
    if kind == "night":  # most of what a game waits for: the step's seats as opened
        seats: tuple[int, ...] = w.seats
    elif kind == "vote" or kind == "recognition" or kind == "candidacy":
        seats = _not_done(w.seats, state.alive, state.picks)
    elif kind in SPEECH_KINDS:
        seats = state.queue[:1]
    elif kind == cards.FIRST_IDENTITY:
        seats = tuple(x for x in w.seats if x not in state.picks)
    elif kind == "defence_claim":
        seats = _not_done(w.seats, state.alive, {**dict.fromkeys(state.defence), **state.picks})
    else:
        seats = w.seats
    return Pending(w.kind, w.step, seats, w.choices, w.group, w.role, w.ability, state.picks, state.agenda)


def _not_done(seats: tuple[int, ...], alive: frozenset[int], done: Mapping[int, object]) -> tuple[int, ...]:
    """The living ``seats`` not in ``done``, in order; ``seats`` itself when that is all of them (a vote just
    opened: no new tuple at every input)."""
    if not done:
        for x in seats:
            if x not in alive:
                break
        else:
            return seats
    return tuple([x for x in seats if x in alive and x not in done])


def winner_now(state: GameState) -> tuple[str, str] | None:
    """The side whose win condition holds now (or "draw"), with the reason; None while the game goes on."""
    return win.check(state)
