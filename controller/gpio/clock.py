"""An injectable clock: real hardware waits with ``time.sleep``; tests pass a fake that only moves time forward.

Every bounded wait in the drivers (a PN532 becoming ready, an MFRC522 finishing a transceive, the poll schedule)
goes through one of these, so a test can prove a wait is bounded without ever sleeping.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock for tests and benchmarks: ``sleep`` advances time instantly; ``cost`` models slow transfers."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        self.now += seconds
