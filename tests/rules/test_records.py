"""Events, inputs and the engine's answer are plain record classes (controller/rules/record.py), so that the
simulator's mypyc build makes them native objects; to the rest of the code base they still behave like the frozen
dataclasses they were: equal and hashed by value, printed with their fields, seen by ``dataclasses``."""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest

from controller.rules.actions import Ballot, Pick, Timeout, Vote
from controller.rules.engine import Pending, new_game, pending
from controller.rules.events import (
    EVENT_TYPES,
    Acted,
    Dawn,
    GameCreated,
    Opened,
    Picked,
    from_json,
    to_json,
)
from controller.rules.setup import configure
from controller.rules.state import TieState
from controller.rules.variant import load_variant


def test_the_killers_act_is_equal_to_the_same_act_and_hashes_alike():
    kill = Acted("kill", "kill", (3, 10), 5, "judge")
    same = Acted("kill", "kill", (3, 10), 5, "judge")
    assert kill == same and hash(kill) == hash(same)
    assert kill != Acted("kill", "kill", (3, 10), 6, "judge")
    assert kill != Picked(3, 5)  # another kind of event is never equal
    assert len({kill, same}) == 1


def test_an_event_prints_with_its_fields_and_defaults():
    assert repr(Acted("check", "check", (7,), 2, result="nod")) == (
        "Acted(step='check', ability='check', actors=(7,), target=2, how='chosen', result='nod', marks=())")
    assert repr(Timeout()) == "Timeout()"


def test_dataclasses_see_every_event_and_input_with_its_fields():
    for cls in [*EVENT_TYPES.values(), Pick, Vote, Ballot, Timeout, Pending, TieState]:
        assert dataclasses.is_dataclass(cls)
        assert tuple(f.name for f in dataclasses.fields(cls)) == cls.__match_args__
    vote = Vote(4, 9, 1.5)
    assert [f.name for f in dataclasses.fields(vote)] == ["seat", "target", "delay_s"]
    assert dataclasses.replace(vote, target=None) == Vote(4, None, 1.5)


def test_the_rooms_view_of_a_night_step_hides_who_wakes_and_whom_they_may_choose():
    opened = Opened("night", "kill", (3, 10), (1, 2, 4), True, (("dawn",),), "killer", "kill")
    assert opened.public_view() == Opened("night", "kill", (), (), False, (), "killer", "kill")
    dawn = Dawn(1, ((5, "killed"),), (("checks_used", 1),))
    assert dawn.public_view() == Dawn(1, ((5, "died"),), ())


def test_every_event_of_a_game_goes_to_json_and_back_unchanged():
    config = configure(load_variant("standard-2.0"), 12)
    _, events = new_game(config, random.Random(4), seed=4)
    assert isinstance(events[0], GameCreated)
    assert events[0].public_view() == dataclasses.replace(events[0], seed=None)
    for event in events:
        assert from_json(to_json(event)) == event
        assert pickle.loads(pickle.dumps(event)) == event


def test_a_journal_line_with_a_wrong_field_is_a_clear_error():
    with pytest.raises(ValueError, match="picked"):
        from_json({"type": "picked", "seat": 3})


def test_what_the_engine_waits_for_is_a_record_the_director_can_narrow():
    config = configure(load_variant("standard-2.0"), 12)
    state, _ = new_game(config, random.Random(4), seed=4)
    p = pending(state)
    assert p is not None and p.kind == "night"
    narrowed = p._replace(seats=p.seats[:1])
    assert narrowed.seats == p.seats[:1] and narrowed.choices == p.choices and narrowed != p
