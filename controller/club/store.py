"""The club database: one SQLite file (its own, never the journal), schema versioned and migrated on upgrade.

``PRAGMA user_version`` holds the schema version; :data:`MIGRATIONS` takes a file from any older version to the
current one, each step in one transaction, so an upgrade stopped half-way leaves the old version intact. A game
is written in one transaction with a UNIQUE key (its uid), so a game is recorded exactly once, also when the
table is killed while recording it: the transaction is either all there or not there, and the catch-up on the
next start records what is missing (recorder.py). Every SQLite problem becomes a :class:`ClubError` that names
the file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from controller.club.record import GameRecord
from controller.private_file import make_private
from controller.sqlite_tx import immediate

APPLICATION_ID = 0x54484342  # "THCB"


class ClubError(Exception):
    """A club database problem or a refused request, said in one line."""


def _v1(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE members (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE,"
               " card TEXT UNIQUE, base_level INTEGER NOT NULL DEFAULT 1, joined TEXT NOT NULL)")
    db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, table_name TEXT NOT NULL,"
               " journal_game INTEGER NOT NULL, room TEXT NOT NULL, variant TEXT NOT NULL,"
               " players INTEGER NOT NULL, started TEXT, length_s REAL, winner TEXT NOT NULL,"
               " reason TEXT NOT NULL, record TEXT NOT NULL, recorded TEXT NOT NULL)")
    db.execute("CREATE TABLE seats (game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
               " seat INTEGER NOT NULL, member_id INTEGER REFERENCES members(id), role TEXT NOT NULL,"
               " side TEXT NOT NULL, death INTEGER, cause TEXT, penalties INTEGER NOT NULL DEFAULT 0,"
               " PRIMARY KEY (game_id, seat))")


def _v2(db: sqlite3.Connection) -> None:
    """Version 2: each game belongs to a club evening (standings are per evening); older games get theirs
    from their start time."""
    db.execute("ALTER TABLE games ADD COLUMN evening TEXT")
    for gid, started, recorded in db.execute("SELECT id, started, recorded FROM games").fetchall():
        db.execute("UPDATE games SET evening = ? WHERE id = ?", (evening_of(started or recorded), gid))
    db.execute("CREATE INDEX games_evening ON games (evening)")
    db.execute("CREATE INDEX seats_member ON seats (member_id)")


#: MIGRATIONS[k] takes a database from version k to k + 1.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2)
SCHEMA_VERSION = len(MIGRATIONS)

#: A club evening runs past midnight: a game belongs to the evening of the date six hours earlier.
EVENING_SHIFT = timedelta(hours=6)


def evening_of(when: str | None) -> str:
    try:
        moment = datetime.fromisoformat(when) if when else datetime.now()
    except ValueError:
        moment = datetime.now()
    return (moment - EVENING_SHIFT).date().isoformat()


def now_iso() -> str:
    return datetime.now().isoformat(timespec="seconds")


@dataclass(frozen=True)
class Member:
    id: int
    name: str
    card: str | None
    #: The level the club gave on joining (the computed level never goes below it).
    base_level: int
    joined: str


def normalise_card(uid: str) -> str:
    """Card UIDs in one spelling (readers differ in case and separators)."""
    return "".join(ch for ch in uid.lower() if ch in "0123456789abcdef")


class ClubStore:
    def __init__(self, path: str | Path, *, upgrade_to: int = SCHEMA_VERSION) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            make_private(self.path)  # member names and card UIDs: owner-only, whoever started the process
            self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=10.0)
            self.db.execute("PRAGMA foreign_keys=ON")
            app = self.db.execute("PRAGMA application_id").fetchone()[0]
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = self.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
            if app not in (0, APPLICATION_ID) or (app == 0 and tables):
                raise ClubError(f"{self.path}: not a Tianhei club database (another program's file)")
            if version > SCHEMA_VERSION:
                raise ClubError(f"{self.path}: club database version {version}, this Tianhei reads up to "
                                f"{SCHEMA_VERSION}: upgrade Tianhei")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self._migrate(version, upgrade_to)
        except sqlite3.DatabaseError as exc:
            raise ClubError(f"{self.path}: not a readable club database ({exc})") from None

    def _migrate(self, version: int, target: int) -> None:
        for step in range(version, target):
            with self._tx():
                MIGRATIONS[step](self.db)
                self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                self.db.execute(f"PRAGMA user_version={step + 1}")

    @property
    def version(self) -> int:
        return int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def _tx(self) -> AbstractContextManager[None]:
        """One write transaction: all of it or nothing (controller/sqlite_tx.py)."""
        return immediate(self.db)

    def close(self) -> None:
        self.db.close()

    # ---- members ------------------------------------------------------------------------------------------
    def add_member(self, name: str, card: str | None = None, level: int = 1) -> Member:
        name = name.strip()
        if not name:
            raise ClubError("a member needs a name")
        if self.member(name) is not None:
            raise ClubError(f"there is already a member called {name!r}")
        if card is not None:
            self._card_free(card, None)
        if not 1 <= level <= 99:
            raise ClubError(f"level {level} is not a level: use 1 or more")
        with self._tx():
            self.db.execute("INSERT INTO members (name, card, base_level, joined) VALUES (?, ?, ?, ?)",
                            (name, normalise_card(card) if card else None, level, now_iso()))
        member = self.member(name)
        assert member is not None
        return member

    def _card_free(self, card: str, for_member: int | None) -> None:
        holder = self.member_by_card(card)
        if holder is not None and holder.id != for_member:
            raise ClubError(f"card {normalise_card(card)} is already {holder.name}'s member card")

    def set_card(self, name: str, card: str) -> Member:
        member = self.need_member(name)
        self._card_free(card, member.id)
        with self._tx():
            self.db.execute("UPDATE members SET card = ? WHERE id = ?", (normalise_card(card), member.id))
        return self.need_member(name)

    def _member(self, row: Sequence[Any] | None) -> Member | None:
        return Member(*row) if row else None

    def member(self, name: str) -> Member | None:
        return self._member(self.db.execute(
            "SELECT id, name, card, base_level, joined FROM members WHERE name = ?", (name.strip(),)).fetchone())

    def need_member(self, name: str) -> Member:
        member = self.member(name)
        if member is None:
            known = [m.name for m in self.members()]
            hint = f"; members: {', '.join(known[:8])}{' …' if len(known) > 8 else ''}" if known else \
                "; add one with `tianhei member add NAME`"
            raise ClubError(f"no member called {name!r}{hint}")
        return member

    def member_by_card(self, card: str) -> Member | None:
        return self._member(self.db.execute(
            "SELECT id, name, card, base_level, joined FROM members WHERE card = ?",
            (normalise_card(card),)).fetchone())

    def members(self) -> list[Member]:
        rows = self.db.execute("SELECT id, name, card, base_level, joined FROM members ORDER BY name").fetchall()
        return [Member(*r) for r in rows]

    # ---- games --------------------------------------------------------------------------------------------
    def has_game(self, uid: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE uid = ?", (uid,)).fetchone() is not None

    def add_game(self, record: GameRecord, *, replace: bool = False,
                 crash_point: Callable[[str], None] | None = None) -> int | None:
        """Write one game and its seats in one transaction. Returns its id, or None if it was already there
        (and ``replace`` is off). ``crash_point`` is a test hook called inside the transaction."""
        data = record.as_dict()
        data.pop("id", None)
        recorded = now_iso()
        with self._tx():
            old = self.db.execute("SELECT id FROM games WHERE uid = ?", (record.uid,)).fetchone()
            if old is not None and not replace:
                return None
            if old is not None:
                self.db.execute("DELETE FROM seats WHERE game_id = ?", (old[0],))
                self.db.execute("DELETE FROM games WHERE id = ?", (old[0],))
            cur = self.db.execute(
                "INSERT INTO games (id, uid, table_name, journal_game, room, variant, players, started, length_s,"
                " winner, reason, record, recorded, evening) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (old[0] if old else None, record.uid, record.table, record.journal_game, record.room,
                 record.variant, record.players, record.started, record.length_s, record.winner, record.reason,
                 json.dumps(data, ensure_ascii=False, sort_keys=True), recorded,
                 evening_of(record.started or recorded)))
            gid = int(cur.lastrowid or 0)
            if crash_point is not None:
                crash_point("game written, seats not yet")
            for s in record.seats:
                member = self.member(s.member) if s.member else None
                self.db.execute("INSERT INTO seats (game_id, seat, member_id, role, side, death, cause, penalties)"
                                " VALUES (?,?,?,?,?,?,?,?)", (gid, s.seat, member.id if member else None,
                                                              s.role, s.side, s.death, s.cause, s.penalties))
            if crash_point is not None:
                crash_point("seats written, not committed")
        return gid

    def game(self, gid: int) -> GameRecord:
        row = self.db.execute("SELECT id, record FROM games WHERE id = ?", (gid,)).fetchone()
        if row is None:
            last = self.db.execute("SELECT MAX(id) FROM games").fetchone()[0]
            raise ClubError(f"no game {gid} in the records" + (f" (games 1..{last})" if last else " (none yet)"))
        return GameRecord.from_dict(json.loads(row[1]), id=int(row[0]))

    def games(self, *, table: str | None = None, evening: str | None = None, member: str | None = None,
              limit: int | None = None, newest_first: bool = False) -> list[GameRecord]:
        sql = "SELECT g.id, g.record FROM games g"
        where: list[str] = []
        args: list[Any] = []
        if member is not None:
            m = self.need_member(member)
            where.append("g.id IN (SELECT game_id FROM seats WHERE member_id = ?)")
            args.append(m.id)
        if table is not None:
            where.append("g.table_name = ?")
            args.append(table)
        if evening is not None:
            where.append("g.evening = ?")
            args.append(evening)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY g.id" + (" DESC" if newest_first else "")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [GameRecord.from_dict(json.loads(r), id=int(i)) for i, r in self.db.execute(sql, args).fetchall()]

    def latest_evening(self) -> str | None:
        row = self.db.execute("SELECT evening FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return str(row[0]) if row and row[0] else None


def open_store(path: str | Path) -> ClubStore:
    """Open (or create and set up) the club database at ``path``."""
    return ClubStore(path)
