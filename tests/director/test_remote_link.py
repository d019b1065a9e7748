"""The judge's remote going away is not a seat going away: the transcript names the remote (never "seat 0"), the
game goes on by its timers, and it ends as the same game would without the outage."""

from __future__ import annotations

from controller.ports import LinkEvent
from tests.director.helpers import play, session


def test_the_remote_drops_out_at_night_and_the_game_goes_on_to_the_same_end() -> None:
    quiet = play(session(seed=4))
    s = session(seed=4)
    s.start()
    s.run(max_time=30.0)  # the first night is under way
    d = s.director
    d.handle(LinkEvent(seat=0, up=False, at=s.clock.now(), reason="the remote (address 17) stopped answering"))
    assert not d.paused, "a table whose remote's battery died must not stay paused for good"
    s.run(max_time=60.0)
    d.handle(LinkEvent(seat=0, up=True, at=s.clock.now(), reason="the remote (address 17) answered"))
    s.run()
    said = [line.what for line in d.transcript]
    assert any("the judge's remote is not answering" in what for what in said)
    assert any("the judge's remote is back" in what for what in said)
    assert not any("seat 0" in what for what in said)
    assert s.result()["winner"] == quiet["winner"] and s.result()["roles"] == quiet["roles"]


def test_a_seat_that_drops_out_still_pauses_the_game_with_its_number() -> None:
    s = session(seed=4)
    s.start()
    s.run(max_time=30.0)
    d = s.director
    d.handle(LinkEvent(seat=5, up=False, at=s.clock.now(), reason="seat 5 (address 5) stopped answering"))
    assert d.paused and any("paused (seat 5 offline)" in line.what for line in d.transcript)
