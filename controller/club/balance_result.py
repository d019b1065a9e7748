"""What the balance lab found: one row per player count (wins per side, with Wilson intervals and the exact model
beside them) and the run's figures. The runner (balance.py) fills these in and the pictures (plots.py) draw them;
neither needs the other to read a result.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959963984540054
#: The outcomes as IDs (controller/rules/variant.SIDES and a draw): the keys of report.json and of a run's
#: counts. A person reads each side as the variant names it (:meth:`BalanceResult.side`).
SIDES = ("good", "killers", "draw")


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Row:
    """One player count: wins per side (draws under "draw"), with the exact shares where the model applies."""

    players: int
    composition: tuple[tuple[str, int], ...]
    games: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    days: int = 0
    exact: dict[str, float] | None = None

    def share(self, side: str) -> float:
        return self.wins.get(side, 0) / self.games if self.games else 0.0

    def interval(self, side: str) -> tuple[float, float]:
        return wilson(self.wins.get(side, 0), self.games)

    def z(self, side: str) -> float | None:
        """How many standard errors the simulated share lies from the exact one."""
        if self.exact is None or not self.games:
            return None
        p = self.exact.get(side, 0.0)
        se = math.sqrt(p * (1 - p) / self.games)
        diff = self.share(side) - p
        return 0.0 if se == 0 and diff == 0 else (diff / se if se else math.inf)

    def as_dict(self) -> dict[str, Any]:
        return {"players": self.players, "composition": dict(self.composition), "games": self.games,
                "mean_days": round(self.days / self.games, 4) if self.games else 0.0,
                "sides": {side: {"wins": self.wins.get(side, 0), "share": round(self.share(side), 5),
                                 "ci95": [round(x, 5) for x in self.interval(side)],
                                 **({"exact": round(self.exact.get(side, 0.0), 5),
                                     "z": round(self.z(side) or 0.0, 3)} if self.exact is not None else {})}
                          for side in SIDES}}


@dataclass
class BalanceResult:
    variant: str
    policy: str
    seed: int
    games: int
    jobs: int
    options: dict[str, object]
    rows: list[Row]
    seconds: float = 0.0
    #: CPU seconds each worker process spent playing (pid -> seconds): the benchmark's load-free figure.
    worker_cpu: dict[int, float] = field(default_factory=dict)
    #: The dask scheduler the chunks went to ("local": a LocalCluster here), or None: this machine's processes.
    cluster: str | None = None
    #: Seconds to start (or reach) the cluster and learn its workers, before the first game: not in ``seconds``.
    setup_seconds: float = 0.0
    #: Which rules each worker process played (pid -> "mypyc" or "python").
    worker_rules: dict[int, str] = field(default_factory=dict)
    #: Each side as the variant's ``[words.sides]`` names it, with its ID (``Werewolves (killers)``): the
    #: report's headers, summary and plot legends. A side missing here is shown by its ID.
    side_labels: dict[str, str] = field(default_factory=dict)

    def side(self, side: str) -> str:
        """What a person reads for the side ID ``side``."""
        return self.side_labels.get(side, side)

    @property
    def games_per_second(self) -> float:
        total = sum(r.games for r in self.rows)
        return total / self.seconds if self.seconds else 0.0

    def agrees(self, limit: float = 3.0) -> bool | None:
        """Every side of every row within ``limit`` standard errors of the exact model (None: no model)."""
        zs = [r.z(s) for r in self.rows for s in SIDES if r.exact is not None]
        if not zs:
            return None
        return all(z is not None and abs(z) <= limit for z in zs)

    def rules_line(self) -> str:
        """Which rules played the games: a worker without the compiled build (a club's spare machine where nobody
        ran the build) plays several times slower than the others, and is the first thing to fix."""
        source = sum(1 for r in self.worker_rules.values() if r != "mypyc")
        if not source:
            return "  rules: compiled with mypyc" + (" on every worker" if len(self.worker_rules) > 1 else "")
        build = "python -m controller.compiled_rules build (./dev fast) compiles them"
        if source == len(self.worker_rules):
            return f"  rules: Python source ({build}: several times the games/s)"
        return (f"  rules: {source} of {len(self.worker_rules)} workers played the Python source, several times "
                f"slower: on their machines, {build}")

    def summary_lines(self) -> list[str]:
        ran = f"{self.jobs} job(s)" if self.cluster is None else \
            f"cluster {self.cluster} ({self.setup_seconds:.1f} s to start), {self.jobs} worker(s)"
        lines = [f"{self.variant}, policy {self.policy}, {self.games} games a count, seed {self.seed}, {ran}: "
                 f"{self.games_per_second:,.0f} games/s"]
        for r in self.rows:
            parts = []
            for side in SIDES:
                lo, hi = r.interval(side)
                exact = f" exact {r.exact[side]:.1%}" if r.exact is not None else ""
                parts.append(f"{self.side(side)} {r.share(side):.1%} [{lo:.1%}-{hi:.1%}]{exact}")
            lines.append(f"  {r.players:>2}p: " + "; ".join(parts))
        lines.append(self.rules_line())
        agree = self.agrees()
        if agree is not None:
            lines.append("  the simulated rows agree with the exact model (every |z| <= 3)" if agree else
                         "  WARNING: a simulated row lies more than 3 standard errors from the exact model")
        return lines
