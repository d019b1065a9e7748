"""The club database: its own SQLite file, schema versioned and migrated on upgrade, clear errors."""

from __future__ import annotations

import sqlite3

import pytest

from controller.club import store as club_store
from controller.club.store import SCHEMA_VERSION, ClubError, ClubStore
from tests.club.helpers import a_record


def test_a_version_1_database_is_migrated_and_its_games_get_their_evening(tmp_path):
    path = tmp_path / "club.sqlite"
    old = ClubStore(path, upgrade_to=1)
    assert old.version == 1
    old.db.execute("INSERT INTO games (uid, table_name, journal_game, room, variant, players, started, length_s,"
                   " winner, reason, record, recorded) VALUES ('u1', 't', 1, 'standard', 'standard-2.0', 12,"
                   " '2026-11-30T01:30:00', 600, 'good', 'x', '{}', '2026-11-30T01:40:00')")
    old.close()
    new = ClubStore(path)
    assert new.version == SCHEMA_VERSION == 2
    # 01:30 after midnight still belongs to the evening that began on the 29th
    assert new.db.execute("SELECT evening FROM games").fetchone()[0] == "2026-11-29"


def test_a_migration_that_fails_half_way_leaves_the_old_version_intact(tmp_path, monkeypatch):
    path = tmp_path / "club.sqlite"
    ClubStore(path, upgrade_to=1).close()

    def broken(db):
        db.execute("ALTER TABLE games ADD COLUMN evening TEXT")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(club_store, "MIGRATIONS", (club_store.MIGRATIONS[0], broken))
    with pytest.raises(ClubError, match="not a readable club database"):
        ClubStore(path)
    monkeypatch.undo()
    again = ClubStore(path)  # the real migration now runs from version 1, as if nothing happened
    assert again.version == 2


def test_another_programs_database_and_a_newer_version_are_refused_with_the_reason(tmp_path):
    foreign = tmp_path / "other.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE x (a)")
    db.close()
    with pytest.raises(ClubError, match="not a Tianhei club database"):
        ClubStore(foreign)
    newer = tmp_path / "newer.sqlite"
    ClubStore(newer).db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(ClubError, match="upgrade Tianhei"):
        ClubStore(newer)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ClubError, match="not a readable club database"):
        ClubStore(junk)


def test_members_have_one_name_and_one_card_each(tmp_path):
    s = ClubStore(tmp_path / "c.sqlite")
    s.add_member("Ming", "04:A1:B2:C3")
    assert s.member_by_card("04a1b2c3").name == "Ming"  # readers spell UIDs differently
    with pytest.raises(ClubError, match="already a member called 'ming'"):
        s.add_member("ming")
    with pytest.raises(ClubError, match="already Ming's member card"):
        s.add_member("Hua", "04A1B2C3")
    with pytest.raises(ClubError, match="no member called 'Nobody'; members: Ming"):
        s.need_member("Nobody")
    s.add_member("Hua")
    s.set_card("Hua", "0badcafe")
    assert s.member_by_card("0BADCAFE").name == "Hua"


def test_a_game_is_written_once_whatever_happens_and_replaced_only_when_asked(tmp_path):
    s = ClubStore(tmp_path / "c.sqlite")
    record = a_record(4, members={1: "Ming"})
    s.add_member("Ming")
    gid = s.add_game(record)
    assert gid == 1 and s.add_game(record) is None
    assert s.game(1) == record
    assert s.add_game(record, replace=True) == 1 and len(s.games()) == 1

    def crash(point):
        if point == "seats written, not committed":
            raise KeyboardInterrupt  # the process dies inside the transaction

    other = a_record(5)
    with pytest.raises(KeyboardInterrupt):
        s.add_game(other, crash_point=crash)
    assert not s.has_game(other.uid)  # nothing of it is there: no game row without its seats
    assert s.db.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 12
    with pytest.raises(ClubError, match=r"no game 9 in the records \(games 1..1\)"):
        s.game(9)
