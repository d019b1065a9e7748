"""Nothing a table publishes before the end depends on a secret (C4, 004 §5.6; issue 33, item 5).

Whole games are played (several variants and seeds); then each is replayed through the public channels with its
secrets changed: the deal shuffled, the digital deal's seed another, every night pick, check, answer and actor
another, and more picks in the night than there were (as if two police had checked where one did). The room's
side of the game (who died, who spoke, the votes) stays as it was. Every public channel must say exactly the same:
the MQTT feed's events and statuses (what the hall and its page show) and the board's facts (the public big screen
and the console's board socket). A field derived from a secret — the table's event number, which counted the
night's secret events, was one — makes the two replays differ.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from controller.board.public import public_facts
from controller.hall.feed import TableFeed, public_event
from controller.rules.engine import apply
from controller.rules.events import Acted, Dawn, Dealt, Event, GameCreated, GameEnded, Opened, Picked
from tests.director.helpers import play, session
from tests.hall.conftest import Recorder, through_the_door

GAMES = [("standard-2.0", 12, 1), ("standard-2.0", 12, 2), ("standard-2.0", 9, 3), ("classic-1.0", 8, 4),
         ("five-identities", 12, 5), ("v4.0", 12, 6)]


class Replay:
    """What a :class:`TableFeed` follows of a director, walked one event at a time."""

    def __init__(self, config: Any) -> None:
        self.config = config
        self.events: list[Event] = []
        self.state: Any = None
        self.board = None
        self.listeners: list[Any] = []
        self.on_over: list[Any] = []


def channels(config: Any, events: Sequence[Event]) -> tuple[list, list]:
    """(what the feed published, the board's facts each time they changed) as the game's events arrive one by one,
    up to its end."""
    rec = Recorder()
    feed = TableFeed(rec, lambda: "g1", names=[f"P{i}" for i in range(1, 33)])
    director = Replay(config)
    feed.attach(director)
    facts = []
    for event in events:
        if isinstance(event, GameEnded):
            break  # from here on the roles are public (C4)
        director.state = apply(director.state, event) if director.state is not None else apply(None, event)  # type: ignore[arg-type]
        director.events.append(event)
        for listener in director.listeners:
            listener(director, None)
        shown = public_facts(director.state, director.events)
        if not facts or facts[-1] != shown:  # a board is shown its facts when they change (seat_output.py)
            facts.append(shown)
            feed.show(shown)
    return rec.messages, facts


def with_other_secrets(events: Sequence[Event], seed: int) -> list[Event]:
    """The same game as the room saw it, with every secret another."""
    rng = random.Random(seed)
    players = next(e.players for e in events if isinstance(e, GameCreated))
    seats = list(range(1, players + 1))
    out: list[Event] = []
    for e in events:
        if isinstance(e, GameCreated):
            e = GameCreated(e.variant, e.variant_source, e.players, e.options, e.composition, e.history, e.quota,
                            (e.seed or 0) + 1_000_003, e.talk)
        elif isinstance(e, Dealt):
            roles = list(e.roles)
            rng.shuffle(roles)
            e = Dealt(tuple(roles))
        elif isinstance(e, Picked):
            out.append(Picked(rng.choice(seats), rng.choice(seats)))  # one more pick than there was
            e = Picked(e.seat, rng.choice(seats))
        elif isinstance(e, Acted):
            e = Acted(e.step, e.ability, (*e.actors, rng.choice(seats)), rng.choice(seats), e.how,
                      {"nod": "shake", "shake": "nod"}.get(e.result, e.result), e.marks)
        elif isinstance(e, Opened) and e.kind == "night":
            e = Opened(e.kind, e.step, tuple(rng.sample(seats, 2)), tuple(rng.sample(seats, 3)), e.group, e.agenda,
                       e.role, e.ability)
        elif isinstance(e, Dawn):
            e = Dawn(e.night, tuple((seat, "shot" if cause != "shot" else "killed") for seat, cause in e.deaths),
                     e.marks)
        out.append(e)
    return out


@pytest.mark.parametrize("variant, players, seed", GAMES)
def test_nothing_published_before_the_end_depends_on_a_secret(variant, players, seed):
    s = session(variant, players, seed=seed)
    live = Recorder()
    TableFeed(live, lambda: "g1", names=[f"P{i}" for i in range(1, 33)]).attach(s.director)
    play(s)
    through_the_door(live.messages)  # and the hall's door takes every message a real game sends
    events, config = list(s.director.events), s.director.config
    assert any(not e.public for e in events)  # there were secrets to change
    other = with_other_secrets(events, seed)
    assert other != events and len(other) > len(events)
    published, facts = channels(config, events)
    published_other, facts_other = channels(config, other)
    assert facts_other == facts, "the board's facts depend on a secret"
    for i, (mine, theirs) in enumerate(zip(published, published_other, strict=True)):
        assert mine == theirs, f"message {i} depends on a secret: {mine} / {theirs}"
    # and the feed's events are the game's public events in order, numbered by themselves alone
    told = [body for kind, body in published if kind == "event"]
    ended = next(i for i, e in enumerate(events) if isinstance(e, GameEnded))
    views = [v for v in map(public_event, events[:ended]) if v is not None]
    assert told == [{"game": "g1", "n": n, "event": v} for n, v in enumerate(views)]
