"""The table's outbox: what it would publish, written to SQLite first, so the game never waits for the network.

A message gets the next sequence number of this outbox's *epoch* (a random name made when the file is created,
so a new file never reuses an old message's id). The sender (``mqtt.py``) publishes messages in sequence order
and marks them sent on the broker's PUBACK; the hall's receipt (``ack``: every message up to a sequence) marks
them acknowledged. A sent message without a receipt is sent again after a growing delay, because a broker killed
before it saved its queue may have lost it; the hall drops a copy it already has, by id. Acknowledged messages are
kept for a day, then pruned.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.private_file import make_private

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    retain INTEGER NOT NULL,
    created REAL NOT NULL,
    sent REAL,
    tries INTEGER NOT NULL DEFAULT 0,
    acked REAL
);
CREATE INDEX IF NOT EXISTS outbox_open ON outbox (acked, seq);
"""
#: Seconds before a sent message without the hall's receipt is sent again; doubled each try, up to the cap.
RESEND_S = 5.0
RESEND_CAP_S = 60.0
KEEP_ACKED_S = 86400.0


class OutboxError(Exception):
    """The outbox file cannot be used (the message names the file and the fix)."""


@dataclass(frozen=True, slots=True)
class Message:
    seq: int
    topic: str
    kind: str
    body: str
    retain: bool
    created: float

    def envelope(self, epoch: str, room: str) -> str:
        """The JSON sent on the wire (topics.py): the body inside the id, sequence, room and kind."""
        return (f'{{"id":"{epoch}-{self.seq}","epoch":"{epoch}","seq":{self.seq},"room":{json.dumps(room)},'
                f'"kind":"{self.kind}","at":{self.created:.3f},"body":{self.body}}}')


class Outbox:
    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.clock = clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            make_private(self.path)  # the games' results before they are sent: owner only, whatever the umask
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise OutboxError(f"{self.path}: cannot open the outbox ({exc}); check the [mqtt] outbox path and "
                              f"that the folder is writable") from None
        row = self.db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
        if row is None:
            self.epoch = uuid.uuid4().hex[:12]
            self.db.execute("INSERT INTO meta VALUES ('epoch', ?)", (self.epoch,))
        else:
            self.epoch = str(row[0])

    def next_game(self, room: str) -> str:
        """A name for the next game, unique for ever (room, epoch, count): results are counted once by it."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'games'").fetchone()
        n = int(row[0]) + 1 if row is not None else 1
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('games', ?)", (str(n),))
        return f"{room}-{self.epoch}-{n}"

    def put(self, topic: str, kind: str, body: Mapping[str, object], *, retain: bool = False,
            durable: bool = False) -> int:
        """Write one message; returns its sequence number. A local SQLite write, never the network.

        Every message survives the table's process being killed (WAL). ``durable`` ones (results, records) are
        also synced to the disk before this returns, so a power cut cannot lose them; the others (statuses,
        events: a few a second at most) skip that sync, which costs milliseconds on an SD card."""
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        if durable:
            self.db.execute("PRAGMA synchronous=FULL")
        try:
            cur = self.db.execute("INSERT INTO outbox (topic, kind, body, retain, created) VALUES (?, ?, ?, ?, ?)",
                                  (topic, kind, text, int(retain), self.clock()))
        finally:
            if durable:
                self.db.execute("PRAGMA synchronous=NORMAL")
        assert cur.lastrowid is not None
        return cur.lastrowid

    def due(self, limit: int = 100) -> list[Message]:
        """Messages to send now, in order: those sent without a receipt for longer than their delay (they may
        have died with the broker), then those never sent."""
        cols = "seq, topic, kind, body, retain, created"
        rows = self.db.execute(
            f"SELECT {cols} FROM outbox WHERE acked IS NULL AND sent IS NOT NULL "
            "AND sent + MIN(?, ? * (1 << (tries - 1))) <= ? ORDER BY seq LIMIT ?",
            (RESEND_CAP_S, RESEND_S, self.clock(), limit)).fetchall()
        if len(rows) < limit:
            rows += self.db.execute(f"SELECT {cols} FROM outbox WHERE sent IS NULL ORDER BY seq LIMIT ?",
                                    (limit - len(rows),)).fetchall()
        return [Message(seq, topic, kind, body, bool(retain), created)
                for seq, topic, kind, body, retain, created in rows]

    def mark_sent(self, seqs: list[int]) -> None:
        now = self.clock()
        self.db.executemany("UPDATE outbox SET sent = ?, tries = tries + 1 WHERE seq = ?", [(now, s) for s in seqs])

    def ack(self, epoch: str, upto: int, top: int | None = None, missing: Sequence[int] = ()) -> int:
        """The hall's receipt: it has every message up to ``upto`` of this epoch, and those up to ``top`` but the
        ``missing`` ones. Returns how many were newly acknowledged."""
        if epoch != self.epoch:
            return 0
        now = self.clock()
        cur = self.db.execute("UPDATE outbox SET acked = ? WHERE acked IS NULL AND seq <= ?", (now, upto))
        n = cur.rowcount
        if top is not None and top > upto:
            self.db.execute("UPDATE outbox SET acked = ? WHERE acked IS NULL AND seq > ? AND seq <= ? "
                            "AND seq NOT IN (SELECT value FROM json_each(?))",
                            (now, upto, top, json.dumps([int(m) for m in missing])))
        self.db.execute("DELETE FROM outbox WHERE acked IS NOT NULL AND acked < ?", (now - KEEP_ACKED_S,))
        return n

    def counts(self) -> dict[str, int]:
        """unsent / unacknowledged / total (figures for the benchmark and ``tianhei hall``)."""
        unsent, open_, total = self.db.execute(
            "SELECT COALESCE(SUM(sent IS NULL), 0), COALESCE(SUM(acked IS NULL), 0), COUNT(*) FROM outbox").fetchone()
        return {"unsent": int(unsent), "unacked": int(open_), "total": int(total)}

    def close(self) -> None:
        self.db.close()
