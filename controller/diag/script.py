"""A linear script of "show this, then wait for that" steps, run on a scheduler.

Diagnostics and enrollment are dialogues: ask seat 3 for ◀, wait, ask for ▶, ... Written as callbacks they
would be a tangle of timers; written as a generator they read top to bottom. A script is a generator that yields
:class:`Wait` (an input matching a filter, or ``None`` once the deadline passes) or :class:`Sleep`; the
:class:`ScriptRunner` resumes it from the scheduler's timers and from :meth:`ScriptRunner.handle`, the table's sink.
A script may also yield :class:`Ask`: a request another thread serves (the gpio adapter's I/O thread reading the
text on a card); the loop goes on meanwhile, and the script resumes with an :class:`Answer` on the loop.

Every wait has a deadline (RULES C5): a :class:`Wait` without one is rejected. While waiting, ``tick`` (if given)
is called once a second with the seconds left, so the seat can show a visible countdown.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from concurrent.futures import Future
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


@dataclass(frozen=True)
class Ask:
    """Resume with the :class:`Answer` to ``request()``, a future another thread completes, or with an Answer
    carrying an error once ``seconds`` have passed (RULES C5: nothing waits forever). Inputs that arrive
    meanwhile are not for this step and are dropped, as during a :class:`Sleep`."""

    seconds: float
    request: Callable[[], Future[Any]]
    what: str = "request"

    def __post_init__(self) -> None:
        if not self.seconds > 0 or math.isinf(self.seconds):
            raise ValueError(f"an ask needs a finite positive deadline, not {self.seconds!r} (RULES C5)")


@dataclass(frozen=True)
class Answer:
    """What an :class:`Ask` came back with: ``value``, or ``error`` (a sentence naming what failed)."""

    value: Any = None
    error: str | None = None


Step = Wait | Sleep | Ask
#: What a script's ``yield`` gives back: the input a Wait took, an Ask's Answer, or None (deadline, Sleep).
Resumed = InputEvent | Answer | None
Script = Generator[Step, Resumed, Any]


@dataclass
class ScriptRunner:
    """Runs one script; :attr:`done` and :attr:`result` (the generator's return value) tell how it ended."""

    scheduler: Scheduler
    script: Script
    listeners: list[Callable[[Wait], None]] = field(default_factory=list)
    #: How a thread that completes an :class:`Ask` hands the answer to the loop: the scheduler's ``call_soon``
    #: on a single-threaded scheduler, ``loop.call_soon_threadsafe`` on asyncio (set by the host).
    post: Callable[[Callable[[], Any]], Any] | None = None
    done: bool = False
    result: Any = None
    waiting: Wait | None = None
    _timer: Handle | None = None
    _ticker: Handle | None = None
    _deadline: float = 0.0
    _asking: Ask | None = None

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

    def _resume(self, value: Resumed) -> None:
        self._cancel_timers()
        self.waiting = None
        self._asking = None
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
        if isinstance(step, Ask):
            self._ask(step, now)
            return
        self.waiting = step
        self._deadline = now + step.seconds
        self._timer = self.scheduler.call_at(self._deadline, lambda: self._resume(None))
        if step.tick is not None:
            self._tick(step)
        for listener in list(self.listeners):
            listener(step)

    def _ask(self, ask: Ask, now: float) -> None:
        self._asking = ask
        late = Answer(error=f"{ask.what}: no answer within {ask.seconds:g} s")
        self._timer = self.scheduler.call_at(now + ask.seconds, lambda: self._answer(ask, late))
        try:
            future = ask.request()
        except Exception as exc:  # the request could not even be made: the script hears why
            failed = Answer(error=f"{ask.what}: {exc}")
            self.scheduler.call_soon(lambda: self._answer(ask, failed))
            return
        post = self.post or self.scheduler.call_soon

        def done(f: Future[Any]) -> None:  # on the thread that completed the future
            post(lambda: self._answer(ask, _outcome(f, ask.what)))

        future.add_done_callback(done)

    def _answer(self, ask: Ask, answer: Answer) -> None:
        """On the loop: resume the script if it still waits for this ask (a late answer after the deadline, or
        the deadline after an answer, is dropped)."""
        if self._asking is ask and not self.done:
            self._resume(answer)

    def _tick(self, wait: Wait) -> None:
        if self.waiting is not wait:
            return
        left = self._deadline - self.scheduler.now()
        assert wait.tick is not None
        wait.tick(left)
        next_whole = left - math.floor(left) or 1.0  # the next time the whole seconds shown change
        if left - next_whole > 0:
            self._ticker = self.scheduler.call_at(self.scheduler.now() + next_whole, lambda: self._tick(wait))


def _outcome(future: Future[Any], what: str) -> Answer:
    if future.cancelled():
        return Answer(error=f"{what}: cancelled")
    exc = future.exception()
    if exc is not None:
        return Answer(error=str(exc) or f"{what}: {type(exc).__name__}")
    return Answer(value=future.result())
