"""What the club's and the league's demo evenings share (controller/hall/demo.py, controller/league/demo.py): a
report that is right when it lists no problem, a bounded wait on the real brokers and tables, and a broker started
again without stopping the evening's loop."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol


class Startable(Protocol):
    def start(self) -> None: ...


@dataclass
class Report:
    """``problems``: what the demo's check found wrong (none: the evening is right); ``lines``: what it says."""

    problems: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


async def until(cond: Callable[[], bool], timeout: float, what: str, poll: float = 0.05) -> None:
    """Wait for something real processes do (a broker's delivery, a simulated table's game), ``TimeoutError``
    saying ``what`` after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError(what)
        await asyncio.sleep(poll)


async def restart(broker: Startable) -> None:
    """Start a killed broker again (it waits for its port, so in a worker thread: the evening plays on)."""
    await asyncio.get_running_loop().run_in_executor(None, broker.start)


async def tell(report: Report, say: Callable[[str], None], linger: float) -> None:
    """Say the report's lines, then keep the demo's page up ``linger`` seconds more."""
    for line in report.lines:
        say(line)
    if linger > 0:
        say(f"the page stays up {linger:g} s more")
        await asyncio.sleep(linger)


async def cancel_all(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel the evening's tasks and wait until each has ended."""
    tasks = list(tasks)
    for t in tasks:
        t.cancel()
    for t in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await t
