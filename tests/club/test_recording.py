"""Every finished game is recorded in the club database exactly once, from the journal (the source): when it
ends, at the next start if the table died first, and never twice; a record can be rebuilt from the journal."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.club import recorder
from controller.club.record import build_record
from controller.club.service import Club
from controller.club.store import ClubStore
from controller.director.journal import SqliteJournal
from controller.rules.engine import fold
from tests.club.helpers import journal_game

REPO = Path(__file__).resolve().parents[2]


def test_a_finished_game_is_recorded_with_its_seats_deaths_in_order_and_winner(tmp_path):
    session = journal_game(tmp_path / "j.sqlite", seed=3)
    journal = session.journal
    assert journal is not None
    club = Club(ClubStore(tmp_path / "club.sqlite"), table="room-1")
    club.store.add_member("Ming")
    club.store.add_member("Hua")
    # the check-in note belongs to the game: written while it is the journal's current game
    club.checkin(journal, {1: "Ming", 2: None, 5: "Hua"}, clock=0.0)
    recorded = club.game_over(journal, clock=session.clock.now())
    assert len(recorded) == 1
    record = recorded[0]
    state = fold(session.director.events)
    assert record.winner == state.winner and record.players == 12 and record.variant == "standard-2.0"
    assert record.deaths == state.dead  # in order, with their causes
    assert [s.role for s in record.seats] == list(state.roles)
    assert record.seat(1).member == "Ming" and record.seat(2).member is None and record.seat(5).member == "Hua"
    assert record.length_s == pytest.approx(session.clock.now(), abs=0.01)
    assert record.table == "room-1" and record.first_victim is not None
    assert club.game_over(journal, clock=1.0) == []  # once only
    assert [g.uid for g in club.store.games(member="Hua")] == [record.uid]


def test_a_game_that_ended_while_the_table_was_down_is_recorded_at_the_next_start_once(tmp_path):
    for seed in (1, 2):  # two games end; the table dies before recording either
        journal_game(tmp_path / "j.sqlite", seed=seed).journal.close()
    journal = SqliteJournal(tmp_path / "j.sqlite")
    club = Club(ClubStore(tmp_path / "club.sqlite"))
    assert [r.journal_game for r in club.catch_up(journal)] == [1, 2]
    assert club.catch_up(journal) == []
    assert len(club.store.games()) == 2


@pytest.mark.parametrize("point", ["before", "game written, seats not yet", "seats written, not committed", "after"])
def test_killed_at_any_point_of_recording_the_game_is_recorded_exactly_once(tmp_path, point):
    session = journal_game(tmp_path / "j.sqlite", seed=8)
    journal = session.journal
    club = Club(ClubStore(tmp_path / "club.sqlite"))

    class Killed(BaseException):
        pass

    def crash(at, game):
        if at == point:
            raise Killed

    with pytest.raises(Killed):
        club.game_over(journal, clock=60.0, crash_point=crash)
    club.close()
    # the next start: a new connection, the catch-up
    again = Club(ClubStore(tmp_path / "club.sqlite"))
    again.catch_up(SqliteJournal(tmp_path / "j.sqlite"))
    assert len(again.store.games()) == 1
    assert again.store.db.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 12


def test_a_record_is_rebuilt_from_the_journal_as_it_was(tmp_path):
    session = journal_game(tmp_path / "j.sqlite", seed=5)
    journal = session.journal
    club = Club(ClubStore(tmp_path / "club.sqlite"))
    club.store.add_member("Li")
    club.checkin(journal, {4: "Li"}, clock=0.0)
    first = club.game_over(journal, clock=1800.0)[0]
    club.store.db.execute("UPDATE games SET record = json_set(record, '$.winner', 'nobody')")
    assert club.store.game(first.id).winner == "nobody"  # damaged
    rebuilt = recorder.rebuild(club.store, journal, 1, club.table)
    assert rebuilt == first and rebuilt.id == first.id
    replay = journal.replay(1)
    assert build_record(replay.events, replay.notes, table=club.table, journal_game=1) == first  # pure


def test_an_unfinished_game_has_no_record(tmp_path):
    journal = SqliteJournal(tmp_path / "j.sqlite")
    from controller.club.store import ClubError

    club = Club(ClubStore(tmp_path / "club.sqlite"))
    with pytest.raises(ClubError, match="no game 3 in this journal"):
        recorder.rebuild(club.store, journal, 3, "t")


def _evening(tmp: Path, games: int, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main(sys.argv[1:]))", "evening", "--games", str(games), "--dir", str(tmp),
         "--csv", str(tmp / "csv")],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})}, capture_output=True, text=True,
        timeout=300)


def _rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def test_kill_9_in_the_middle_of_recording_an_evening_ends_with_the_same_records(tmp_path):
    """A real process, killed with SIGKILL inside the club's transaction for game 2; started again it records
    game 2 once and plays on, and the evening's records are those of an evening nobody killed."""
    calm = _evening(tmp_path / "calm", 3)
    assert calm.returncode == 0, calm.stderr
    killed = _evening(tmp_path / "killed", 3, {recorder.CRASH_ENV: "seats written, not committed@2"})
    assert killed.returncode == -9, killed.stderr
    results = [line.split(":")[0] for line in killed.stdout.splitlines()
               if line.startswith("game ") and ("good (" in line or "killers (" in line or "draw (" in line)]
    assert results == ["game 1"]  # killed while recording game 2: its result was never said
    store = ClubStore(tmp_path / "killed" / "club.sqlite")
    assert len(store.games()) == 1  # game 2's transaction never happened
    store.close()
    again = _evening(tmp_path / "killed", 3)
    assert again.returncode == 0, again.stderr
    assert "recorded game 2 (journal game 2), which ended before the table stopped" in again.stdout
    for name in ("games.csv", "seats.csv", "members.csv"):
        calm_rows, killed_rows = _rows(tmp_path / "calm" / "csv" / name), _rows(tmp_path / "killed" / "csv" / name)
        if name == "games.csv":  # the start time differs; everything else is the same
            calm_rows = [r[:3] + r[4:] for r in calm_rows]
            killed_rows = [r[:3] + r[4:] for r in killed_rows]
        assert calm_rows == killed_rows, name
    assert len(_rows(tmp_path / "killed" / "csv" / "games.csv")) == 1 + 3


def test_a_games_length_is_the_sum_of_its_segments_across_a_restart():
    from controller.club.record import game_length

    notes = [{"club": {"clock": 10.0}}, {"club_tick": {"clock": 70.0}}, {"club_tick": {"clock": 130.0}},
             # the table stops at about 150 s; restarted, its clock begins again
             {"club_resumed": {"clock": 2.0}}, {"club_tick": {"clock": 62.0}}, {"club_end": {"clock": 100.0}}]
    assert game_length(notes) == (130.0 - 10.0) + (100.0 - 2.0)
    assert game_length(notes[:3]) is None  # not ended
    assert game_length([{"club_end": {"clock": 5.0}}]) is None  # no check-in: unknown


def test_an_evening_stopped_in_the_middle_of_a_game_resumes_it_and_ends_with_the_same_records(tmp_path,
                                                                                           monkeypatch):
    from controller.club.evening import Evening, Plan
    from controller.club.scoring import score
    from controller.director import director as director_module

    def records(tmp: Path, stop_at: float | None) -> list[tuple]:
        club = Club(ClubStore(tmp / "club.sqlite"), table="evening")
        if stop_at is not None:
            class Stop(BaseException):
                pass

            real_start = director_module.Director.start
            started: list[object] = []

            def start(self):
                real_start(self)
                started.append(self)
                if len(started) == 1:  # the table stops in the middle of the evening's first game
                    self.clock.call_at(stop_at, lambda: (_ for _ in ()).throw(Stop()))

            with monkeypatch.context() as m:
                m.setattr(director_module.Director, "start", start)
                with pytest.raises(Stop):
                    Evening(club, tmp / "j.sqlite", Plan(games=2), say=lambda line: None).run()
            assert club.store.games() == []  # stopped in the middle of game 1
        Evening(club, tmp / "j.sqlite", Plan(games=2), say=lambda line: None).run()
        out = [(g.journal_game, g.winner, g.deaths, g.penalties, g.ejections,
                tuple((s.member, s.role, s.penalties) for s in g.seats),
                tuple(p.game for p in score(g)), g.length_s) for g in club.store.games()]
        club.close()
        return out

    calm = records(tmp_path / "calm", None)
    stopped = records(tmp_path / "stopped", 400.0)
    assert [r[:-1] for r in stopped] == [r[:-1] for r in calm]
    # the length (time points) of the stopped game loses at most the minute since its last clock note
    assert calm[0][-1] - 60 <= stopped[0][-1] <= calm[0][-1]
    assert stopped[1][-1] == calm[1][-1]
