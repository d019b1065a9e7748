"""Power cuts the way SQLite tests itself: after the k-th journal commit, for every k, and in the middle of one.

:func:`record` plays a game once without interruption and keeps a copy of the journal's files on disk (main file
and ``-wal``, before any checkpoint) after each commit: exactly what a ``kill -9`` or a power cut right after
that commit leaves (``synchronous=FULL``: a commit is on disk when it returns). :func:`resume` starts a new table
on such a copy and plays the game to its end. :func:`torn` cuts the copy's WAL in the middle of the last
commit's frames, as a write cut short by the power going: the journal must fall back to the commit before.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.director.journal import SqliteJournal
from controller.director.journal_writer import Batch, VirtualWriter
from controller.rules.events import to_json
from controller.sessions.session import Session
from tests.director.helpers import session

#: (variant, players, options, deal with cards)
Setup = tuple[str, int, Mapping[str, Any], bool]


@dataclass
class Recording:
    """An uninterrupted game, its events, and the journal on disk after each of its commits."""

    setup: Setup
    seed: int
    folder: Path
    events: list[dict[str, Any]] = field(default_factory=list)
    #: Per commit (1-based index k - 1): the WAL's length before the commit (where its frames begin).
    wal_before: list[int] = field(default_factory=list)

    @property
    def commits(self) -> int:
        return len(self.wal_before)

    def copy(self, k: int) -> tuple[Path, Path]:
        return self.folder / f"after-{k}.sqlite", self.folder / f"after-{k}.sqlite-wal"


def _wal(path: Path) -> Path:
    return Path(f"{path}-wal")


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def new_session(setup: Setup, seed: int, path: Path) -> Session:
    variant, players, options, cards = setup
    return session(variant, players, seed, "heuristic", options, journal_path=path, cards=cards)


def record(setup: Setup, seed: int, folder: Path, card_s: float | None = None) -> Recording:
    """Play the game once; after each commit, copy the journal's files as a power cut would leave them.
    ``card_s``: on a slow card, through the journal's writer (:class:`VirtualWriter`): inputs in flight, several
    in one commit; a cut after a commit loses the inputs still in flight."""
    folder.mkdir(parents=True, exist_ok=True)
    rec = Recording(setup, seed, folder)
    path = folder / "whole.sqlite"
    s = new_session(setup, seed, path)
    journal = s.journal
    assert journal is not None

    def copied(commit: Callable[[], None]) -> None:
        before = _size(_wal(path))
        commit()
        rec.wal_before.append(before)
        db, wal = rec.copy(rec.commits)
        shutil.copyfile(path, db)
        if _wal(path).exists():
            shutil.copyfile(_wal(path), wal)

    if card_s is None:
        original = SqliteJournal._write

        def write(rows: Any, checkpoint: bool = False) -> None:
            copied(lambda: original(journal, rows, checkpoint=False))
            if checkpoint:
                journal.checkpoint()

        journal._write = write  # type: ignore[method-assign]
    else:
        def group(batches: Sequence[Batch]) -> None:
            copied(lambda: journal._commit_rows([row for b in batches for row in b.rows]))
            if any(b.checkpoint for b in batches):
                journal.checkpoint()

        journal.writer = VirtualWriter(group, s.clock, card_s)
    s.start()
    s.run(max_time=100_000)
    assert s.director.stage == "over"
    rec.events = [to_json(e) for e in s.director.events]
    journal.close()
    return rec


def resume(rec: Recording, k: int, *, torn: bool = False) -> tuple[list[dict[str, Any]], str | None]:
    """A new table on the journal as it was after commit ``k`` (``torn``: with commit k's write cut in half);
    played to the end. Returns its events and the journal's note on opening."""
    db, wal = rec.copy(k)
    target = rec.folder / f"resume-{k}{'-torn' if torn else ''}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(db, target)
    if wal.exists():
        shutil.copyfile(wal, _wal(target))
        if torn:
            before, after = rec.wal_before[k - 1], _size(wal)
            os.truncate(_wal(target), before + (after - before) // 2)
    s = new_session(rec.setup, rec.seed, target)
    note = s.journal_note
    s.start()
    s.run(max_time=100_000)
    assert s.director.stage == "over", f"the game resumed after commit {k} did not end"
    assert s.journal is not None
    s.journal.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    return [to_json(e) for e in s.director.events], note
