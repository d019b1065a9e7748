"""The journal's writer thread: in order, in groups, told on the loop, flushed at the end, and a failed write
taking with it every input decided after it. The thread is real; nothing sleeps: a commit that must be "slow"
waits on an event the test sets, and every wait is bounded."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from controller.director.journal import JournalError, SqliteJournal
from controller.director.journal_writer import Batch, ThreadedWriter
from controller.rules.actions import Pass, Vote
from controller.rules.events import Picked

PATIENCE = 10.0  # seconds a bounded wait may take before the test fails (it never takes that long)


class SlowCard:
    """A commit the test holds on the card until it lets it go: what queues meanwhile is the next group."""

    def __init__(self, hold_first: bool = True, fail: set[int] | None = None) -> None:
        self.groups: list[list[str]] = []
        self.started = threading.Event()
        self.go = threading.Event()
        if not hold_first:
            self.go.set()
        #: Which commits (0-based) find the disk full.
        self.fail = fail or set()

    def commit(self, batches: Sequence[Batch]) -> None:
        n = len(self.groups)
        self.groups.append([b.rows[0][2] for b in batches])
        self.started.set()
        assert self.go.wait(PATIENCE)
        if n in self.fail:
            raise JournalError(Path("evening.sqlite"), "cannot be written: the disk is full; free some space",
                               damaged=False)


class Loop:
    """Stands for the event loop: ``post`` queues callables, :meth:`run` runs them on the test's thread."""

    def __init__(self) -> None:
        self.posted: list[object] = []
        self.lock = threading.Lock()

    def post(self, callback: object) -> None:
        with self.lock:
            self.posted.append(callback)


def batch(name: str, told: list[tuple[str, object]], chains: bool = True) -> Batch:
    return Batch([(1, "note", name)], done=lambda error: told.append((name, error)), chains=chains)


def test_a_burst_of_presses_is_written_in_one_commit_behind_the_one_on_the_card():
    card = SlowCard()
    writer = ThreadedWriter(card.commit, Loop().post)
    told: list[tuple[str, object]] = []
    writer.write(batch("seat 1's hand", told))
    assert card.started.wait(PATIENCE)  # seat 1's write is on its way to the card
    for seat in (2, 3, 4, 5):
        writer.write(batch(f"seat {seat}'s hand", told))
    card.go.set()
    writer.flush()
    assert card.groups == [["seat 1's hand"], ["seat 2's hand", "seat 3's hand", "seat 4's hand", "seat 5's hand"]]
    assert (writer.commits, writer.batches) == (2, 5)
    assert told == [(f"seat {s}'s hand", None) for s in (1, 2, 3, 4, 5)]  # told in the order given
    writer.close()


def test_each_write_is_told_on_the_loop_in_order_once_durable():
    loop = asyncio.new_event_loop()
    try:
        card = SlowCard(hold_first=False)
        writer = ThreadedWriter(card.commit, loop.call_soon_threadsafe)
        told: list[tuple[str, int]] = []
        last = loop.create_future()

        def done(name: str) -> object:
            def tell(error: object) -> None:
                assert error is None
                assert card.groups and any(name in g for g in card.groups)  # durable before it is told
                told.append((name, threading.get_ident()))
                if name == "hand 20":
                    last.set_result(None)
            return tell

        for n in range(1, 21):
            writer.write(Batch([(1, "note", f"hand {n}")], done=done(f"hand {n}"), chains=True))
        loop.run_until_complete(asyncio.wait_for(last, PATIENCE))
        assert [name for name, _ in told] == [f"hand {n}" for n in range(1, 21)]
        assert {ident for _, ident in told} == {threading.get_ident()}  # on the loop's thread, never the writer's
        assert [n for g in card.groups for n in g] == [f"hand {n}" for n in range(1, 21)]
        writer.close()
    finally:
        loop.close()


def test_closing_writes_and_tells_what_is_still_queued():
    card = SlowCard()
    loop = Loop()
    writer = ThreadedWriter(card.commit, loop.post)
    told: list[tuple[str, object]] = []
    writer.write(batch("first", told))
    assert card.started.wait(PATIENCE)
    writer.write(batch("second", told))
    writer.write(batch("third", told))
    card.go.set()
    writer.close()  # the table shuts down: nothing handed over is lost, and its outcome is told
    assert [n for g in card.groups for n in g] == ["first", "second", "third"]
    assert told == [("first", None), ("second", None), ("third", None)]
    with pytest.raises(RuntimeError):
        writer.write(batch("after", told))


def test_a_full_disk_fails_the_group_and_every_input_decided_after_it_until_the_loop_has_dropped_them():
    card = SlowCard(fail={0})
    writer = ThreadedWriter(card.commit, Loop().post)
    told: list[tuple[str, object]] = []
    writer.write(batch("seat 1's hand", told))
    assert card.started.wait(PATIENCE)
    writer.write(batch("seat 2's hand", told))  # decided on top of seat 1's, still in flight
    writer.write(batch("a timer checkpoint", told, chains=False))  # depends on nothing before it
    card.go.set()
    writer.flush()
    assert [name for name, _ in told] == ["seat 1's hand", "seat 2's hand", "a timer checkpoint"]
    assert isinstance(told[0][1], JournalError) and "disk is full" in str(told[0][1])
    assert told[1][1] is told[0][1]  # not written: it was decided after an input that is not durable
    assert told[2][1] is None  # written: a checkpoint builds on nothing
    assert card.groups == [["seat 1's hand"], ["a timer checkpoint"]]
    writer.write(batch("seat 3's hand", told))  # before the loop dropped the lost ones: still refused
    writer.flush()
    assert told[-1] == ("seat 3's hand", told[0][1])
    writer.write(batch("seat 4's hand", told))  # decided before the loop heard: it is dropped there too
    writer.reset()  # the loop has dropped them and told the seats; the disk is back
    writer.write(batch("seat 2's hand again", told))
    writer.flush()
    assert told[-2] == ("seat 4's hand", told[0][1])  # handed over before the reset: never written
    assert told[-1] == ("seat 2's hand again", None)
    assert card.groups[-1] == ["seat 2's hand again"]
    writer.close()


def test_the_journal_with_its_writer_keeps_every_input_in_order_and_reads_them_back(tmp_path):
    loop = Loop()
    journal = SqliteJournal(tmp_path / "evening.sqlite")
    journal.new_game()
    journal.record_input(None, [])
    journal.start_writer(loop.post)
    told: list[object] = []
    for seat in range(1, 9):
        journal.record_input(Vote(seat, 5, 0.5), [Picked(seat, 5)], done=told.append)
    journal.record_timer({"key": "vote", "remaining": 3.0}, done=told.append)
    journal.note({"who": "the judge"})  # a write without done: returns once durable, behind the others
    replay = journal.replay()  # reads see everything handed over
    assert replay is not None
    assert [a["seat"] for a, _ in replay.groups[1:]] == list(range(1, 9))
    assert replay.timer == {"key": "vote", "remaining": 3.0} and replay.notes == [{"who": "the judge"}]
    assert told == [None] * 9
    journal.record_input(Pass(3), [], done=told.append)
    journal.close()  # flushed, the thread stopped, the WAL folded in
    assert told == [None] * 10
    again = SqliteJournal(tmp_path / "evening.sqlite")
    replay = again.replay()
    assert replay is not None and replay.groups[-1][0] == {"type": "Pass", "seat": 3}
    again.close()


def test_a_note_written_through_the_writer_on_a_full_disk_raises_as_it_always_did(tmp_path):
    journal = SqliteJournal(tmp_path / "evening.sqlite")
    journal.start_writer(Loop().post)
    real = journal.db

    class Full:
        def execute(self, sql: str, *args: object) -> object:
            if sql.startswith("BEGIN"):
                raise __import__("sqlite3").OperationalError("database or disk is full")
            return real.execute(sql, *args)  # type: ignore[union-attr]

    journal.db = Full()  # type: ignore[assignment]
    with pytest.raises(JournalError, match="disk is full"):
        journal.note({"who": "the club"})
    journal.db = real
    journal.close()


def test_a_reader_on_another_thread_waits_for_the_writes_but_leaves_telling_them_to_the_loop():
    card = SlowCard(hold_first=False)
    loop = Loop()
    writer = ThreadedWriter(card.commit, loop.post)
    told: list[tuple[str, object]] = []
    writer.write(batch("seat 1's hand", told))
    reader = threading.Thread(target=writer.flush)  # the hall's feed reading the journal, say
    reader.start()
    reader.join(PATIENCE)
    assert not reader.is_alive() and card.groups == [["seat 1's hand"]]
    assert told == []  # the director hears of it on its loop, not on the reader's thread
    writer.flush()
    assert told == [("seat 1's hand", None)]
    writer.close()
