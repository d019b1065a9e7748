"""The quarantine: messages the hall or the league refused, kept in their own SQLite for a person to read
(``tianhei hall quarantine``, ``tianhei league quarantine``).

A refused message is acknowledged (so its sender stops sending it), so this table is the only place it is left:
who sent it, on which topic, which field was wrong and why, and the start of what came. The same message again
(a retained one on each reconnection, a resend from a hall that has not upgraded yet) is one row with a count, and
the table keeps the latest :data:`KEEP` rows, so a sender who publishes garbage all night fills no disk.

After an upgrade whose door would accept what an older one refused, ``tianhei hall quarantine retake ID|--all``
takes such messages again (:meth:`~controller.hall.service.HallService.retake`): each is checked by today's
schema, what passes is applied once (its game id decides) and leaves the quarantine, what still fails stays with
today's reason. Each row is named by :data:`ID_CHARS` characters of its digest.
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
#: How many characters of a row's digest name it (``tianhei hall quarantine``, ``retake ID``).
ID_CHARS = 12
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
    digest: str = ""

    @property
    def id(self) -> str:
        return self.digest[:ID_CHARS]

    def line(self, when: str) -> str:
        again = f" ({self.times} times)" if self.times > 1 else ""
        return (f"{self.id}  {when}  {self.sender}  {self.topic}  {self.field}: {self.why}{again}\n"
                f"    {self.payload[:200]}")


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
        "SELECT first, last, times, sender, topic, field, why, uid, payload, digest FROM quarantine "
        "ORDER BY last DESC LIMIT ?", (limit,))]


def find(db: sqlite3.Connection, ids: list[str]) -> tuple[list[Quarantined], list[str]]:
    """The rows named by ``ids`` (each the start of a digest, as listed; one row each), and the ids that name
    none or several."""
    found: list[Quarantined] = []
    unknown: list[str] = []
    for given in ids:
        prefix = given.strip().lower()
        hits = [] if not prefix or any(c not in "0123456789abcdef" for c in prefix) else [
            q for q in rows(db) if q.digest.startswith(prefix)]
        if len(hits) == 1:
            found.append(hits[0])
        else:
            unknown.append(given)
    return found, unknown


def take_out(db: sqlite3.Connection, digest: str) -> None:
    """A message taken again: it leaves the quarantine."""
    db.execute("DELETE FROM quarantine WHERE digest = ?", (digest,))


def still_refused(db: sqlite3.Connection, digest: str, field: str, why: str) -> None:
    """A message refused again when taken again: it stays, with today's reason."""
    db.execute("UPDATE quarantine SET field = ?, why = ? WHERE digest = ?", (field[:200], why[:300], digest))


def uids(db: sqlite3.Connection, sender: str, since: float) -> list[str]:
    """The game ids of ``sender``'s records refused since ``since`` (the league's receipt lists them: refused is
    answered, and the hall stops offering them)."""
    return [u for (u,) in db.execute("SELECT DISTINCT uid FROM quarantine WHERE sender = ? AND uid IS NOT NULL "
                                     "AND last >= ?", (sender, since))]
