"""The card-reader schedule: every reader polled in turn, each at least every ``period`` seconds.

Readers share the I2C bus (and the bus lock) with the screens, so polls run one after another on one I/O thread.
A round polls every reader once; the next round starts ``period`` after the previous one started, or at once if
the round took longer. The scheduler records, per reader, the time between the starts of two consecutive polls,
so tests can state the worst case against the 100 ms promise.

A reader that keeps failing (unplugged, dead) costs its full timeout on every poll; after ``FAILING_AFTER``
failures in a row it is polled only every ``BACKOFF_ROUNDS`` rounds, so one broken seat cannot push the others
past the promise. It comes back to every round as soon as a poll succeeds.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.gpio.clock import Clock
from controller.nfc.reader import CardPresence

POLL_PROMISE_S = 0.100
FAILING_AFTER = 3
BACKOFF_ROUNDS = 10


class ReaderScheduler:
    def __init__(self, presences: Sequence[CardPresence], clock: Clock, period: float = 0.05) -> None:
        self.presences = list(presences)
        self.clock = clock
        self.period = period
        self.next_round = float("-inf")
        self._last_start: dict[int, float] = {}
        self.worst_interval = 0.0
        self.rounds = 0

    def due_in(self) -> float:
        """Seconds until the next round is due (0 when due now)."""
        return max(0.0, self.next_round - self.clock.monotonic())

    def setup(self) -> None:
        """Set every reader up (outside the measured schedule)."""
        for presence in self.presences:
            presence.setup()

    def poll_round(self) -> None:
        """Poll every reader once, measuring each reader's interval since its previous poll."""
        round_start = self.clock.monotonic()
        for presence in self.presences:
            if presence.failing >= FAILING_AFTER and self.rounds % BACKOFF_ROUNDS:
                continue
            start = self.clock.monotonic()
            previous = self._last_start.get(presence.seat)
            if previous is not None and presence.failing < FAILING_AFTER:
                self.worst_interval = max(self.worst_interval, start - previous)
            self._last_start[presence.seat] = start
            presence.poll()
        self.rounds += 1
        self.next_round = round_start + self.period

    def step(self) -> bool:
        """Run a round if one is due; True if it did."""
        if self.clock.monotonic() >= self.next_round:
            self.poll_round()
            return True
        return False
