"""Invariants of the engine over every variant, several table sizes, option settings and all three bot policies
(hypothesis): every game ends; the dead never act; a tally never counts more hands than there are living
players; the events replay (``fold``) to the same state, also after a JSON round trip; a rejected input changes
nothing; a step never changes the state it was given; undo (drop the last input's events and refold) gives the
state before that input.

At every input the bots send, the test also throws garbage at the table (wrong seats, dead seats, out of turn,
second votes, ...) and checks that whatever the engine refuses leaves no trace.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.bots import POLICIES
from controller.rules import engine
from controller.rules.actions import (
    Action,
    Ballot,
    ChooseDirection,
    GroupPick,
    Pass,
    Pick,
    Rejected,
    Surrender,
    Timeout,
    Vote,
)
from controller.rules.events import (
    Acted,
    DefenceClaimed,
    Event,
    Picked,
    Spoke,
    VoteClosed,
    Voted,
    from_json,
    to_json,
)
from controller.rules.options import OPTIONS
from controller.rules.setup import GameConfig, configure
from controller.rules.state import FIELDS, GameState
from controller.rules.variant import builtin_ids, load_variant

MAX_INPUTS = 3000  # far above any real game: reaching it means a game that does not end


@st.composite
def tables(draw: st.DrawFn) -> tuple[GameConfig, str, int, str | None]:
    """A variant, a table size its role tables cover, a random choice of its options, a policy and a seed."""
    variant = load_variant(draw(st.sampled_from(builtin_ids())))
    players = draw(st.integers(variant.min_players, min(variant.max_players, variant.min_players + 8)))
    options: dict[str, Any] = {}
    for key in variant.options:
        spec = OPTIONS[key]
        if key == "roles":
            rows = variant.role_tables
            usable = [name for name, table in rows.items() if any(r.low <= players <= r.high for r in table)]
            options[key] = draw(st.sampled_from(usable))
        elif spec.choices:
            options[key] = draw(st.sampled_from(spec.choices))
        elif spec.kind is bool:
            options[key] = draw(st.booleans())
        elif key in ("tie.limit", "checks", "lastwords.quota", "first_victim.max_repeat"):
            options[key] = draw(st.integers(int(spec.minimum or 0), 3 if key != "tie.limit" else 4) | st.just(
                variant.options[key]))
    history = draw(st.lists(st.integers(1, players), max_size=3))
    config = configure(variant, players, options, history=history, talk=draw(st.booleans()))
    policy = draw(st.sampled_from(sorted(POLICIES)))
    first = draw(st.sampled_from([None, "day"]))
    return config, policy, draw(st.integers(0, 2**32 - 1)), first


def garbage(state: GameState, rng: random.Random) -> list[Action]:
    """Inputs a careless table sends: any seat (dead, unknown, the judge's 0), any target, any kind."""
    n = state.players
    seats = [-1, 0, *range(1, n + 1), n + 1]
    targets: list[int | None] = [None, *seats]
    s, t = rng.choice(seats), rng.choice(targets)
    out: list[Action] = [Pick(s, t), Vote(s, t), Pass(s), Surrender(s), GroupPick(t), ChooseDirection(True),
                         Timeout()]
    if state.picks:  # a second vote or pick from a seat that already has one
        voter = rng.choice(sorted(state.picks))
        out += [Vote(voter, t), Ballot(((voter, t),))]
    dead = sorted(set(range(1, n + 1)) - state.alive)
    if dead:
        d = rng.choice(dead)
        out += [Pick(d, t), Vote(d, t), Pass(d), Ballot(((d, t),))]
    return out


def _actor_dead_before(before: GameState, event: Event) -> int | None:
    """The seat of an event's actor, if that seat was already out of the game."""
    if isinstance(event, Picked | Voted | DefenceClaimed) and event.seat not in before.alive:
        return event.seat
    if isinstance(event, Spoke) and event.how in ("pass", "timeout"):
        w = before.waiting
        if w is not None and w.kind == "speeches" and event.seat not in before.alive:
            return event.seat
    if isinstance(event, Acted) and event.how in ("chosen", "skipped") and event.ability != "defence" \
            and not event.step.startswith("on_death."):  # W8: the hunter shoots as he dies
        dead = [a for a in event.actors if a not in before.alive]
        if dead and len(dead) == len(event.actors):
            return dead[0]
    return None


def check_events(before: GameState, events: list[Event]) -> None:
    """The dead never act, and a tally never has more hands than living players."""
    state = before
    for event in events:
        assert _actor_dead_before(state, event) is None, f"dead actor in {event!r}"
        if isinstance(event, VoteClosed):
            assert sum(n for _, n in event.tally) <= len(state.alive), event
        state = engine.apply(state, event)


def roundtrip(event: Event) -> Event:
    return from_json(json.loads(json.dumps(to_json(event), ensure_ascii=False)))


def from_dead_seat(state: GameState, action: Action) -> bool:
    """Whether ``action`` is a seat's own input from a seat that is out of the game (last words excepted)."""
    if isinstance(action, Ballot):
        return any(v not in state.alive for v, _ in action.votes)
    seat = getattr(action, "seat", None)
    if not isinstance(action, Pick | Vote | Pass | Surrender) or seat is None or not 1 <= seat <= state.players:
        return False
    if isinstance(action, Pass) and state.waiting is not None and state.waiting.kind == "last_words":
        return False
    w = state.waiting
    if w is not None and w.step.startswith("on_death.") and seat in w.seats:
        return False  # W8: the dying hunter's shot
    return seat not in state.alive


def throw_garbage(state: GameState, junk: random.Random) -> None:
    """Every refused input leaves no trace; accepted ones are legal and are not played on."""
    waiting = engine.pending(state)
    for bad in garbage(state, junk):
        try:
            _, accepted = engine.step(state, bad, random.Random(0))
        except Rejected as exc:
            assert exc.code and exc.message
            continue
        assert not from_dead_seat(state, bad), f"a dead seat's input was accepted: {bad!r}"
        check_events(state, accepted)
    assert engine.pending(state) == waiting


def play_checked(config: GameConfig, policy_name: str, seed: int, first: str | None) -> None:
    rng, junk = random.Random(seed), random.Random(seed ^ 0x5EED)
    state, events = engine.new_game(config, rng, first=first)
    journal = list(events)
    boundaries = [(len(journal), state)]  # (events so far, state) after every input: undo points
    policy = POLICIES[policy_name]()
    inputs = 0
    while not state.over:
        p = engine.pending(state)
        assert p is not None, "the engine waits for nothing but the game is not over"
        for action in policy.actions(state, p, rng):
            throw_garbage(state, junk)
            before = state
            held = [getattr(state, name) for name in FIELDS]
            state, events = engine.step(state, action, rng)
            # step is pure from the outside: it applied its events to a draft of its own, never to the state
            # it was given (every field still holds the very same value)
            assert state is not before and all(getattr(before, n) is v for n, v in zip(FIELDS, held, strict=True))
            check_events(before, events)
            policy.observe(state, events)
            journal += events
            boundaries.append((len(journal), state))
            inputs += 1
            if state.over or state.waiting is None or state.waiting.step != p.step:
                break
        assert inputs < MAX_INPUTS, "the game does not end"

    # Replay, after a JSON round trip of every event, reaches every recorded state on the way.
    replayed = [roundtrip(e) for e in journal]
    assert replayed == journal
    assert engine.fold(journal) == state
    folded = engine.fold(replayed[: boundaries[0][0]])
    done = boundaries[0][0]
    for upto, expected in boundaries[1:]:
        for e in replayed[done:upto]:
            folded = engine.apply(folded, e)
        done = upto
        assert folded == expected
    # Undo: drop the last input's events and refold -> the state before that input.
    k = random.Random(seed).randrange(1, len(boundaries))
    assert engine.fold(journal[: boundaries[k - 1][0]]) == boundaries[k - 1][1]
    assert engine.fold(journal[: boundaries[-2][0]]) == boundaries[-2][1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_property_every_game_ends_the_dead_never_act_and_the_events_replay(table):
    config, policy, seed, first = table
    play_checked(config, policy, seed, first)
