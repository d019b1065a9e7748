"""The league's own SQLite: every club's games (each once, by club and game uid), each club's latest standings as
its hall published them, the clubs' bridge states, and the people: one person per member card across clubs.

A person is known by keys: ``card:<uid>`` (a member card, the identity across clubs) and
``member:<club>:<name>`` (a member as one club names them). A seat that carries both links them; a seat without a
card is its club's name only, until someone merges the two records (``tianhei league merge``). Games are stored as
the clubs sent them and read through the keys, so a merge counts every game of both, past and future.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.club.store import normalise_card
from controller.hall import quarantine
from controller.hall.checks import stored_json
from controller.private_file import make_private
from controller.sqlite_tx import immediate

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (club TEXT NOT NULL, uid TEXT NOT NULL, room TEXT NOT NULL, at REAL NOT NULL,
    evening TEXT NOT NULL, record TEXT NOT NULL, taken REAL NOT NULL, PRIMARY KEY (club, uid));
CREATE INDEX IF NOT EXISTS games_at ON games (at);
CREATE TABLE IF NOT EXISTS club_standings (club TEXT NOT NULL, evening TEXT NOT NULL, body TEXT NOT NULL,
    taken REAL NOT NULL, PRIMARY KEY (club, evening));
CREATE TABLE IF NOT EXISTS clubs (club TEXT PRIMARY KEY, bridge TEXT NOT NULL DEFAULT '', since REAL NOT NULL
    DEFAULT 0);
CREATE TABLE IF NOT EXISTS people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, merged_into INTEGER);
CREATE TABLE IF NOT EXISTS keys (key TEXT PRIMARY KEY, person INTEGER NOT NULL REFERENCES people(id));
"""


class LeagueError(ValueError):
    """A refused request (an unknown person, a merge of someone with themselves), said in one line."""


def card_key(card: str) -> str:
    return f"card:{normalise_card(card)}"


def member_key(club: str, name: str) -> str:
    return f"member:{club}:{name}"


@dataclass(frozen=True)
class Person:
    id: int
    name: str
    keys: tuple[str, ...]

    @property
    def clubs(self) -> list[str]:
        return sorted({k.split(":", 2)[1] for k in self.keys if k.startswith("member:")})

    @property
    def cards(self) -> list[str]:
        return sorted(k.split(":", 1)[1] for k in self.keys if k.startswith("card:"))


class LeagueStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
            make_private(self.path)  # members' names and card UIDs: owner only
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=10.0)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")  # a game taken is a game kept (a few a minute at most)
        self.db.executescript(SCHEMA)
        self.db.executescript(quarantine.SCHEMA)

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction: all of it or nothing (controller/sqlite_tx.py)."""
        return immediate(self.db)

    # ---- games -------------------------------------------------------------------------------------------------
    def add_game(self, club: str, uid: str, room: str, at: float, evening: str, record: dict[str, Any],
                 taken: float) -> bool:
        """A game, once by (club, uid); False if the league has it already. Call inside :meth:`transaction`."""
        cur = self.db.execute("INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (club, uid, room, at, evening, json.dumps(record, ensure_ascii=False), taken))
        return cur.rowcount == 1

    def games(self, since: float | None = None, club: str | None = None) -> list[dict[str, Any]]:
        """Games oldest first: {"club", "uid", "room", "at", "evening", "record"}."""
        q, args = "SELECT club, uid, room, at, evening, record FROM games WHERE 1=1", list[object]()
        if since is not None:
            q += " AND at >= ?"
            args.append(since)
        if club is not None:
            q += " AND club = ?"
            args.append(club)
        rows = self.db.execute(q + " ORDER BY at, club, uid", args).fetchall()
        return [{"club": c, "uid": u, "room": r, "at": a, "evening": e, "record": stored_json(rec)}
                for c, u, r, a, e, rec in rows]

    def count_games(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    # ---- clubs -------------------------------------------------------------------------------------------------
    def set_club_standings(self, club: str, evening: str, body: list[dict[str, Any]], taken: float) -> None:
        self.db.execute("INSERT OR REPLACE INTO club_standings VALUES (?, ?, ?, ?)",
                        (club, evening, json.dumps(body, ensure_ascii=False), taken))

    def club_standings(self, club: str, until: str = "9999-12-31") -> tuple[str, list[Any]] | None:
        """(evening, standings) of the club's latest evening up to ``until``, as its hall published them."""
        row = self.db.execute("SELECT evening, body FROM club_standings WHERE club = ? AND evening <= ? "
                              "ORDER BY evening DESC LIMIT 1", (club, until)).fetchone()
        if row is None:
            return None
        rows = stored_json(row[1])
        return row[0], rows if isinstance(rows, list) else []

    # ---- the quarantine (controller/hall/quarantine.py) ---------------------------------------------------------
    def keep_refused(self, at: float, sender: str, topic: str, field: str, why: str, payload: bytes,
                   uid: str | None = None) -> int:
        """Keep a refused message (its own transaction); ``uid``: the game it offered, for the club's receipt."""
        with self.transaction():
            return quarantine.keep(self.db, at, sender, topic, field, why, payload, uid)

    def quarantined(self, limit: int = quarantine.KEEP) -> list[quarantine.Quarantined]:
        return quarantine.rows(self.db, limit)

    def quarantined_uids(self, sender: str, since: float) -> list[str]:
        return quarantine.uids(self.db, sender, since)

    def set_bridge(self, club: str, state: str, at: float) -> None:
        self.db.execute("INSERT INTO clubs VALUES (?, ?, ?) ON CONFLICT(club) DO UPDATE SET bridge = excluded.bridge,"
                        " since = excluded.since", (club, state, at))

    def clubs(self) -> dict[str, tuple[str, float]]:
        """Every club heard from: club -> (bridge state "up", "down" or "", since)."""
        out = {c: ("", 0.0) for (c,) in self.db.execute("SELECT DISTINCT club FROM games")}
        for club, state, since in self.db.execute("SELECT club, bridge, since FROM clubs"):
            out[club] = (state, since)
        return dict(sorted(out.items()))

    # ---- people ------------------------------------------------------------------------------------------------
    def _resolve(self, person: int) -> int:
        seen = set()
        while True:
            row = self.db.execute("SELECT merged_into FROM people WHERE id = ?", (person,)).fetchone()
            if row is None or row[0] is None or person in seen:
                return person
            seen.add(person)
            person = int(row[0])

    def person_of(self, key: str) -> int | None:
        row = self.db.execute("SELECT person FROM keys WHERE key = ?", (key,)).fetchone()
        return self._resolve(int(row[0])) if row else None

    def identify(self, club: str, name: str, card: str | None) -> int:
        """The person who sat at a seat as ``name`` of ``club`` with ``card``; a new person if nobody has
        either key. A card links the club's name to the card's person (the card is who they are): if the two
        were different people, they are merged. Call inside :meth:`transaction`."""
        keys = ([card_key(card)] if card else []) + [member_key(club, name)]
        found = [p for p in (self.person_of(k) for k in keys) if p is not None]
        if found:
            person = found[0]
            for other in found[1:]:
                if other != person:
                    self._merge(person, other)
        else:
            person = int(self.db.execute("INSERT INTO people (name) VALUES (?)", (name,)).lastrowid or 0)
        for k in keys:
            self.db.execute("INSERT OR IGNORE INTO keys VALUES (?, ?)", (k, person))
        return person

    def _merge(self, into: int, other: int) -> None:
        self.db.execute("UPDATE keys SET person = ? WHERE person = ?", (into, other))
        self.db.execute("UPDATE people SET merged_into = ? WHERE id = ? OR merged_into = ?", (into, other, other))

    def find(self, text: str) -> int:
        """A person by ``#id``, ``card:<uid>`` or ``<club>:<name>`` (``tianhei league members`` lists all three)."""
        text = text.strip()
        if text.startswith("#") and text[1:].isdigit():
            row = self.db.execute("SELECT id FROM people WHERE id = ?", (int(text[1:]),)).fetchone()
            person = self._resolve(int(row[0])) if row else None
        elif text.startswith("card:"):
            person = self.person_of(card_key(text[5:]))
        else:
            club, sep, name = text.partition(":")
            person = self.person_of(member_key(club, name)) if sep else None
        if person is None:
            raise LeagueError(f"no one in the league is {text!r}; name a person as #ID, card:UID or CLUB:NAME "
                              f"(tianhei league members lists them)")
        return person

    def merge(self, a: str, b: str) -> tuple[Person, Person]:
        """Make B's records A's: one person from then on (and for every game already in). Returns (A, B before)."""
        with self.transaction():
            pa, pb = self.find(a), self.find(b)
            if pa == pb:
                raise LeagueError(f"{a} and {b} are already one person (#{pa})")
            before = self.person(pb)
            self._merge(pa, pb)
        return self.person(pa), before

    def person(self, pid: int) -> Person:
        pid = self._resolve(pid)
        row = self.db.execute("SELECT name FROM people WHERE id = ?", (pid,)).fetchone()
        if row is None:
            raise LeagueError(f"no person #{pid}")
        keys = tuple(k for (k,) in self.db.execute("SELECT key FROM keys WHERE person = ? ORDER BY key", (pid,)))
        return Person(pid, str(row[0]), keys)

    def people(self) -> list[Person]:
        ids = [int(i) for (i,) in self.db.execute("SELECT id FROM people WHERE merged_into IS NULL ORDER BY id")]
        return [self.person(i) for i in ids]

    def key_map(self) -> dict[str, int]:
        """Every key -> its person now (merges followed)."""
        return {k: self._resolve(int(p)) for k, p in self.db.execute("SELECT key, person FROM keys")}

    def close(self) -> None:
        self.db.close()
