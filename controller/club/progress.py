"""A progress bar for long runs (``tianhei simulate``, ``tianhei balance``): games done, games per second and
the time left, drawn by rich on stderr, so ``--json`` on stdout stays clean. Only on a terminal: a run in a
script or a test prints nothing extra. rich is imported only when a bar is drawn (start-up on a Pi Zero)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def wanted(enabled: bool = True) -> bool:
    return enabled and sys.stderr.isatty()


@contextmanager
def games_bar(total: int, label: str, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """Yields ``advance(games)``; draws the bar when stderr is a terminal, else does nothing."""
    if not wanted(enabled):
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Speed(ProgressColumn):
        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} games/s" if speed else "… games/s")

    with Progress(TextColumn("{task.description}"), BarColumn(bar_width=24), MofNCompleteColumn(), Speed(),
                  TextColumn("left"), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=False) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
