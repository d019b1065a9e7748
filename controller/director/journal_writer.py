"""The journal's writer thread: the disk's wait off the event loop, one fsync for every write that queued behind it.

On an SD card a commit's fsync takes ~10 ms. Written on the loop, every press would wait for it, and a burst of
presses (a vote's hands) would wait for each other's. Here the loop hands a :class:`Batch` to the thread and goes
on; the thread writes everything queued since its last commit in ONE transaction (group commit: one fsync for a
whole burst), then hands each batch's ``done`` back to the loop, in the order the batches were given, through
``post`` (``loop.call_soon_threadsafe``). So "written before it takes effect" still holds for whatever waits for
``done``: the director shows a press's own effects at once and lets the room learn its consequences only there.

A failed commit (disk full) fails every batch in it. A batch that ``chains`` builds on the ones before it (an
input stepped on a game state that includes the inputs still in flight): once one of those fails, every chained
batch handed over before the loop, having dropped them all, calls :meth:`ThreadedWriter.reset` fails unwritten
too, even if the disk is back by then (an epoch counts the resets). Without that, a later input could reach the
disk without the one it was decided after.

Tests run the thread for real (it is the thread they test) and never sleep: :meth:`ThreadedWriter.flush` waits
for the queue to be written and runs the ``done`` callbacks on the calling thread. The director under the virtual
clock uses no thread at all (the journal writes inline) or :class:`VirtualWriter`, which commits after a set
virtual delay, as a slow card would.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from controller.director.journal_error import JournalError

if TYPE_CHECKING:
    from controller.director.clock import Handle, Scheduler

log = logging.getLogger(__name__)

#: Told, on the loop, once the batch is durable (None) or could not be written (the error).
Done = Callable[["JournalError | None"], None]


@dataclass(eq=False)
class Batch:
    """One write: its records (game number, kind, data) in one atomic group, in the order given."""

    rows: list[tuple[int, str, Any]]
    #: After this batch, fold the WAL into the main file (a safe point).
    checkpoint: bool = False
    done: Done | None = None
    #: Decided on top of the batches before it: not written once one of those failed (see the module's doc).
    chains: bool = False
    #: The writer's resets before it was handed over (set by the writer).
    epoch: int = 0


class Writer(Protocol):
    """Where a journal hands its writes when it does not write inline."""

    def write(self, batch: Batch) -> None: ...

    def flush(self) -> None: ...

    def reset(self) -> None: ...

    def close(self) -> None: ...


def _deliver(batch: Batch, error: JournalError | None) -> None:
    if batch.done is not None:
        batch.done(error)
    elif error is not None:
        log.error("%s", error)


class ThreadedWriter:
    """A thread that commits the queued batches together and posts their outcome back to the loop."""

    def __init__(self, commit: Callable[[Sequence[Batch]], None],
                 post: Callable[[Callable[[], None]], object]) -> None:
        #: Writes the batches in one transaction (checkpointing if one asks), or raises JournalError.
        self._commit = commit
        self._post = post
        #: The loop's thread (the writer is started there): only there are the ``done`` callbacks run.
        self._home = threading.get_ident()
        self._cond = threading.Condition()
        self._queue: deque[Batch] = deque()
        self._written: deque[tuple[Batch, JournalError | None]] = deque()
        self._busy = False
        self._closed = False
        #: The last failure of a chained batch, and the epoch it doomed (see the module's doc).
        self._failed: JournalError | None = None
        self._dead = -1
        self._epoch = 0
        #: Transactions committed and batches written (a benchmark's figures: the batches per fsync).
        self.commits = 0
        self.batches = 0
        self._thread = threading.Thread(target=self._run, name="journal-writer", daemon=True)
        self._thread.start()

    def write(self, batch: Batch) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("the journal's writer is closed")
            batch.epoch = self._epoch
            self._queue.append(batch)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return  # closed, and everything handed over is written
                group = list(self._queue)
                self._queue.clear()
                self._busy = True
                failed, dead = self._failed, self._dead
            fresh = [b for b in group if not (b.chains and b.epoch <= dead)]
            error: JournalError | None = None
            if fresh:
                try:
                    self._commit(fresh)
                except JournalError as exc:
                    error = exc
                except Exception as exc:  # never let the thread die with the loop waiting for it
                    error = JournalError(_path_of(self._commit), f"could not be written ({exc})", damaged=False)
            with self._cond:
                if error is None and fresh:
                    self.commits += 1
                    self.batches += len(fresh)
                if error is not None and any(b.chains for b in fresh):
                    self._failed, self._dead = error, max(b.epoch for b in fresh if b.chains)
                for b in group:
                    self._written.append((b, error if b in fresh else failed))
                self._busy = False
                self._cond.notify_all()
            try:
                self._post(self.deliver)
            except RuntimeError:  # the loop is closed: whoever closes the writer delivers (close, flush)
                log.debug("journal writer: the loop is closed; its outcome waits for close()")

    def deliver(self) -> None:
        """On the loop: tell each written batch's ``done``, in the order the batches were given."""
        while True:
            with self._cond:
                if not self._written:
                    return
                batch, error = self._written.popleft()
            _deliver(batch, error)

    def flush(self) -> None:
        """Wait until every batch handed over is written; on the loop, tell their ``done`` now (from another
        thread, a reader's, they stay posted to the loop)."""
        with self._cond:
            while self._queue or self._busy:
                self._cond.wait()
        if threading.get_ident() == self._home:
            self.deliver()

    def reset(self) -> None:
        """On the loop, once it has dropped every input that was decided after a failed one: what it hands over
        from now on is written again (what it handed over before still fails)."""
        with self._cond:
            self._epoch += 1

    def close(self) -> None:
        """Write what is queued, tell it, and stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join()
        if threading.get_ident() == self._home:
            try:  # the table may be stopping around it: what was written stays written whatever the telling does
                self.deliver()
            except Exception as exc:
                log.warning("journal writer: telling the last writes at shutdown failed (%s); they are on disk", exc)


class VirtualWriter:
    """For tests under the virtual clock: a card whose every commit takes ``delay`` (virtual) seconds, with the
    same group commit and ordering as the thread. A batch handed over while a commit is in flight waits for the
    next one, with every other batch handed over meanwhile."""

    def __init__(self, commit: Callable[[Sequence[Batch]], None], scheduler: Scheduler, delay: float) -> None:
        self._commit = commit
        self.clock = scheduler
        self.delay = delay
        self._queue: deque[Batch] = deque()
        self._in_flight: list[Batch] = []
        self._timer: Handle | None = None
        self._failed: JournalError | None = None
        self._dead = -1
        self._epoch = 0
        self.commits = 0
        self.batches = 0

    def write(self, batch: Batch) -> None:
        batch.epoch = self._epoch
        self._queue.append(batch)
        if not self._in_flight:
            self._begin()

    def _begin(self) -> None:
        self._in_flight = list(self._queue)
        self._queue.clear()
        self._timer = self.clock.call_at(self.clock.now() + self.delay, self._end)

    def _end(self) -> None:
        group, self._in_flight, self._timer = self._in_flight, [], None
        self._finish(group)
        if self._queue and not self._in_flight:
            self._begin()

    def _finish(self, group: list[Batch]) -> None:
        failed = self._failed
        fresh = [b for b in group if not (b.chains and b.epoch <= self._dead)]
        error: JournalError | None = None
        if fresh:
            try:
                self._commit(fresh)
                self.commits += 1
                self.batches += len(fresh)
            except JournalError as exc:
                error = exc
                if any(b.chains for b in fresh):
                    self._failed, self._dead = exc, max(b.epoch for b in fresh if b.chains)
        for b in group:
            _deliver(b, error if b in fresh else failed)

    def flush(self) -> None:
        """Commit what is in flight and queued now (the virtual time does not move)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while self._in_flight or self._queue:
            group = self._in_flight + list(self._queue)
            self._in_flight, self._queue = [], deque()
            self._finish(group)

    def reset(self) -> None:
        self._epoch += 1

    def close(self) -> None:
        self.flush()


def _path_of(commit: Callable[..., Any]) -> Any:
    """The journal's path, for an error from a bound ``commit`` that is not the journal's own."""
    from pathlib import Path

    owner = getattr(commit, "__self__", None)
    return getattr(owner, "path", Path("journal"))
