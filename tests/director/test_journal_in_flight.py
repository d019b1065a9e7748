"""A slow card (every commit takes 10 ms) under the virtual clock: a press shows on its own seat at once; the room
learns what it did only once it is on disk; a burst of presses shares one commit; a full disk takes back every
press decided after the lost one; and a game played so is the game the journal holds.

The journal's writer here is :class:`VirtualWriter` (the writer thread's group commit and ordering, on the virtual
clock); the thread itself is tested in tests/journal/test_writer.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from controller.director.journal import SqliteJournal
from controller.director.journal_writer import VirtualWriter
from controller.director.seat_output import LED_VOTE
from controller.ports import LED_OFF, Button
from controller.rules.events import to_json
from controller.screens import views as v
from tests.director.helpers import ScriptedTable, session
from tests.director.test_scenarios import CARDS

CARD_S = 0.010  # an SD card's fsync


def durable_inputs(path: Path) -> int:
    """The inputs on disk, read through a connection of its own (the table's would wait for its writer)."""
    db = sqlite3.connect(str(path))
    try:
        return int(db.execute("SELECT COUNT(*) FROM records WHERE kind = 'input'").fetchone()[0])
    finally:
        db.close()


def slow_table(tmp_path: Path) -> tuple[ScriptedTable, Path, VirtualWriter]:
    path = tmp_path / "evening.sqlite"
    journal = SqliteJournal(path)
    t = ScriptedTable("standard-2.0", CARDS, journal=journal)
    writer = VirtualWriter(journal._write_group, t.clock, CARD_S)
    journal.writer = writer
    return t, path, writer


def slow_vote(tmp_path: Path) -> tuple[ScriptedTable, Path, VirtualWriter]:
    """Night 1 on the slow card (killers 1 and 2 kill 5, police 3 and 4 check 1), the speeches, the first call."""
    t, path, writer = slow_table(tmp_path)
    t.deal()
    t.first_night(kill=5, check=1)
    t.talk()
    t.until_window("vote", open_=True)
    return t, path, writer


def raise_one_hand(t: ScriptedTable) -> tuple[int, int]:
    """The first living seat other than the called candidate raises its hand; returns (candidate, voter)."""
    d = t.director
    candidate = d.window.call[0]  # type: ignore[union-attr]
    voter = next(s for s in sorted(d.state.alive) if s != candidate)
    t.ok(voter)
    return candidate, voter


def test_a_raised_hand_lights_its_own_seat_at_once_and_the_room_learns_it_once_on_disk(tmp_path):
    t, path, _ = slow_vote(tmp_path)
    d = t.director
    w = d.window
    assert w is not None and w.call is not None
    candidate = w.call[0]
    voter, other = [s for s in sorted(d.state.alive) if s != candidate][:2]
    committed: list[Any] = []
    d.on_commit.append(lambda _d, events: committed.append(list(events)))
    on_disk, told, other_seat, remote = durable_inputs(path), len(d.transcript), t.screen(other), t.remote()
    t.ok(voter)
    # its own seat, at once: the blue LED and "counted"
    assert t.led(voter) == LED_VOTE
    assert t.screen(voter) == v.VoteFeedback(v.VoteResult.COUNTED, candidate)
    # the room, not yet: the game, the transcript, the other seats, the judge's remote, the hooks
    assert voter not in d.state.picks and committed == [] and len(d.transcript) == told
    assert t.screen(other) == other_seat and t.led(other) == LED_OFF and t.remote() == remote
    assert durable_inputs(path) == on_disk
    t.run_for(CARD_S)
    assert durable_inputs(path) == on_disk + 1
    assert d.state.picks[voter] == candidate and len(committed) == 1
    assert t.led(voter) == LED_VOTE  # the game's own LED now, the same blue


def test_a_burst_of_hands_is_one_commit_behind_the_one_on_the_card(tmp_path):
    t, _path, writer = slow_vote(tmp_path)
    d = t.director
    candidate = d.window.call[0]  # type: ignore[union-attr]
    voters = [s for s in sorted(d.state.alive) if s != candidate]
    before = writer.commits
    t.ok(*voters)  # every hand within the same instant: the first goes to the card, the others queue behind it
    assert all(t.led(s) == LED_VOTE for s in voters)
    t.run_for(2 * CARD_S)
    assert writer.commits - before == 2
    assert {s: d.state.picks[s] for s in voters} == {s: candidate for s in voters}
    assert [a["seat"] for a, _ in d.journal.replay().groups[-len(voters):]] == voters  # type: ignore[union-attr]


def test_a_full_disk_takes_back_every_hand_decided_after_the_lost_one_and_says_so(tmp_path):
    t, path, _ = slow_vote(tmp_path)
    d = t.director
    journal = d.journal
    assert journal is not None
    candidate = d.window.call[0]  # type: ignore[union-attr]
    first, second = [s for s in sorted(d.state.alive) if s != candidate][:2]
    real = journal.db

    class Full:
        def execute(self, sql: str, *args: Any) -> Any:
            if sql.startswith("BEGIN"):
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)  # type: ignore[union-attr]

    on_disk = durable_inputs(path)
    journal.db = Full()  # type: ignore[assignment]
    t.ok(first, second)
    assert t.led(first) == LED_VOTE and t.led(second) == LED_VOTE
    t.run_for(2 * CARD_S)
    for seat in (first, second):  # not durable, so not taken: each seat is told why, its LED goes out
        assert seat not in d.state.picks and not d.inflight
        assert t.led(seat) == LED_OFF
        shown = t.screen(seat)
        assert isinstance(shown, v.Message) and "disk is full" in str(shown.body)
    assert durable_inputs(path) == on_disk
    journal.db = real  # the disk is back: the same hands go through
    t.ok(first, second)
    t.run_for(2 * CARD_S)
    assert d.state.picks[first] == candidate and d.state.picks[second] == candidate
    assert durable_inputs(path) == on_disk + 2


def test_a_press_after_an_input_that_ended_the_wait_is_too_late_for_it(tmp_path):
    """C6: killers 1 and 2 agree on seat 5 (the kill is decided, on its way to the disk); killer 1 then changes
    its mind: too late, as it would be had the kill already taken effect; the journal holds the kill on 5."""
    t, _path, _ = slow_table(tmp_path)
    d = t.director
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 5)
    t.point(2, 5)
    assert d.inflight and d.inflight[-1].ends_wait
    t.point(1, 6)
    shown = t.screen(1)
    assert isinstance(shown, v.Message) and "has just ended" in str(shown.body)
    d.end_timer()  # the judge's command acts on the game as the room sees it: the kill takes effect first
    assert not d.inflight and d.window is None
    t.until_window("night", "check")
    replay = d.journal.replay()  # type: ignore[union-attr]
    assert [(a["seat"], a["target"]) for a, _ in replay.groups[1:]] == [(1, 5), (2, 5)]


def test_the_judges_undo_undoes_the_hand_still_on_its_way_to_the_disk(tmp_path):
    t, path, _ = slow_vote(tmp_path)
    d = t.director
    _candidate, voter = raise_one_hand(t)
    assert d.inflight
    assert d.undo()
    assert not d.inflight and voter not in d.state.picks
    db = sqlite3.connect(str(path))
    last = db.execute("SELECT kind FROM records ORDER BY seq DESC LIMIT 1").fetchone()[0]
    hand = db.execute("SELECT data FROM records WHERE kind = 'input' ORDER BY seq DESC LIMIT 1").fetchone()[0]
    db.close()
    assert last == "undo" and f'"seat": {voter}' in hand  # written, then undone: the judge's audit shows both


def test_a_whole_game_on_a_slow_card_is_the_game_its_journal_holds_and_each_input_was_on_disk_first(tmp_path):
    s = session("standard-2.0", 12, seed=7, journal_path=tmp_path / "slow.sqlite")
    assert s.journal is not None
    writer = VirtualWriter(s.journal._write_group, s.clock, CARD_S)
    s.journal.writer = writer
    early: list[int] = []

    def on_disk_first(d: Any, events: Any) -> None:  # the hooks (transcript, hall, club) learn an input here
        if durable_inputs(tmp_path / "slow.sqlite") < len(d.groups):
            early.append(len(d.groups))

    s.director.on_commit.append(on_disk_first)
    s.start()
    s.run(max_time=100_000)
    assert s.director.stage == "over" and early == []
    replay = s.journal.replay()
    assert replay is not None and [to_json(e) for e in replay.events] == [to_json(e) for e in s.director.events]
    s.journal.close()
    fast = session("standard-2.0", 12, seed=7, journal_path=tmp_path / "fast.sqlite")
    fast.start()
    fast.run(max_time=100_000)
    assert [to_json(e) for e in fast.director.events] == [to_json(e) for e in s.director.events]
    assert fast.journal is not None
    fast.journal.close()


def test_a_seat_pressing_nothing_new_writes_nothing_even_with_a_write_in_flight(tmp_path):
    t, path, _ = slow_table(tmp_path)
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 5)
    on_disk_soon = durable_inputs(path) + 1
    for _ in range(50):
        t.table.click(1, Button.OK)  # the same pick again, while the first is on its way
    t.run_until(lambda: not t.director.inflight, patience=1.0)
    assert durable_inputs(path) == on_disk_soon


def test_the_judge_stopping_the_game_lets_the_hand_in_flight_land_first_and_nothing_after(tmp_path):
    t, _path, _ = slow_vote(tmp_path)
    d = t.director
    candidate, voter = raise_one_hand(t)
    d.abort()
    assert not d.inflight and d.state.picks[voter] == candidate and d.stage == "over"
    events = len(d.events)
    t.run_for(1.0)
    assert len(d.events) == events and d.window is None
