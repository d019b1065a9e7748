"""The exact outcome of uninformed play, for the balance lab to set beside its simulated rows.

In the uninformed model (the published Mafia analyses) nobody knows anything: each night the killers kill a
uniformly random living non-killer, each day everyone votes for one uniformly random living player, who is
executed. The police's checks change nothing, so the chance of every outcome depends only on how many of each
role are alive, and a dynamic program over those counts with the variant's win table (V1.4, V2.9; checked after
the dawn and after each execution, C8) gives it exactly. The same model checks the engine in
tests/rules/test_uninformed_exact.py.

It exists for variants whose win table has only "all dead" rows and whose night has one kill and no other
power that changes who lives (classic-1.0, standard-2.0); :func:`exact_shares` says None elsewhere.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from controller.rules.setup import GameConfig

Counts = tuple[int, ...]
Outcome = tuple[tuple[tuple[str, int], float], ...]

#: Variants whose uninformed play the model describes exactly (one kill a night, police checks only).
EXACT_VARIANTS = ("classic-1.0", "standard-2.0")


def _minus(counts: Counts, i: int) -> Counts:
    return (*counts[:i], counts[i] - 1, *counts[i + 1:])


class ExactModel:
    def __init__(self, config: GameConfig) -> None:
        self.roles = tuple(r for r, _ in config.composition)
        self.start = tuple(n for _, n in config.composition)
        killers = {r for st in config.variant.night if st.ability == "kill" for r in st.roles}
        self.killer_index = tuple(i for i, r in enumerate(self.roles) if r in killers)
        self.rows = config.win_rows
        self.dealt = {r for r, n in config.composition if n}
        self._night = lru_cache(maxsize=None)(self._night_uncached)
        self._day = lru_cache(maxsize=None)(self._day_uncached)

    def winner(self, counts: Counts) -> str | None:
        """V1.4 / V2.9 as ``controller/rules/win.py`` reads the table: both sides at once is a draw."""
        alive = dict(zip(self.roles, counts, strict=True))
        sides = set()
        for row in self.rows:
            if any(r in self.dealt for r in row.roles) and not any(alive.get(r, 0) for r in row.roles):
                sides.add(row.side)
        if not sides:
            return None
        return "draw" if len(sides) > 1 or "draw" in sides else sides.pop()

    def outcomes(self, first: str = "night") -> dict[tuple[str, int], float]:
        """P(winner, days) for the whole game."""
        return dict(self._day(self.start, 1) if first == "day" else self._night(self.start, 0))

    def _night_uncached(self, counts: Counts, day: int) -> Outcome:
        victims = [i for i in range(len(counts)) if i not in self.killer_index and counts[i]]
        pool = sum(counts[i] for i in victims)
        out: dict[tuple[str, int], float] = defaultdict(float)
        branches = [(counts[i] / pool, _minus(counts, i)) for i in victims] if pool else [(1.0, counts)]
        for p, after in branches:  # C8: the dawn, then the win check
            won = self.winner(after)
            if won:
                out[(won, day + 1)] += p
            else:
                for key, q in self._day(after, day + 1):
                    out[key] += p * q
        return tuple(out.items())

    def _day_uncached(self, counts: Counts, day: int) -> Outcome:
        total = sum(counts)
        out: dict[tuple[str, int], float] = defaultdict(float)
        for i, n in enumerate(counts):
            if not n:
                continue
            after = _minus(counts, i)
            won = self.winner(after)  # C8: after each execution
            if won:
                out[(won, day)] += n / total
            else:
                for key, q in self._night(after, day):
                    out[key] += n / total * q
        return tuple(out.items())


def exact_shares(config: GameConfig, policy: str, first: str = "night") -> dict[str, float] | None:
    """P(side) under uninformed play, or None where the model does not apply (another policy or variant)."""
    if policy != "uninformed" or config.variant.id not in EXACT_VARIANTS:
        return None
    if any(row.when != "all_dead" for row in config.win_rows):
        return None
    shares: dict[str, float] = defaultdict(float)
    for (side, _), p in ExactModel(config).outcomes(first).items():
        shares[side] += p
    return {side: shares.get(side, 0.0) for side in ("good", "killers", "draw")}
