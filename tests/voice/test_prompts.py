"""The catalogue API the director composes sentences with."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.voice.prompts import (
    MAX_SEAT,
    ROLE_PROMPTS,
    PromptError,
    night_deaths,
    phrase,
    prompt,
    role_prompt,
    seat_number,
    tally,
    vote_call,
    votes,
)


def test_seat_five_died_is_composed_from_parts() -> None:
    assert phrase(seat_number(5), prompt("death.died")) == ["seat.5", "death.died"]


def test_dawn_names_the_dead_in_seat_order_or_says_nobody_died() -> None:
    assert night_deaths([7, 3]) == ["dawn.deaths", "seat.3", "seat.7"]
    assert night_deaths([]) == ["dawn.nobody_died"]


def test_vote_call_and_tally() -> None:
    assert vote_call(12) == ["seat.12", "vote.hands_for"]
    assert tally(4, 3) == ["seat.4", "number.3", "unit.votes"]
    assert votes(1) == ["number.1", "unit.vote"]


def test_killer_wakes_acts_and_sleeps() -> None:
    assert [role_prompt("killer", w) for w in ("wake", "act", "sleep")] == [
        "role.killer.wake", "role.killer.act", "role.killer.sleep"]


def test_five_identities_bandit_is_the_killer() -> None:
    assert role_prompt("bandit", "act") == "role.killer.act"


def test_every_role_that_wakes_also_sleeps_and_every_role_called_out_comes_back() -> None:
    for role, whats in ROLE_PROMPTS.items():
        assert ("wake" in whats) == ("sleep" in whats), role
        assert ("out" in whats) == ("back" in whats), role  # V4.2: 出动 … 回去


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: role_prompt("civilian", "wake"), "role 'civilian' has no 'wake' prompt"),
        (lambda: role_prompt("no_such_role", "wake"), "unknown role 'no_such_role'"),
        (lambda: seat_number(0), "seat 0 is outside 1..40"),
        (lambda: seat_number(41), "seat 41 is outside 1..40"),  # a D2 card place at most (two per seat)
        (lambda: prompt("Night falls"), "not dotted lower-case words"),
        (lambda: votes(41), "count 41 is outside 0..40"),
    ],
)
def test_impossible_prompts_are_refused_with_a_reason(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PromptError, match=message):
        call()


@given(st.lists(st.integers(1, MAX_SEAT), unique=True, max_size=MAX_SEAT))
def test_dawn_announcement_names_each_dead_seat_once(seats: list[int]) -> None:
    said = night_deaths(seats)
    assert [p for p in said if p.startswith("seat.")] == [f"seat.{s}" for s in sorted(seats)]
