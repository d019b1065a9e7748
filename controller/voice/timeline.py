"""When each utterance will be said, on the caller's clock: the queue logic both voice adapters share.

An utterance (one ``say`` call) starts when the one before it ends, or at once if the voice is idle. An urgent
one cuts in: it starts now and everything queued or playing is dropped, because urgent prompts (pause, errors,
the judge stepping in) mean the table's state has moved on; the director says again whatever still matters.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Utterance:
    """One ``say`` call: its prompt IDs and when, on the injected clock, it starts and ends."""

    prompts: tuple[str, ...]
    start: float
    end: float
    urgent: bool = False
    said_at: float = 0.0

    @property
    def duration(self) -> float:
        return self.end - self.start


class Timeline:
    """A FIFO of utterances with start and end times. It never sleeps; callers ask it what is due."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._queue: deque[Utterance] = deque()

    def add(self, prompts: Sequence[str], duration: float, *, urgent: bool = False) -> Utterance:
        now = self.clock()
        self.active(now)
        if urgent:
            self._queue.clear()
        start = self._queue[-1].end if self._queue else now
        utterance = Utterance(tuple(prompts), start, start + duration, urgent, now)
        self._queue.append(utterance)
        return utterance

    def active(self, now: float | None = None) -> list[Utterance]:
        """Utterances not yet finished at ``now``, the one being said first."""
        t = self.clock() if now is None else now
        while self._queue and self._queue[0].end <= t:
            self._queue.popleft()
        return list(self._queue)

    def idle_at(self) -> float:
        """When everything queued will have been said (now, if nothing is)."""
        now = self.clock()
        items = self.active(now)
        return items[-1].end if items else now

    def speaking(self, now: float | None = None) -> Utterance | None:
        """The utterance being said at ``now``, if any."""
        t = self.clock() if now is None else now
        items = self.active(t)
        return items[0] if items and items[0].start <= t else None
