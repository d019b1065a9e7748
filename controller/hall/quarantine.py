"""The quarantine: messages the hall or the league refused, kept in their own SQLite for a person to read
(``tianhei hall quarantine``, ``tianhei league quarantine``).

A refused message is acknowledged (so its sender stops sending it), so this table is the only place it is left:
who sent it, on which topic, which field was wrong and why, and the start of what came. The same message again
(a retained one on each reconnection, a resend from a hall that has not upgraded yet) is one row with a count, and
the table keeps the latest :data:`KEEP` rows, so a sender who publishes garbage all night fills no disk.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass

SCHEMA = """
CREATE TABLE IF NOT EXISTS quarantine (digest TEXT PRIMARY KEY, first REAL NOT NULL, last REAL NOT NULL,
    times INTEGER NOT NULL, sender TEXT NOT NULL, topic TEXT NOT NULL, field TEXT NOT NULL, why TEXT NOT NULL,
    uid TEXT, payload TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS quarantine_last ON quarantine (last);
"""
#: Rows kept (the oldest go first).
KEEP = 1000
#: How much of a payload is kept: a whole club record of 32 seats (so a record refused by a fault of the door
#: itself can be taken again by hand), at most 16 MB in all.
PAYLOAD_CHARS = 16_000


@dataclass(frozen=True)
class Quarantined:
    first: float
    last: float
    times: int
    sender: str
    topic: str
    field: str
    why: str
    uid: str | None
    payload: str

    def line(self, when: str) -> str:
        again = f" ({self.times} times)" if self.times > 1 else ""
        return f"{when}  {self.sender}  {self.topic}  {self.field}: {self.why}{again}\n    {self.payload[:200]}"


def keep(db: sqlite3.Connection, at: float, sender: str, topic: str, field: str, why: str, payload: bytes,
         uid: str | None = None) -> int:
    """Keep one refused message (a copy of one already kept counts it again); returns how often it came."""
    digest = hashlib.sha256(topic.encode() + b"\0" + payload).hexdigest()
    shown = payload[:PAYLOAD_CHARS * 4].decode("utf-8", "replace")[:PAYLOAD_CHARS]
    db.execute("INSERT INTO quarantine VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?) ON CONFLICT(digest) DO UPDATE SET "
               "last = excluded.last, times = times + 1", (digest, at, at, sender[:80], topic[:200], field[:200],
                                                           why[:300], uid, shown))
    db.execute("DELETE FROM quarantine WHERE digest IN (SELECT digest FROM quarantine ORDER BY last DESC "
               "LIMIT -1 OFFSET ?)", (KEEP,))
    return int(db.execute("SELECT times FROM quarantine WHERE digest = ?", (digest,)).fetchone()[0])


def rows(db: sqlite3.Connection, limit: int = KEEP) -> list[Quarantined]:
    """The latest first."""
    return [Quarantined(*r) for r in db.execute(
        "SELECT first, last, times, sender, topic, field, why, uid, payload FROM quarantine ORDER BY last DESC "
        "LIMIT ?", (limit,))]


def uids(db: sqlite3.Connection, sender: str, since: float) -> list[str]:
    """The game ids of ``sender``'s records refused since ``since`` (the league's receipt lists them: refused is
    answered, and the hall stops offering them)."""
    return [u for (u,) in db.execute("SELECT DISTINCT uid FROM quarantine WHERE sender = ? AND uid IS NOT NULL "
                                     "AND last >= ?", (sender, since))]
