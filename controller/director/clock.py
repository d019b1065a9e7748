"""Time for the director: one scheduler interface, two implementations.

The director never sleeps and never reads a clock of its own: it asks a :class:`Scheduler` for ``now()`` and to
``call_at`` a time. :class:`AsyncioScheduler` is the real one (the asyncio loop's monotonic clock; hardware
callbacks from other threads are handed to the loop with ``call_soon_threadsafe``). :class:`VirtualScheduler`
jumps straight to the next timer, so a whole game runs in milliseconds, deterministically, in tests and in
``tianhei run``.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from typing import Any, Protocol


class Handle(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    def now(self) -> float: ...

    def call_at(self, when: float, callback: Callable[[], Any]) -> Handle: ...

    def call_soon(self, callback: Callable[[], Any]) -> Handle: ...


class TimerHandle:
    """A cancellable timer of a scheduler that keeps its own heap (virtual or bus-driven time)."""

    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], Any]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class VirtualScheduler:
    """A clock that only moves when :meth:`run` pops the next timer. Ties run in the order they were set."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, TimerHandle]] = []
        self._seq = itertools.count()
        self.stopped = False

    def now(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], Any]) -> TimerHandle:
        handle = TimerHandle(max(when, self._now), callback)
        heapq.heappush(self._heap, (handle.when, next(self._seq), handle))
        return handle

    def call_soon(self, callback: Callable[[], Any]) -> TimerHandle:
        return self.call_at(self._now, callback)

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        return self.call_at(self._now + delay, callback)

    def pending(self) -> int:
        return sum(1 for _, _, h in self._heap if not h.cancelled)

    def stop(self) -> None:
        self.stopped = True

    def run(self, until: Callable[[], bool] | None = None, max_steps: int = 10_000_000,
            max_time: float | None = None) -> int:
        """Run timers in time order until none is left, ``until()`` is true, or :meth:`stop` is called.
        Returns the number of callbacks run."""
        steps = 0
        self.stopped = False
        while self._heap and not self.stopped:
            if until is not None and until():
                break
            when, _, handle = heapq.heappop(self._heap)
            if handle.cancelled:
                continue
            if max_time is not None and when > max_time:
                heapq.heappush(self._heap, (when, next(self._seq), handle))
                self._now = max_time
                break
            self._now = when
            handle.callback()
            steps += 1
            if steps >= max_steps:
                raise RuntimeError(f"virtual scheduler: more than {max_steps} callbacks; a timer loop?")
        return steps


class AsyncioScheduler:
    """The real clock: the running asyncio loop's monotonic time."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def now(self) -> float:
        return self.loop.time()

    def call_at(self, when: float, callback: Callable[[], Any]) -> asyncio.TimerHandle:
        return self.loop.call_at(when, callback)

    def call_soon(self, callback: Callable[[], Any]) -> asyncio.Handle:
        return self.loop.call_soon(callback)

    def threadsafe(self, callback: Callable[[], Any]) -> None:
        """For adapters' threads: run ``callback`` on the loop."""
        self.loop.call_soon_threadsafe(callback)
