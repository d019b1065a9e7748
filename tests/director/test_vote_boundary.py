"""V2.6 at the very edge: the seat's screen and the rules agree on which hands count.

The window is inclusive: a hand exactly ``vote.window_s`` after the call counts, and the seat's vote view is still
up at that instant; the first moment after it, the view has left and a hand is a follow-vote.
"""

from __future__ import annotations

import math

from controller.screens import views as v
from tests.director.test_scenarios import vote_day


def _at_the_boundary():
    t = vote_day()
    w = t.until_window("vote", open_=True)
    candidate, end = w.call
    boundary = end + float(t.config.opt("vote.window_s"))
    t.run_for(boundary - t.clock.now())
    assert t.clock.now() == boundary
    voters = [s for s in sorted(t.director.state.alive) if s != candidate]
    return t, w, candidate, boundary, voters


def test_a_hand_exactly_at_the_end_of_the_window_counts_and_the_seat_still_shows_the_vote():
    t, w, candidate, _boundary, voters = _at_the_boundary()
    seat = voters[0]
    assert w.window_open and isinstance(t.screen(seat), v.VoteCall)  # the screen still says "hands up"
    t.ok(seat)
    assert t.director.state.picks[seat] == candidate
    assert t.screen(seat) == v.VoteFeedback(v.VoteResult.COUNTED, candidate)


def test_the_first_instant_after_the_window_the_view_has_left_and_a_hand_is_a_follow_vote():
    t, w, candidate, boundary, voters = _at_the_boundary()
    t.run_until(lambda: not w.window_open, patience=1.0)
    assert t.clock.now() == math.nextafter(boundary, math.inf)
    seat = voters[1]
    assert not isinstance(t.screen(seat), v.VoteCall)  # the screen no longer asks for hands
    t.ok(seat)
    assert seat not in t.director.state.picks
    assert t.screen(seat) == v.VoteFeedback(v.VoteResult.LATE, candidate)


def test_the_engine_is_told_a_delay_it_classifies_as_the_screen_did_whatever_the_float_rounding():
    t, _w, _candidate, _boundary, _voters = _at_the_boundary()
    window = float(t.config.opt("vote.window_s"))
    for end in (0.1 + 0.2, 1e6 / 3, 12345.678901):
        on_edge = end + window
        assert t.director.votes.hand_delay(on_edge, end) <= window
        assert t.director.votes.hand_delay(math.nextafter(on_edge, math.inf), end) > window
