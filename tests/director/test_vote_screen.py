"""The vote's calls as a seat that has already voted sees them (V2.5: one vote each).

Found at a club table: a seat that raised its hand for the first candidate saw, during the call for the second,
that candidate big in the middle with a tick and "vote counted", and read it as its hand having gone to the
second candidate. The screen now names whom the hand counted for and says the call is for someone else.
"""

from __future__ import annotations

from controller.screens import render
from controller.screens import views as v
from tests.director.test_scenarios import vote_day


def test_seat_that_voted_for_the_first_candidate_sees_its_own_vote_during_the_second_call():
    t = vote_day()
    w = t.until_window("vote", open_=True)
    first = w.call[0]
    voter = next(s for s in sorted(t.director.state.alive) if s != first)
    t.ok(voter)  # the hand goes up for the first candidate
    second = w.calls[0]
    t.until_window("vote", open_=True, call=second)
    shown = t.screen(voter)
    assert isinstance(shown, v.VoteCall)
    assert shown.candidate == second and shown.voted and shown.voted_for == first
    # what the seat reads: the call for the second candidate, its own vote for the first, no "counted" tick
    counted_for_second = v.VoteCall(second, shown.countdown, voted=True, voted_for=second)
    assert render(shown, "zh").tobytes() != render(counted_for_second, "zh").tobytes()


def test_a_seat_still_to_vote_is_asked_for_its_hand_on_every_call():
    t = vote_day()
    w = t.until_window("vote", open_=True)
    seat = next(s for s in sorted(t.director.state.alive) if s != w.call[0])
    shown = t.screen(seat)
    assert isinstance(shown, v.VoteCall) and not shown.voted and shown.voted_for is None

