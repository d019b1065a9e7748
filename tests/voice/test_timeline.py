"""Invariants of the voice queue, whatever the director asks and whenever."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.voice.timeline import Timeline

from .conftest import FakeClock

steps = st.lists(
    st.tuples(st.floats(0, 5, allow_nan=False), st.floats(0, 4, allow_nan=False), st.booleans()), max_size=30)


@given(steps)
def test_the_table_never_says_two_things_at_once(plan: list[tuple[float, float, bool]]) -> None:
    clock = FakeClock(0.0)
    timeline = Timeline(clock)
    heard: list[tuple[float, float]] = []  # what is actually said: cut-off utterances end when cut
    for wait, duration, urgent in plan:
        clock.advance(wait)
        now = clock()
        if urgent and heard and heard[-1][1] > now:
            heard = [(s, min(e, now)) for s, e in heard if s < now]
        u = timeline.add(["x.y"], duration, urgent=urgent)
        assert u.end - u.start == pytest.approx(duration)
        assert u.start >= now
        if urgent:
            assert u.start == now  # cuts in at once
        else:
            assert u.start == max(now, heard[-1][1] if heard else now)  # right after the last one
        heard.append((u.start, u.end))
    for (_, end), (start, _) in itertools.pairwise(heard):
        assert start >= end - 1e-9
