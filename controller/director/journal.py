"""The journal: every input and every rule event, written durably before it takes effect.

SQLite in WAL mode with ``synchronous=FULL``: a record is on disk when :meth:`SqliteJournal._write` returns,
so a power cut or ``kill -9`` at any moment loses nothing that was acted on. One file holds an evening of
games; each record carries its game number. Nothing is ever deleted: an undo is a record of its own, so the
judge's audit shows it.

Record kinds: ``game`` (what the game is, :class:`~controller.director.identity.GameIdentity`, written with
its set-up), ``input`` (an action, opening a group of events), ``event`` (a rule event), ``undo`` (drops the
last group), ``timer`` (a countdown checkpoint, for resuming "from what was left"), ``call`` (W3: the night call begun or
ended last, so that a call cut by the power is called again), ``note`` (director facts),
``closed`` (a game the judge closed unfinished: kept, marked abandoned).

Durability, the way the file is made and written:

* A new journal is built under a temporary name (schema and the file's identity, ``application_id`` and
  ``user_version``, in one transaction), made durable, then renamed into place: a ``kill -9`` during set-up
  leaves either no journal or a whole one, never a file without its tables. The file is created mode 0600
  (it holds every role and night choice); SQLite gives its ``-wal`` and ``-shm`` the same mode.
* Every write goes through :meth:`SqliteJournal._commit_rows`: inline on the caller's thread (:meth:`_write`,
  one transaction each), or, with a writer thread (:meth:`start_writer`, the live table), in groups: whatever
  queued while the last commit was on its way to the disk is committed together, one fsync for all, and each
  write's ``done`` is told on the loop once it is durable (controller/director/journal_writer.py). A write
  without ``done`` (a note, an undo) still returns only once durable: it waits for the queue in front of it.
* At safe points (a new game, nightfall, dawn, the end of a game, a game closed) the WAL is checkpointed into
  the main file and truncated, so a lost or damaged ``-wal`` costs at most the phase being played. A WAL
  found cut short on opening is copied aside first and the loss is said (:attr:`SqliteJournal.recovered`).
* Every SQLite error becomes a :class:`JournalError` naming the file and what to do.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.director.identity import GameIdentity
from controller.director.journal_error import JournalError
from controller.director.journal_writer import Batch, Done, ThreadedWriter, Writer
from controller.rules import actions as rule_actions
from controller.rules.events import Dawn, Event, GameCreated, GameEnded, NightFell, from_json, to_json
from controller.rules.night import first_victim
from controller.rules.options import OPTIONS

APPLICATION_ID = 0x54484549  # "THEI"
#: The journal's format. 1: records only. 2: adds the ``game`` and ``closed`` records (a version 1 journal is
#: upgraded in place when opened: its unfinished game, if any, then has no identity and the judge is asked).
#: The variant data a ``game_created`` event records has one default of its own in every format: a role named
#: ``killer`` recorded without ``nod`` nods (V2.2), as the engine decided before the variant files said it; the
#: files now say it, and the record keeps the old spelling, so old and new journals replay alike and need no
#: migration (controller/rules/variant_record.py).
SCHEMA_VERSION = 2
#: Set-up files a ``kill -9`` left behind (never a journal: they are renamed into place only once whole).
CREATING = ".creating"
#: Events after which the WAL is checkpointed: the start of a phase, the end of a game.
SAFE_POINTS = (GameCreated, NightFell, Dawn, GameEnded)


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
    #: W3: the night call begun or ended last (``{"night", "step", "open"}``), None before any.
    call: dict[str, Any] | None = None
    notes: list[dict[str, Any]] = field(default_factory=list)
    #: What the game is (None: written by a Tianhei from before journals said so).
    identity: GameIdentity | None = None
    #: The extra settings the table dealt it with (the card deck as UID -> role), to resume it as it was.
    deck: dict[str, str] | None = None
    #: At a deal with cards: dealer seat -> the cards it tapped, in order.
    cards: dict[int, tuple[str, ...]] | None = None
    #: Why the game was closed unfinished ("abandoned"), or None.
    closed: str | None = None
    #: The last record's sequence number and time (what a resume starts from).
    last_seq: int = 0
    last_at: float = 0.0

    @property
    def finished(self) -> bool:
        return self.closed is not None or any(isinstance(e, GameEnded) for e in self.events)


def _sqlite_problem(exc: sqlite3.Error) -> tuple[str, bool]:
    """SQLite's complaint in a table's words, with what to do; and whether the file itself is at fault."""
    text = str(exc)
    low = text.lower()
    if "disk is full" in low or "database or disk is full" in low:
        return f"cannot be written: the disk is full ({text}); free some space", False
    if "readonly" in low or "read-only" in low or "permission" in low or "unable to open" in low:
        return (f"cannot be opened for writing ({text}); the table's service user must own the file "
                "and its folder"), False
    if "locked" in low or "busy" in low:
        return f"is in use by another program ({text}); stop the other table or tool using it", False
    if "i/o" in low or "disk i/o" in low:
        return f"cannot be read or written ({text}); the SD card may be failing", False
    return f"is damaged or not a database ({text})", True


class SqliteJournal:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        #: What opening the journal recovered, when its WAL was found cut short (None: nothing was lost).
        self.recovered: str | None = None
        #: The game this table deals, written with each new game's set-up (:meth:`record_input`).
        self.identity: GameIdentity | None = None
        #: The card deck of that game (UID -> role), kept with the identity.
        self.deck: Mapping[str, str] | None = None
        self.db: sqlite3.Connection | None = None
        #: Where writes go when not inline (None: every write commits on the caller's thread, as in tests).
        self.writer: Writer | None = None
        #: One user of the connection at a time: the writer thread commits while the loop may read.
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if _nothing_in(self.path):  # no file, or an empty one with no WAL: nothing to keep
                self.path.unlink(missing_ok=True)
                _create(self.path)
            wal = Path(f"{self.path}-wal")
            wal_bytes = wal.stat().st_size if wal.exists() else 0
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._check_ours()
            self.db.execute("PRAGMA journal_mode=WAL")  # already so (it is kept in the file); a no-op then
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA journal_size_limit=0")  # a WAL reset by a checkpoint is truncated too
            self._check_wal(wal, wal_bytes)
            self.game = self._last_game()
        except sqlite3.Error as exc:
            self._close_quietly()
            raise JournalError(self.path, *_sqlite_problem(exc)) from None
        except OSError as exc:
            self._close_quietly()
            raise JournalError(self.path, f"cannot be set up ({exc.strerror or exc})", damaged=False) from None
        except JournalError:
            self._close_quietly()
            raise
        _tighten(self.path)

    def _close_quietly(self) -> None:
        if self.db is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.db = None

    def _conn(self) -> sqlite3.Connection:
        if self.db is None:
            raise JournalError(self.path, "is closed", damaged=False)
        return self.db

    def _check_ours(self) -> None:
        db = self._conn()
        app = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if app != APPLICATION_ID:
            if not tables:  # an empty database: a set-up by an older Tianhei cut short before its first step
                raise JournalError(self.path, "was never completely set up (an empty database)")
            raise JournalError(self.path, "is not a Tianhei journal (another program's database)")
        ok = db.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise JournalError(self.path, f"is damaged ({ok})")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise JournalError(self.path, f"was written by a newer Tianhei (journal format {version}; this one "
                                          f"reads formats 1 to {SCHEMA_VERSION}): update Tianhei to go on with it")
        if version < 1 or "records" not in tables:
            raise JournalError(self.path, f"was never completely set up (journal format {version}, "
                                          f"tables: {', '.join(sorted(tables)) or 'none'})")
        if version < SCHEMA_VERSION:  # 1 -> 2: new record kinds only; the file says it holds them
            db.execute("BEGIN IMMEDIATE")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("COMMIT")

    def _check_wal(self, wal: Path, wal_bytes: int) -> None:
        """A WAL longer than the frames SQLite could read back was cut short (a write torn by the power going,
        or damage): SQLite ignores the tail. Copy the whole WAL aside before anything rewrites it, say what was
        recovered, and checkpoint what is good into the main file."""
        db = self._conn()
        db.execute("SELECT COUNT(*) FROM records").fetchone()  # reading runs SQLite's WAL recovery
        _busy, frames, _done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        page = db.execute("PRAGMA page_size").fetchone()[0]
        good = 32 + frames * (24 + page) if frames > 0 else 0
        if wal_bytes <= max(good, 32):
            return
        aside = Path(f"{self.path}-wal.cut-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.copyfile(wal, aside)
        _tighten(aside)
        row = db.execute("SELECT seq, game, at FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        upto = ("an empty journal (no write had completed)" if row is None else
                f"every record up to #{row[0]} (game {row[1]}, written {time.strftime('%H:%M:%S', time.localtime(row[2]))})")
        self.recovered = (f"the journal's write-ahead log was cut short ({wal_bytes - good} bytes after its last "
                          f"complete write could not be read; kept as {aside.name}); recovered {upto}")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _last_game(self) -> int:
        row = self._conn().execute("SELECT MAX(game) FROM records").fetchone()
        return int(row[0] or 0)

    def close(self) -> None:
        """Close cleanly: what the writer holds written and told first, then the WAL checkpointed into the main
        file."""
        if self.writer is not None:
            writer, self.writer = self.writer, None
            writer.close()
        if self.db is None:
            return
        with self._lock, contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._close_quietly()

    def start_writer(self, post: Callable[[Callable[[], None]], object]) -> ThreadedWriter:
        """From now on commit on a thread of its own, in groups; ``post`` runs a callable on the loop
        (``loop.call_soon_threadsafe``): each write's ``done`` is told there. :meth:`close` stops it."""
        writer = ThreadedWriter(self._write_group, post)
        self.writer = writer
        return writer

    def flush(self) -> None:
        """Every write handed to the writer is on disk and its ``done`` told (nothing to do when inline)."""
        if self.writer is not None:
            self.writer.flush()

    # ---- writing ------------------------------------------------------------------------------------------
    def new_game(self) -> int:
        self.game += 1
        return self.game

    def _write(self, rows: Iterable[tuple[str, Any]], checkpoint: bool = False) -> None:
        """A write that returns once durable: ``rows`` in one transaction, committed (and fsync'd:
        synchronous=FULL); then, at a safe point, the WAL checkpointed into the main file and truncated. With a
        writer thread it goes behind the writes queued before it, and waits for them."""
        stamped = [(self.game, kind, data) for kind, data in rows]
        if self.writer is None:
            self._commit_rows(stamped, checkpoint)
            return
        failed: list[JournalError | None] = []
        self.writer.write(Batch(stamped, checkpoint, failed.append))
        self.writer.flush()
        if failed and failed[0] is not None:
            raise failed[0]

    def _hand_over(self, rows: Iterable[tuple[str, Any]], checkpoint: bool, done: Done, chains: bool) -> None:
        """A write whose outcome goes to ``done``: queued for the writer thread, or written inline now."""
        stamped = [(self.game, kind, data) for kind, data in rows]
        if self.writer is not None:
            self.writer.write(Batch(stamped, checkpoint, done, chains))
            return
        try:
            self._commit_rows(stamped, checkpoint)
        except JournalError as exc:
            done(exc)
            return
        done(None)

    def _write_group(self, batches: Sequence[Batch]) -> None:
        """The writer thread's commit: every batch queued since the last one, in one transaction (one fsync)."""
        self._commit_rows([row for b in batches for row in b.rows], any(b.checkpoint for b in batches))

    def _commit_rows(self, rows: Sequence[tuple[int, str, Any]], checkpoint: bool = False) -> None:
        """The one place records are written: ``(game, kind, data)`` rows in one transaction."""
        now = time.time()
        with self._lock:
            db = self._conn()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    db.executemany(
                        "INSERT INTO records (game, kind, data, at) VALUES (?, ?, ?, ?)",
                        [(game, kind, json.dumps(data, ensure_ascii=False), now) for game, kind, data in rows])
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise JournalError(self.path, *_sqlite_problem(exc)) from None
            if checkpoint:
                self.checkpoint()

    def checkpoint(self) -> None:
        """Fold the WAL into the main file and truncate it: a safe point, from which a lost ``-wal`` costs only
        what comes after."""
        try:
            with self._lock:
                self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise JournalError(self.path, *_sqlite_problem(exc)) from None

    def record_input(self, action: rule_actions.Action | None, events: Iterable[Event],
                     cards: Mapping[int, Sequence[str]] | None = None, done: Done | None = None) -> None:
        """An input and the events it caused, atomically. ``action`` None: the set-up (GameCreated, deal),
        written with what the game is (:attr:`identity`, :attr:`deck`) and, at a deal with cards, which cards
        each dealer tapped (``cards``). ``done``: return at once and be told on the loop when it is durable
        (the input was decided on top of the inputs still in flight: it is not written if one of them fails)."""
        events = list(events)
        rows: list[tuple[str, Any]] = []
        if action is None:
            rows.append(("game", {
                "identity": self.identity.to_json() if self.identity is not None else None,
                "deck": dict(self.deck) if self.deck is not None else None,
                "cards": {str(d): list(uids) for d, uids in cards.items()} if cards is not None else None}))
        rows.append(("input", action_to_json(action) if action else {"type": "setup"}))
        rows += [("event", to_json(e)) for e in events]
        safe = any(isinstance(e, SAFE_POINTS) for e in events)
        if done is None:
            self._write(rows, checkpoint=safe)
        else:
            self._hand_over(rows, safe, done, chains=True)

    def record_undo(self) -> None:
        self._write([("undo", {})])

    def record_timer(self, checkpoint: Mapping[str, Any], done: Done | None = None) -> None:
        """A countdown's checkpoint; ``done``: return at once and be told on the loop."""
        if done is None:
            self._write([("timer", dict(checkpoint))])
        else:
            self._hand_over([("timer", dict(checkpoint))], False, done, chains=False)

    def record_call(self, mark: Mapping[str, Any], done: Done | None = None) -> None:
        """W3: a night call begun or ended (night_calls.py); ``done``: return at once and be told on the loop."""
        if done is None:
            self._write([("call", dict(mark))])
        else:
            self._hand_over([("call", dict(mark))], False, done, chains=False)

    def note(self, data: Mapping[str, Any]) -> None:
        self._write([("note", dict(data))])

    def close_game(self, game: int, reason: str = "abandoned") -> None:
        """Close an unfinished game without playing it on: it stays in the journal, marked ``reason``."""
        if game != self.game:
            raise ValueError(f"only the journal's last game ({self.game}) can be closed, not {game}")
        self._write([("closed", {"reason": reason})], checkpoint=True)

    # ---- reading ------------------------------------------------------------------------------------------
    def replay(self, game: int | None = None) -> Replay | None:
        """The last game (or ``game``), with undone inputs dropped; None if the journal has none."""
        game = self.game if game is None else game
        if not game:
            return None
        self.flush()  # what was handed to the writer is part of the game
        try:
            with self._lock:
                rows = self._conn().execute(
                    "SELECT seq, kind, data, at FROM records WHERE game = ? ORDER BY seq", (game,)).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(self.path, *_sqlite_problem(exc)) from None
        if not rows:
            return None
        groups: list[tuple[dict[str, Any], list[Event]]] = []
        replay = Replay(game)
        for seq, kind, data, at in rows:
            replay.last_seq, replay.last_at = seq, at
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
                elif kind == "call":
                    replay.call = payload
                elif kind == "note":
                    replay.notes.append(payload)
                elif kind == "game":
                    if payload.get("identity") is not None:
                        replay.identity = GameIdentity.from_json(payload["identity"])
                    replay.deck = dict(payload["deck"]) if payload.get("deck") is not None else None
                    if payload.get("cards") is not None:
                        replay.cards = {int(d): tuple(u) for d, u in payload["cards"].items()}
                elif kind == "closed":
                    replay.closed = str(payload.get("reason", "closed"))
            except (ValueError, TypeError, KeyError) as exc:
                raise JournalError(self.path, f"record {seq} cannot be read ({exc})") from None
        for action, events in groups:
            replay.events.extend(events)
            replay.groups.append((action, len(events)))
        return replay

    def games(self) -> list[int]:
        self.flush()
        try:
            with self._lock:
                return [int(r[0]) for r in self._conn().execute("SELECT DISTINCT game FROM records ORDER BY game")]
        except sqlite3.Error as exc:
            raise JournalError(self.path, *_sqlite_problem(exc)) from None


def _create(path: Path) -> None:
    """Build a new, empty journal under a temporary name and rename it into place once whole and durable."""
    for stale in path.parent.glob(f".{path.name}{CREATING}-*"):
        stale.unlink(missing_ok=True)  # a set-up a kill -9 cut short: never a journal, nothing in it
    tmp = path.with_name(f".{path.name}{CREATING}-{os.getpid()}")
    os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    db = sqlite3.connect(str(tmp), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")  # outside any transaction (SQLite's rule); the file is not in place
        db.execute("BEGIN IMMEDIATE")
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("CREATE TABLE records (seq INTEGER PRIMARY KEY, game INTEGER NOT NULL,"
                   " kind TEXT NOT NULL, data TEXT NOT NULL, at REAL NOT NULL)")
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()  # the last connection: SQLite folds the WAL in and removes it
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    _fsync(tmp)
    os.replace(tmp, path)
    _fsync(path.parent)


def _nothing_in(path: Path) -> bool:
    """No journal there, or an empty file whose WAL is empty or absent (a set-up killed before its first write)."""
    if not path.exists():
        return True
    wal = Path(f"{path}-wal")
    return path.is_file() and path.stat().st_size == 0 and (not wal.exists() or wal.stat().st_size == 0)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tighten(path: Path) -> None:
    """Owner-only (0600) for a journal and its companions: they hold every role and night choice."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            if p.exists() and p.stat().st_mode & 0o077:
                p.chmod(0o600)
        except OSError:
            pass  # not ours to change (another user's file): reading it still works


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
    fresh journal started; the returned message says so, naming both files. A WAL found cut short is said
    too (what was recovered). A journal that cannot be set up at all (a folder that cannot be written) raises
    :class:`JournalError`: there is nothing to set aside."""
    p = Path(path)
    try:
        journal = SqliteJournal(p)
        return journal, journal.recovered
    except JournalError as exc:
        if not exc.damaged or not p.is_file():
            raise  # nothing wrong with the file: setting it aside would not help (and would hide the game)
        aside = p.with_name(f"{p.name}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            for suffix in ("", "-wal", "-shm"):
                src = Path(str(p) + suffix)
                if src.exists():
                    src.rename(Path(str(aside) + suffix))
        except OSError as err:
            raise JournalError(p, f"{exc.problem}; it could not be set aside ({err.strerror}): move it away "
                                  "and start again") from None
        return SqliteJournal(path), f"the journal {exc.problem}: set aside as {aside.name}; a new journal was started"
