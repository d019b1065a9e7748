"""A linear script of "show this, then wait for that" steps, run on a scheduler.

Diagnostics and enrollment are dialogues: ask seat 3 for ◀, wait, ask for ▶, ... Written as callbacks they
would be a tangle of timers; written as a generator they read top to bottom. A script is a generator that yields
:class:`Wait` (an input matching a filter, or ``None`` once the deadline passes) or :class:`Sleep`; the
:class:`ScriptRunner` resumes it from the scheduler's timers and from :meth:`ScriptRunner.handle`, the table's sink.

Every wait has a deadline (RULES C5): a :class:`Wait` without one is rejected. While waiting, ``tick`` (if given)
is called once a second with the seconds left, so the seat can show a visible countdown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from controller.director.clock import Handle, Scheduler
from controller.ports import InputEvent


@dataclass(frozen=True)
class Wait:
    """Resume with the first input that ``accept`` takes (it may also act on the ones it refuses, e.g. to say
    "wrong button"), or with ``None`` when ``seconds`` have passed. ``hint`` tells simulated people what is
    expected (see :mod:`controller.diag.people`); it changes nothing for real ones."""

    seconds: float
    accept: Callable[[InputEvent], bool]
    hint: tuple[Any, ...] = ()
    tick: Callable[[float], None] | None = None

    def __post_init__(self) -> None:
        if not self.seconds > 0 or math.isinf(self.seconds):
            raise ValueError(f"a wait needs a finite positive deadline, not {self.seconds!r} (RULES C5)")


@dataclass(frozen=True)
class Sleep:
    seconds: float


Step = Wait | Sleep
Script = Generator[Step, InputEvent | None, Any]


@dataclass
class ScriptRunner:
    """Runs one script; :attr:`done` and :attr:`result` (the generator's return value) tell how it ended."""

    scheduler: Scheduler
    script: Script
    listeners: list[Callable[[Wait], None]] = field(default_factory=list)
    done: bool = False
    result: Any = None
    waiting: Wait | None = None
    _timer: Handle | None = None
    _ticker: Handle | None = None
    _deadline: float = 0.0

    def start(self) -> None:
        self.scheduler.call_soon(lambda: self._resume(None))

    def handle(self, event: InputEvent) -> None:
        """The table's sink (on the loop: adapters with threads hand events over first)."""
        wait = self.waiting
        if wait is None or self.done:
            return
        if wait.accept(event):
            self._resume(event)

    def _cancel_timers(self) -> None:
        for handle in (self._timer, self._ticker):
            if handle is not None:
                handle.cancel()
        self._timer = self._ticker = None

    def _resume(self, value: InputEvent | None) -> None:
        self._cancel_timers()
        self.waiting = None
        try:
            step = self.script.send(value)
        except StopIteration as stop:
            self.done = True
            self.result = stop.value
            return
        now = self.scheduler.now()
        if isinstance(step, Sleep):
            self._timer = self.scheduler.call_at(now + step.seconds, lambda: self._resume(None))
            return
        self.waiting = step
        self._deadline = now + step.seconds
        self._timer = self.scheduler.call_at(self._deadline, lambda: self._resume(None))
        if step.tick is not None:
            self._tick(step)
        for listener in list(self.listeners):
            listener(step)

    def _tick(self, wait: Wait) -> None:
        if self.waiting is not wait:
            return
        left = self._deadline - self.scheduler.now()
        assert wait.tick is not None
        wait.tick(left)
        next_whole = left - math.floor(left) or 1.0  # the next time the whole seconds shown change
        if left - next_whole > 0:
            self._ticker = self.scheduler.call_at(self.scheduler.now() + next_whole, lambda: self._tick(wait))
