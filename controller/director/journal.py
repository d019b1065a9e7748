"""The journal: every input and every rule event, written durably before it takes effect.

SQLite in WAL mode with ``synchronous=FULL``: a record is on disk when :meth:`SqliteJournal.append` returns,
so a power cut or ``kill -9`` at any moment loses nothing that was acted on. One file holds an evening of
games; each record carries its game number. Nothing is ever deleted: an undo is a record of its own, so the
judge's audit shows it.

Record kinds: ``input`` (an action, opening a group of events), ``event`` (a rule event), ``undo`` (drops the
last group), ``timer`` (a countdown checkpoint, for resuming "from what was left"), ``note`` (director facts).
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules import actions as rule_actions
from controller.rules.events import Event, GameEnded, from_json, to_json
from controller.rules.night import first_victim
from controller.rules.options import OPTIONS

APPLICATION_ID = 0x54484549  # "THEI"
SCHEMA_VERSION = 1


class JournalError(Exception):
    """A journal file that is not ours or is damaged; carries the path."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


_ACTIONS = {cls.__name__: cls for cls in (
    rule_actions.Pick, rule_actions.GroupPick, rule_actions.Vote, rule_actions.Ballot, rule_actions.Pass,
    rule_actions.Timeout, rule_actions.ChooseDirection, rule_actions.Surrender, rule_actions.Eject,
    rule_actions.Penalty)}


def action_to_json(action: rule_actions.Action) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(action).__name__}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        out[f.name] = [list(v) for v in value] if f.name == "votes" else value
    return out


def action_from_json(data: Mapping[str, Any]) -> rule_actions.Action:
    cls = _ACTIONS.get(str(data.get("type")))
    if cls is None:
        raise ValueError(f"unknown input type {data.get('type')!r}")
    kwargs = {k: v for k, v in data.items() if k != "type"}
    if "votes" in kwargs:
        kwargs["votes"] = tuple(tuple(v) for v in kwargs["votes"])
    return cls(**kwargs)


@dataclass
class Replay:
    """A game read back from the journal."""

    game: int
    events: list[Event] = field(default_factory=list)
    #: Inputs still in effect, each with the number of events it produced.
    groups: list[tuple[dict[str, Any], int]] = field(default_factory=list)
    timer: dict[str, Any] | None = None
    notes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return any(isinstance(e, GameEnded) for e in self.events)


class SqliteJournal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            if existed:
                self._check_ours()
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if not existed:
                self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                self.db.execute("CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, game INTEGER NOT NULL,"
                                " kind TEXT NOT NULL, data TEXT NOT NULL, at REAL NOT NULL)")
        except sqlite3.DatabaseError as exc:
            raise JournalError(self.path, f"not a readable journal ({exc})") from None
        self.game = self._last_game()

    def _check_ours(self) -> None:
        app = self.db.execute("PRAGMA application_id").fetchone()[0]
        if app != APPLICATION_ID:
            raise JournalError(self.path, "not a Tianhei journal (another program's database)")
        ok = self.db.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise JournalError(self.path, f"damaged ({ok})")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise JournalError(self.path, f"journal version {version}, this Tianhei reads {SCHEMA_VERSION}")

    def _last_game(self) -> int:
        row = self.db.execute("SELECT MAX(game) FROM records").fetchone()
        return int(row[0] or 0)

    def close(self) -> None:
        self.db.close()

    # ---- writing ------------------------------------------------------------------------------------------
    def new_game(self) -> int:
        self.game += 1
        return self.game

    def _write(self, rows: Iterable[tuple[str, Any]]) -> None:
        now = time.time()
        with self.db:  # one transaction; committed (and fsync'd: synchronous=FULL) before returning
            self.db.execute("BEGIN IMMEDIATE")
            self.db.executemany(
                "INSERT INTO records (game, kind, data, at) VALUES (?, ?, ?, ?)",
                [(self.game, kind, json.dumps(data, ensure_ascii=False), now) for kind, data in rows])

    def record_input(self, action: rule_actions.Action | None, events: Iterable[Event]) -> None:
        """An input and the events it caused, atomically. ``action`` None: the set-up (GameCreated, deal)."""
        rows: list[tuple[str, Any]] = [("input", action_to_json(action) if action else {"type": "setup"})]
        rows += [("event", to_json(e)) for e in events]
        self._write(rows)

    def record_undo(self) -> None:
        self._write([("undo", {})])

    def record_timer(self, checkpoint: Mapping[str, Any]) -> None:
        self._write([("timer", dict(checkpoint))])

    def note(self, data: Mapping[str, Any]) -> None:
        self._write([("note", dict(data))])

    # ---- reading ------------------------------------------------------------------------------------------
    def replay(self, game: int | None = None) -> Replay | None:
        """The last game (or ``game``), with undone inputs dropped; None if the journal has none."""
        game = self.game if game is None else game
        if not game:
            return None
        rows = self.db.execute("SELECT seq, kind, data FROM records WHERE game = ? ORDER BY seq", (game,)).fetchall()
        if not rows:
            return None
        groups: list[tuple[dict[str, Any], list[Event]]] = []
        replay = Replay(game)
        for seq, kind, data in rows:
            try:
                payload = json.loads(data)
                if kind == "input":
                    groups.append((payload, []))
                    replay.timer = None
                elif kind == "event":
                    if not groups:
                        raise ValueError("an event before any input")
                    groups[-1][1].append(from_json(payload))
                elif kind == "undo":
                    if len(groups) > 1:
                        groups.pop()
                    replay.timer = None
                elif kind == "timer":
                    replay.timer = payload
                elif kind == "note":
                    replay.notes.append(payload)
            except (ValueError, TypeError) as exc:
                raise JournalError(self.path, f"record {seq} cannot be read ({exc})") from None
        for action, events in groups:
            replay.events.extend(events)
            replay.groups.append((action, len(events)))
        return replay

    def games(self) -> list[int]:
        return [int(r[0]) for r in self.db.execute("SELECT DISTINCT game FROM records ORDER BY game")]


def first_victims(journal: SqliteJournal, players: int) -> tuple[int, ...]:
    """V2.11: the first-night victims of the journal's latest games, oldest first: the ``history`` a new game at
    this table is set up with. Going back, the run stops at a game whose first kill night killed nobody or whose
    victim sits beyond a ``players`` table (either breaks a run of repeats), and after as many games as the
    option can ask about."""
    most = int(OPTIONS["first_victim.max_repeat"].maximum or 0)
    out: list[int] = []
    for game in reversed(journal.games()):
        if len(out) >= most:
            break
        replay = journal.replay(game)
        victim = first_victim(replay.events) if replay is not None else None
        if victim is None or victim > players:
            break
        out.append(victim)
    return tuple(reversed(out))


def open_journal(path: str | Path) -> tuple[SqliteJournal, str | None]:
    """Open the journal at ``path``. A foreign or damaged file is set aside (renamed, never deleted) and a
    fresh journal started; the returned message says so, naming both files."""
    try:
        return SqliteJournal(path), None
    except JournalError as exc:
        p = Path(path)
        aside = p.with_name(f"{p.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(p) + suffix)
            if src.exists():
                src.rename(Path(str(aside) + suffix))
        return SqliteJournal(path), f"journal {exc.problem}: set aside as {aside.name}; a new journal was started"
