"""The hall's own SQLite: every message id it has taken (so a copy is dropped), the receipts it owes, the rooms'
last status, the results and records (each game once), the waiting list, who was sent where, and what was
announced. One transaction per message: a hall killed half-way through a message has taken all of it or none."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.hall import quarantine
from controller.hall.checks import stored_json
from controller.private_file import make_private

SCHEMA = """
CREATE TABLE IF NOT EXISTS seen (room TEXT NOT NULL, epoch TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (room, epoch, seq));
CREATE TABLE IF NOT EXISTS receipts (room TEXT NOT NULL, epoch TEXT NOT NULL, upto INTEGER NOT NULL,
    PRIMARY KEY (room, epoch));
CREATE TABLE IF NOT EXISTS rooms (room TEXT PRIMARY KEY, status TEXT NOT NULL DEFAULT '{}', status_seq TEXT NOT NULL
    DEFAULT '', at REAL NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0, sent TEXT NOT NULL DEFAULT '[]',
    next_variant TEXT NOT NULL DEFAULT '', players TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS results (game TEXT PRIMARY KEY, room TEXT NOT NULL, evening TEXT NOT NULL,
    at REAL NOT NULL, body TEXT NOT NULL, taken REAL NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS records (game TEXT PRIMARY KEY, room TEXT NOT NULL, at REAL NOT NULL, body TEXT NOT NULL,
    evening TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS waiting (name TEXT PRIMARY KEY, since REAL NOT NULL, how TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS announced (game TEXT PRIMARY KEY, room TEXT NOT NULL, at REAL NOT NULL);
"""


def _names(value: Any) -> list[str]:
    """A stored list of names as names (a hand-edited row may hold anything)."""
    return [str(n) for n in value] if isinstance(value, list) else []


class HallStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            make_private(self.path)  # who played where and with what result: owner only, whatever the umask
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        # Commits are not synced one by one (a few milliseconds each on an SD card, hundreds a game): the hall
        # syncs once before each batch of receipts goes out (sync()), so nothing it has acknowledged can be lost.
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.db.executescript(quarantine.SCHEMA)
        columns = {c for _, c, *_ in self.db.execute("PRAGMA table_info(records)")}
        if "evening" not in columns:  # a hall file from before the club's records: its provisional records (not
            # the club's) keep evening '' and so never count in a standing
            self.db.execute("ALTER TABLE records ADD COLUMN evening TEXT NOT NULL DEFAULT ''")
        self._marks: dict[tuple[str, str], tuple[int, set[int]]] = {}
        self._syncer: sqlite3.Connection | None = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            self._marks.clear()  # what take() noted in memory went with the transaction
            raise
        self.db.execute("COMMIT")

    # ---- ids and receipts --------------------------------------------------------------------------------------
    def take(self, room: str, epoch: str, seq: int, at: float) -> bool:
        """Note a message id; False if it was taken before (a copy). Call inside :meth:`transaction`."""
        cur = self.db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?, ?, ?)", (room, epoch, seq, at))
        if cur.rowcount != 1:
            return False
        upto, above = self._progress(room, epoch)
        if seq == upto + 1:
            upto += 1
            while upto + 1 in above:
                upto += 1
                above.discard(upto)
            self._marks[(room, epoch)] = (upto, above)
            self.db.execute("INSERT OR REPLACE INTO receipts VALUES (?, ?, ?)", (room, epoch, upto))
        elif seq > upto:
            above.add(seq)
        return True

    def _progress(self, room: str, epoch: str) -> tuple[int, set[int]]:
        """(every message up to this was taken, those taken above it), read from the file once per epoch."""
        key = (room, epoch)
        if key not in self._marks:
            row = self.db.execute("SELECT upto FROM receipts WHERE room = ? AND epoch = ?", key).fetchone()
            upto = int(row[0]) if row else 0
            above = {s for (s,) in self.db.execute(
                "SELECT seq FROM seen WHERE room = ? AND epoch = ? AND seq > ?", (room, epoch, upto))}
            while upto + 1 in above:
                upto += 1
                above.discard(upto)
            self._marks[key] = (upto, above)
        return self._marks[key]

    def receipt(self, room: str, epoch: str) -> tuple[int, int, list[int]]:
        """The receipt for (room, epoch): every message up to ``upto`` was taken, and those up to ``top`` except
        ``missing`` (at most 500 of them), so the table sends again only what never arrived."""
        upto, above = self._progress(room, epoch)
        top = max(above) if above else upto
        missing: list[int] = []
        for seq in range(upto + 1, top):
            if seq not in above:
                if len(missing) == 500:  # say no more than that: the receipt then stops short of this one
                    top = seq - 1
                    break
                missing.append(seq)
        return upto, top, missing

    def receipts(self) -> list[tuple[str, str, int]]:
        return [(r, e, int(u)) for r, e, u in self.db.execute("SELECT room, epoch, upto FROM receipts")]

    # ---- rooms -------------------------------------------------------------------------------------------------
    def room(self, room: str) -> dict[str, Any]:
        self.db.execute("INSERT OR IGNORE INTO rooms (room) VALUES (?)", (room,))
        status, status_seq, at, events, sent, nxt, players = self.db.execute(
            "SELECT status, status_seq, at, events, sent, next_variant, players FROM rooms WHERE room = ?",
            (room,)).fetchone()
        return {"status": stored_json(status, {}), "status_seq": status_seq, "at": at, "events": events,
                "sent": _names(stored_json(sent, [])), "next_variant": nxt, "players": _names(stored_json(players, []))}

    def update_room(self, room: str, **fields: Any) -> None:
        self.room(room)
        for key, value in fields.items():
            if key in ("status", "sent", "players"):
                value = json.dumps(value, ensure_ascii=False)
            self.db.execute(f"UPDATE rooms SET {key} = ? WHERE room = ?", (value, room))

    def rooms(self) -> list[str]:
        return [r for (r,) in self.db.execute("SELECT room FROM rooms ORDER BY room")]

    # ---- results and records -----------------------------------------------------------------------------------
    def add_result(self, game: str, room: str, evening: str, at: float, body: dict[str, Any],
                   taken: float = 0.0) -> bool:
        """``at``: when the table wrote it; ``taken``: when it reached the hall."""
        cur = self.db.execute("INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?)",
                              (game, room, evening, at, json.dumps(body, ensure_ascii=False), taken))
        return cur.rowcount == 1

    def add_record(self, uid: str, room: str, evening: str, at: float, body: dict[str, Any]) -> bool:
        """A game's club record, once by its uid (the club's identity of a game); ``at``: when the table wrote it."""
        cur = self.db.execute("INSERT OR IGNORE INTO records (game, room, at, body, evening) VALUES (?, ?, ?, ?, ?)",
                              (uid, room, at, json.dumps(body, ensure_ascii=False), evening))
        return cur.rowcount == 1

    def records(self, evening: str) -> list[dict[str, Any]]:
        """The club records of the evening's games, in the order the tables wrote them."""
        rows = self.db.execute("SELECT body FROM records WHERE evening = ? ORDER BY at", (evening,)).fetchall()
        return [stored_json(body) for (body,) in rows]

    def records_since(self, at: float) -> list[tuple[str, float, str, dict[str, Any]]]:
        """(room, written at, evening, record) of every club record the tables wrote since ``at``, oldest first."""
        rows = self.db.execute("SELECT room, at, evening, body FROM records WHERE at >= ? AND evening != '' "
                               "ORDER BY at", (at,)).fetchall()
        return [(room, float(when), evening, stored_json(body)) for room, when, evening, body in rows]

    def results(self, evening: str | None = None) -> list[dict[str, Any]]:
        q = "SELECT room, at, body FROM results" + (" WHERE evening = ?" if evening else "") + " ORDER BY at"
        rows = self.db.execute(q, (evening,) if evening else ()).fetchall()
        return [dict(body, room=room, at=at) if isinstance(body := stored_json(text), dict) else body
                for room, at, text in rows]

    def count(self, table: str) -> int:
        assert table in ("results", "records", "seen", "announced")
        return int(self.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    # ---- the quarantine (controller/hall/quarantine.py) ---------------------------------------------------------
    def keep_refused(self, at: float, sender: str, topic: str, field: str, why: str, payload: bytes) -> int:
        """Keep a refused message; call inside :meth:`transaction` (with the :meth:`take` that acknowledges it)."""
        return quarantine.keep(self.db, at, sender, topic, field, why, payload)

    def quarantined(self, limit: int = quarantine.KEEP) -> list[quarantine.Quarantined]:
        return quarantine.rows(self.db, limit)

    def take_out(self, digest: str) -> None:
        quarantine.take_out(self.db, digest)

    def refused_again(self, digest: str, field: str, why: str) -> None:
        quarantine.still_refused(self.db, digest, field, why)

    def quarantine_rows(self, ids: list[str]) -> tuple[list[quarantine.Quarantined], list[str]]:
        """The quarantined messages ``ids`` name (each as listed), and the ids that name none or several."""
        return quarantine.find(self.db, ids)

    def holds(self, kind: str, game: str) -> bool:
        """Whether a game's result (``kind`` "result") or club record ("record") is stored: the game id decides
        whether a message taken again from the quarantine is new."""
        table = {"result": "results", "record": "records"}[kind]
        return self.db.execute(f"SELECT 1 FROM {table} WHERE game = ?", (game,)).fetchone() is not None

    # ---- waiting list and announcements ------------------------------------------------------------------------
    def waiting(self) -> list[tuple[str, float]]:
        return [(n, s) for n, s in self.db.execute("SELECT name, since FROM waiting ORDER BY since, name")]

    def add_waiting(self, name: str, since: float, how: str) -> bool:
        return self.db.execute("INSERT OR IGNORE INTO waiting VALUES (?, ?, ?)", (name, since, how)).rowcount == 1

    def remove_waiting(self, name: str) -> bool:
        return self.db.execute("DELETE FROM waiting WHERE name = ?", (name,)).rowcount == 1

    def announce_once(self, game: str, room: str, at: float) -> bool:
        return self.db.execute("INSERT OR IGNORE INTO announced VALUES (?, ?, ?)", (game, room, at)).rowcount == 1

    def announcements(self, limit: int = 5) -> list[tuple[str, str, float]]:
        return [(g, r, a) for g, r, a in
                self.db.execute("SELECT game, room, at FROM announced ORDER BY at DESC LIMIT ?", (limit,))]

    def sync(self) -> None:
        """Make every commit so far survive a power cut: a checkpoint syncs the log first. It runs on a connection
        of its own, so the hall may call it from a thread and go on taking messages meanwhile."""
        if str(self.path) == ":memory:":
            return
        if self._syncer is None:
            self._syncer = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._syncer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        if self._syncer is not None:
            self._syncer.close()
        self.db.close()
