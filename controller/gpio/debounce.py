"""Debouncing with an injected clock.

gpiozero can debounce in the pin driver, but its bounce timer reads the real clock, so tests would have to sleep.
Here a :class:`Debouncer` sees each raw edge with the time it arrived: the first edge after a quiet period is
taken at once (no added latency for a press), edges inside the ``bounce_s`` window after it are contact bounce
and dropped. If a real edge was dropped (a press shorter than the window), the next edge outside the window
notices that the level it reports equals the current state and replays the missed edge first, so no press is lost
and presses and releases always alternate.
"""

from __future__ import annotations


class Debouncer:
    """One input. ``edge(level, at)`` returns the accepted levels (True = pressed), oldest first."""

    def __init__(self, bounce_s: float = 0.02, initial: bool = False) -> None:
        self.bounce_s = bounce_s
        self.state = initial
        self._last_accept = float("-inf")
        self._dropped = False

    def edge(self, level: bool, at: float) -> list[bool]:
        if at - self._last_accept < self.bounce_s:
            self._dropped = True
            return []
        if level != self.state:
            self.state = level
            self._last_accept = at
            self._dropped = False
            return [level]
        if self._dropped:  # we swallowed a real edge inside the window: replay it before this one
            self._last_accept = at
            self._dropped = False
            return [not level, level]
        return []
