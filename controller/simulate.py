"""Play many complete games with bots, fast, to tune role tables (``tianhei simulate``).

Every game draws its deal and its bots' choices from one ``random.Random(seed)``, so the same arguments and
seed always give the same counts.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.bots import POLICIES
from controller.bots.play import MAX_INPUTS, play, play_many
from controller.bots.stuck import StuckGame
from controller.rules.setup import GameConfig

__all__ = ["MAX_INPUTS", "StuckGame", "Summary", "play", "simulate"]


@dataclass
class Summary:
    games: int
    wins: Counter[str] = field(default_factory=Counter)
    draws: int = 0
    days_total: int = 0
    seconds: float = 0.0

    @property
    def mean_days(self) -> float:
        return self.days_total / self.games if self.games else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def interval(self, side: str) -> tuple[float, float]:
        """Wilson 95% confidence interval of the share of games ``side`` won."""
        n = self.games
        if n == 0:
            return 0.0, 0.0
        k = self.draws if side == "draw" else self.wins.get(side, 0)
        z = 1.959963984540054
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def as_json(self) -> dict[str, object]:
        sides = sorted(set(self.wins) | {"good", "killers"})
        return {
            "games": self.games,
            "wins": {side: self.wins.get(side, 0) for side in sides},
            "draws": self.draws,
            "ci95": {side: list(self.interval(side)) for side in [*sides, "draw"]},
            "mean_days": round(self.mean_days, 4),
            "games_per_second": round(self.games_per_second, 1),
        }


def simulate(config: GameConfig, policy: str, games: int, seed: int, first: str | None = None,
             progress: Callable[[int], None] | None = None) -> Summary:
    """``games`` games from one ``random.Random(seed)``. ``progress(n)`` is told every few games how many more
    were played (a progress bar); it does not change the games."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; use one of: {', '.join(POLICIES)}")
    rng = random.Random(seed)
    summary = Summary(games=games)
    factory = POLICIES[policy]
    started = time.perf_counter()
    step = max(1, min(100, games // 200))
    wins: dict[str, int] = {}
    done = 0
    while done < games:  # the games in chunks between two progress reports, each chunk played by compiled code
        if progress is not None and done:
            progress(step)
        chunk = min(step, games - done)
        draws, days = play_many(config, factory, rng, chunk, first, wins)
        summary.draws += draws
        summary.days_total += days
        done += chunk
    summary.wins.update(wins)
    summary.seconds = time.perf_counter() - started
    if progress is not None:
        progress(games - (games - 1) // step * step)
    return summary
