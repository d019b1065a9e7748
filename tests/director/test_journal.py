"""The journal file itself: made in one step, owner-only, every SQLite problem said in words, the WAL folded in
at safe points, and nothing written for a press that changes nothing."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from controller.director import journal as journal_module
from controller.director.journal import APPLICATION_ID, JournalError, SqliteJournal, open_journal
from controller.ports import Button
from controller.rules.events import Dawn, NightFell, Picked, to_json
from tests.director.helpers import ScriptedTable, play, session


def records(path: Path) -> int:
    return SqliteJournal(path).db.execute("SELECT COUNT(*) FROM records").fetchone()[0]  # type: ignore[union-attr]


# ---- making the file ---------------------------------------------------------------------------------------
def test_a_new_journal_is_owner_only_and_so_are_its_wal_and_shm(tmp_path):
    path = tmp_path / "evening.sqlite"
    s = session("standard-2.0", 8, 1, "heuristic", journal_path=path)
    s.start()
    s.run(max_time=120)  # mid-game: the -wal and -shm exist
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        assert p.exists() and stat.S_IMODE(p.stat().st_mode) == 0o600, p.name


def test_a_set_up_killed_half_way_leaves_no_journal_and_the_next_start_is_clean(tmp_path):
    """The journal is built under a temporary name and renamed into place once whole: a kill -9 during set-up
    leaves only the temporary file, which the next start removes."""
    path = tmp_path / "evening.sqlite"
    code = (
        "import os, sqlite3, sys\n"
        "from pathlib import Path\n"
        "from controller.director import journal\n"
        "real = sqlite3.connect\n"
        "def connect(*a, **k):\n"
        "    db = real(*a, **k)\n"
        "    class Dying:\n"
        "        def execute(self, sql, *rest):\n"
        "            if sql.startswith('CREATE TABLE'):\n"
        "                os._exit(9)\n"
        "            return db.execute(sql, *rest)\n"
        "        def __getattr__(self, name):\n"
        "            return getattr(db, name)\n"
        "    return Dying()\n"
        "journal.sqlite3.connect = connect\n"
        "journal.SqliteJournal(Path(sys.argv[1]))\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], cwd=Path(__file__).parents[2], timeout=60)
    assert done.returncode == 9
    assert not path.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".evening.sqlite.creating-")]
    j, note = open_journal(path)
    assert note is None and j.replay() is None
    assert not [p for p in tmp_path.iterdir() if ".creating-" in p.name]


def test_a_file_an_older_tianhei_left_half_set_up_is_set_aside_with_a_plain_message(tmp_path):
    """Before: the application id was written, the tables never were; every start then crashed with
    'no such table: records'."""
    path = tmp_path / "evening.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
    db.close()
    s = session("standard-2.0", 8, 1, "heuristic", journal_path=path)
    assert s.journal_note is not None
    assert "was never completely set up (journal format 0" in s.journal_note
    assert "journal journal" not in s.journal_note and "set aside as evening.sqlite.unreadable-" in s.journal_note
    assert play(s)["winner"] in ("good", "killers", "draw")


def test_an_empty_file_is_a_new_journal_and_an_empty_database_is_not_called_foreign(tmp_path):
    path = tmp_path / "evening.sqlite"
    path.write_bytes(b"")
    j, note = open_journal(path)
    assert note is None and j.replay() is None
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("PRAGMA journal_mode=WAL")  # how an older Tianhei began a journal, before any table
    db.close()
    _j, note = open_journal(other)
    assert note is not None and "never completely set up (an empty database)" in note


def test_a_journal_from_a_newer_tianhei_says_to_update(tmp_path):
    path = tmp_path / "evening.sqlite"
    SqliteJournal(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={journal_module.SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(JournalError) as err:
        SqliteJournal(path)
    assert "written by a newer Tianhei" in err.value.problem and "update Tianhei" in err.value.problem


def test_a_format_1_journal_is_upgraded_in_place_and_its_unfinished_game_is_not_resumed_blind(tmp_path, capsys):
    from controller.cli import main

    path = tmp_path / "evening.sqlite"
    s = session("standard-2.0", 8, 3, "heuristic", journal_path=path)
    s.start()
    s.run(max_time=100)  # mid-game (the voice pack's durations set how far 100 s gets)
    assert s.journal is not None
    s.journal.close()
    db = sqlite3.connect(path)  # as format 1 wrote it: no 'game' record
    db.execute("DELETE FROM records WHERE kind = 'game'")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    assert main(["run", "--players", "8", "--seed", "3", "--journal", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "an older Tianhei wrote it" in err and "--resume-saved" in err and "--abandon-saved" in err
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == journal_module.SCHEMA_VERSION
    assert main(["run", "--players", "8", "--seed", "3", "--journal", str(path), "--json", "--resume-saved"]) == 0


def test_a_journal_that_cannot_be_made_is_one_line_and_no_traceback(tmp_path, capsys):
    from controller.cli import main

    (tmp_path / "afile").write_text("not a folder")
    assert main(["run", "--players", "8", "--journal", str(tmp_path / "afile" / "j.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be set up" in err and "Traceback" not in err


def test_every_sqlite_error_while_playing_becomes_the_journals_own(tmp_path):
    path = tmp_path / "evening.sqlite"
    j = SqliteJournal(path)
    j.new_game()

    class Full:
        def execute(self, sql, *args):
            if sql.startswith("BEGIN"):
                raise sqlite3.OperationalError("database or disk is full")
            return None

    j.db = Full()  # type: ignore[assignment]
    with pytest.raises(JournalError) as err:
        j.note({"x": 1})
    assert "the disk is full" in str(err.value) and "free some space" in str(err.value)


# ---- safe points -------------------------------------------------------------------------------------------
def test_the_wal_is_folded_in_at_nightfall_dawn_and_the_end(tmp_path):
    path = tmp_path / "evening.sqlite"
    s = session("standard-2.0", 8, 2, "heuristic", journal_path=path)
    assert s.journal is not None
    wal = Path(f"{path}-wal")
    sizes: list[tuple[str, int]] = []
    original = s.journal.record_input

    def record_input(action, events, cards=None):
        original(action, events, cards=cards)
        for e in events:
            if isinstance(e, (NightFell, Dawn)) or e.type in ("game_created", "game_ended"):
                sizes.append((e.type, wal.stat().st_size if wal.exists() else 0))

    s.journal.record_input = record_input  # type: ignore[method-assign]
    play(s)
    kinds = {kind for kind, _ in sizes}
    assert {"game_created", "night_fell", "dawn", "game_ended"} <= kinds
    assert all(size == 0 for _, size in sizes), sizes


def test_a_lost_wal_costs_at_most_the_phase_being_played(tmp_path):
    """The journal's main file alone (the -wal lost) after commits through a game: it holds at least everything
    up to the start of the phase that was being played (its game set-up, last nightfall or last dawn)."""
    from tests.director.power_cut import record

    rec = record(("standard-2.0", 12, {}, False), 1, tmp_path / "rec")

    def whole(k: int) -> list[dict]:
        db, wal = rec.copy(k)
        target = tmp_path / f"whole-{k}.sqlite"
        shutil.copyfile(db, target)
        if wal.exists():
            shutil.copyfile(wal, f"{target}-wal")
        replay = SqliteJournal(target).replay()
        return [to_json(e) for e in replay.events] if replay is not None else []

    for k in range(2, rec.commits + 1, 13):
        alone = tmp_path / f"alone-{k}.sqlite"
        shutil.copyfile(rec.copy(k)[0], alone)
        replay = SqliteJournal(alone).replay()
        kept = [to_json(e) for e in replay.events] if replay is not None else []
        before = whole(k - 1)  # the phase being played when commit k was written began in here
        opens = [i for i, e in enumerate(before) if e["type"] in ("game_created", "night_fell", "dawn")]
        assert len(kept) >= (opens[-1] + 1 if opens else 0), f"commit {k}: lost more than the phase"
        assert kept == whole(k)[:len(kept)]


# ---- no unbounded writes ------------------------------------------------------------------------------------
def test_a_thousand_ok_presses_on_the_same_pick_write_one_pick(tmp_path):
    path = tmp_path / "evening.sqlite"
    t = ScriptedTable("standard-2.0", "K K P P C C C C", journal=SqliteJournal(path))
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 5)
    before = records(path)
    for _ in range(1000):
        t.table.click(1, Button.OK)
    assert records(path) == before
    picks = [e for e in t.director.events if isinstance(e, Picked) and e.seat == 1]
    assert picks == [Picked(1, 5)]
    t.point(1, 6)  # a change of mind is a change: written
    assert records(path) > before


def test_the_journal_writes_in_one_place():
    """Every record is written by _commit_rows: inline (_write) or by the writer thread, in groups."""
    source = Path(journal_module.__file__).read_text()
    assert source.count("INSERT INTO records") == 1
    assert source.count('"BEGIN IMMEDIATE"') == 3  # _commit_rows, the set-up, the format upgrade
    assert os.path.basename(journal_module.__file__) == "journal.py"


def test_a_journal_that_stops_taking_writes_refuses_the_input_and_says_why(tmp_path):
    """Durable first: an input the journal cannot record does not take effect; the seat and the remote say why,
    and once the disk is back the same press goes through."""
    path = tmp_path / "evening.sqlite"
    j = SqliteJournal(path)
    t = ScriptedTable("standard-2.0", "K K P P C C C C", journal=j)
    t.deal()
    t.until_window("night", "kill")
    real = j.db

    class Full:
        def execute(self, sql, *args):
            if sql.startswith("BEGIN"):
                raise sqlite3.OperationalError("database or disk is full")
            return real.execute(sql, *args)  # type: ignore[union-attr]

    j.db = Full()  # type: ignore[assignment]
    t.point(1, 5)
    assert 1 not in t.director.state.picks  # type: ignore[union-attr]
    assert any("the disk is full" in line for line in t.director.remote_lines) or \
        "disk is full" in str(t.screen(1))
    j.db = real
    t.table.click(1, Button.OK)
    assert t.director.state.picks.get(1) == 5  # type: ignore[union-attr]


def test_a_problem_around_the_file_is_said_and_the_journal_is_not_set_aside(tmp_path, monkeypatch):
    """Disk full, permissions, another program holding it, I/O: the journal is fine, setting it aside would hide
    the game; the error says what to do instead."""
    for text, fix in (("database is locked", "stop the other table"), ("attempt to write a readonly database",
                      "service user must own"), ("disk I/O error", "SD card"), ("database or disk is full", "free")):
        problem, damaged = journal_module._sqlite_problem(sqlite3.OperationalError(text))
        assert fix in problem and not damaged
    path = tmp_path / "evening.sqlite"
    SqliteJournal(path).close()

    def locked(self, p):
        raise JournalError(Path(p), "is in use by another program (database is locked); stop it", damaged=False)

    monkeypatch.setattr(SqliteJournal, "__init__", locked)
    with pytest.raises(JournalError):
        open_journal(path)
    assert path.exists() and not [p for p in tmp_path.iterdir() if "unreadable" in p.name]
