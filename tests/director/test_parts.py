"""One part of the director at a time, built with fakes of the parts it calls (controller/director/seams.py): the
vote calls with a fake loop, windows and seats; the seats' output with a fake table and a fake game. What each
test checks is that part's own job, through its seam, with no rules engine, no other part and no sleep."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

from controller.director.clock import VirtualScheduler
from controller.director.director import Director
from controller.director.records import Window
from controller.director.seams import Parts, Setup
from controller.director.seat_output import SeatOutput
from controller.director.timing import Timings
from controller.director.vote_calls import VoteCalls
from controller.ports import LED_OFF
from controller.rules import engine
from controller.rules.actions import Timeout, Vote
from controller.screens import views as v
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from tests.director.helpers import game_config

SEATS = tuple(range(1, 9))


def setup_for(clock: VirtualScheduler, table: Any = None) -> Setup:
    return Setup(table=table, voice=NullVoice(clock.now), clock=clock, config=game_config("standard-2.0", 8),
                 journal=None, t=Timings(), lang="en", label=str, seed=0, deck=None, judge_entry=False,
                 has_judge=True, board=None, seats=SEATS)


class FakeLoop:
    """The game loop as the vote calls see it: what was said at once, and what was given to the rules."""

    def __init__(self) -> None:
        self.state = None
        self.inflight: list[Any] = []
        self.said: list[tuple[float, list[str]]] = []
        self.submitted: list[tuple[Any, int | None]] = []
        self.clock: VirtualScheduler | None = None

    def say_now(self, parts: list[str]) -> float:
        assert self.clock is not None
        self.said.append((self.clock.now(), parts))
        return 2.0  # every call takes two seconds to say

    def submit(self, action: Any, seat: int | None = None) -> None:
        self.submitted.append((action, seat))

    def checkpoint(self) -> None:
        pass


class FakeWindows:
    def __init__(self) -> None:
        self.window: Window | None = None
        self.redraws = 0

    def key(self) -> str:
        return "1:vote:0"

    def take(self, w: Window) -> None:
        self.window = w

    def redraw_window(self) -> None:
        self.redraws += 1


class FakeSeats:
    def __init__(self) -> None:
        self.ui: dict[int, Any] = {}
        self.notices: list[tuple[int, v.View]] = []

    def notice(self, seat: int, view: v.View, keep: bool = False) -> None:
        self.notices.append((seat, view))

    def refresh(self) -> None:
        pass


def vote_calls_with_fakes() -> tuple[VoteCalls, FakeLoop, FakeWindows, FakeSeats, VirtualScheduler, list[Window]]:
    clock = VirtualScheduler()
    parts = Parts()
    loop, windows, seats = FakeLoop(), FakeWindows(), FakeSeats()
    loop.clock = clock
    told: list[Window] = []
    parts.loop, parts.windows, parts.seats = loop, windows, seats  # type: ignore[assignment]
    parts.follow = SimpleNamespace(window=told.append)  # type: ignore[assignment]
    return VoteCalls(setup_for(clock), parts), loop, windows, seats, clock, told


def vote_on(*candidates: int) -> engine.Pending:
    return engine.Pending("vote", "vote", SEATS, candidates, False, "", "", {}, ())


def test_the_vote_calls_each_candidate_once_in_order_then_has_the_hands_counted():
    votes, loop, windows, _seats, clock, told = vote_calls_with_fakes()
    votes.start_vote(vote_on(4, 7))
    assert windows.window is not None and windows.window.kind == "vote"
    assert told == [windows.window]  # the bots are told the vote opened
    clock.run(max_time=60)
    called = [parts for _, parts in loop.said]
    assert len(called) == 2 and called[0] != called[1]  # seat 4's call, then seat 7's
    window, gap = 2.0, Timings().vote_gap_s  # standard-2.0's vote.window_s
    assert loop.said[1][0] == pytest.approx(2.0 + window + gap)  # the next call once the first one's hands are in
    assert loop.submitted == [(Timeout(), None)]  # every candidate called: the hands are counted


def test_a_hand_raised_after_a_call_counts_for_that_candidate_and_the_seat_is_told():
    votes, loop, windows, seats, clock, _told = vote_calls_with_fakes()
    votes.start_vote(vote_on(4, 7))
    clock.run(until=lambda: clock.now() >= 2.5, max_time=2.5)  # seat 4's call has been said
    assert windows.window is not None
    votes.hand(3, windows.window)
    action, seat = loop.submitted[-1]
    assert isinstance(action, Vote) and (action.seat, action.target, seat) == (3, 4, 3)
    assert seats.notices[-1] == (3, v.VoteFeedback(v.VoteResult.COUNTED, 4))


def test_a_hand_before_any_call_is_told_to_wait_and_goes_nowhere():
    votes, loop, windows, seats, _clock, _told = vote_calls_with_fakes()
    votes.start_vote(vote_on(4, 7))  # the first call is being said: no call has ended yet
    assert windows.window is not None
    votes.hand(5, windows.window)
    assert loop.submitted == []
    assert seats.notices[-1][0] == 5 and isinstance(seats.notices[-1][1], v.Message)


def test_the_hand_delay_is_on_time_through_the_last_instant_of_the_window():
    votes, *_ = vote_calls_with_fakes()
    window = 2.0
    assert votes.hand_delay(10.0 + window, 10.0) <= window
    assert votes.hand_delay(math.nextafter(10.0 + window, math.inf), 10.0) > window


def seat_output_with_fakes() -> tuple[SeatOutput, SimTable, SimpleNamespace, SimpleNamespace]:
    """The seats' output over the simulated table, with the loop, judge, windows, announcer and remote faked
    as plain records of what it reads."""
    clock = VirtualScheduler()
    table = SimTable(8, clock.now, remote=False)
    parts = Parts()
    loop = SimpleNamespace(state=None, events=[], stage="idle")
    judge = SimpleNamespace(paused=False)
    parts.loop, parts.judge = loop, judge  # type: ignore[assignment]
    parts.windows = SimpleNamespace(window=None)  # type: ignore[assignment]
    parts.announcer = SimpleNamespace(night_shown=False, board_night=None)  # type: ignore[assignment]
    parts.remote = SimpleNamespace(remote_status=lambda: None)  # type: ignore[assignment]
    return SeatOutput(setup_for(clock, table), parts), table, loop, judge


def test_a_seat_is_sent_its_screen_and_led_only_when_they_change():
    seats, table, _loop, _judge = seat_output_with_fakes()
    frames = []
    table.seats[3].display = frames.append  # type: ignore[method-assign]
    seats.set(3, v.Message(v.L10n("你好", "Hello"), ""), LED_OFF)
    seats.refresh()
    seats.refresh()
    assert len(frames) == 1
    seats.set(3, v.Message(v.L10n("再见", "Bye"), ""))
    seats.refresh()
    assert len(frames) == 2


def test_while_play_is_paused_every_seat_but_a_dead_one_shows_paused():
    seats, _table, _loop, judge = seat_output_with_fakes()
    seats.set(2, v.Dead(2))
    judge.paused = True
    seats.refresh()
    assert seats.ui[1].drawn == v.Paused()
    assert seats.ui[2].drawn == v.Dead(2)


def test_a_seat_back_from_a_lost_link_is_sent_whole_again():
    seats, table, _loop, _judge = seat_output_with_fakes()
    seats.refresh()
    leds = []
    table.seats[4].set_led = leds.append  # type: ignore[method-assign]
    seats.refresh()
    assert leds == []
    seats.redraw(4)
    seats.refresh()
    assert leds == [seats.ui[4].led]


def test_the_director_finds_each_part_by_name():
    clock = VirtualScheduler()
    d = Director(SimTable(8, clock.now), NullVoice(clock.now), clock, game_config("standard-2.0", 8))
    assert d.part("seats") is d.seats and d.part("judge") is d.judge_commands
    with pytest.raises(KeyError, match="no director part named 'lights'"):
        d.part("lights")
