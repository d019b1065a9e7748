"""The uninformed model has exact answers: a check that the engine and the ``uninformed`` policy are exactly right.

In that model (the published Mafia analyses) nobody knows anything: each night the killers kill a uniformly
random living non-killer, each day everyone votes for one uniformly random living player, who is executed. The
police's checks change nothing. So the chance of every outcome depends only on how many of each role are alive,
and a small dynamic program over (civilians, police, killers) with the variant's win table (V1.4, V2.9) gives it
exactly, and the mean number of days too. Thousands of simulated games must agree within about 4 standard
errors; a wrong victim pool, a skipped win check (C8), a wrong win row or a day counted twice would not.
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import cache

import pytest

from controller.rules.setup import GameConfig, configure
from controller.rules.variant import load_variant
from controller.simulate import simulate

Counts = tuple[int, ...]


class ExactModel:
    """The outcome distribution of the uninformed model for one game set-up."""

    def __init__(self, config: GameConfig) -> None:
        self.roles = tuple(r for r, _ in config.composition)
        self.start = tuple(n for _, n in config.composition)
        killers = {r for st in config.variant.night if st.ability == "kill" for r in st.roles}
        self.killer_index = tuple(i for i, r in enumerate(self.roles) if r in killers)
        self.rows = config.win_rows
        self.dealt = {r for r, n in config.composition if n}

    def winner(self, counts: Counts) -> str | None:
        """V1.4 / V2.9 as ``controller/rules/win.py`` reads the table: both sides at once is a draw."""
        alive = dict(zip(self.roles, counts, strict=True))
        sides = set()
        for row in self.rows:
            assert row.when == "all_dead", "the model covers the all_dead win tables of 1.0 and 2.0"
            if any(r in self.dealt for r in row.roles) and not any(alive.get(r, 0) for r in row.roles):
                sides.add(row.side)
        if not sides:
            return None
        return "draw" if len(sides) > 1 or "draw" in sides else sides.pop()

    def outcomes(self, first: str = "night") -> dict[tuple[str, int], float]:
        """P(winner, days) for the whole game."""
        return dict(self._day(self.start, 1) if first == "day" else self._night(self.start, 0))

    @cache  # noqa: B019 - one model per test, a few hundred states
    def _night(self, counts: Counts, day: int) -> tuple[tuple[tuple[str, int], float], ...]:
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

    @cache  # noqa: B019
    def _day(self, counts: Counts, day: int) -> tuple[tuple[tuple[str, int], float], ...]:
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


def _minus(counts: Counts, i: int) -> Counts:
    return (*counts[:i], counts[i] - 1, *counts[i + 1:])


def shares(dist: dict[tuple[str, int], float]) -> tuple[dict[str, float], float, float]:
    """P(side), the mean and the standard deviation of the number of days."""
    sides: dict[str, float] = defaultdict(float)
    for (side, _), p in dist.items():
        sides[side] += p
    mean = sum(d * p for (_, d), p in dist.items())
    var = sum(d * d * p for (_, d), p in dist.items()) - mean * mean
    return dict(sides), mean, math.sqrt(max(var, 0.0))


CASES = [
    ("standard-2.0", 12, {}, "night"),
    ("standard-2.0", 12, {"win": "civilians_lose"}, "night"),
    ("standard-2.0", 12, {"win": "police_only"}, "night"),
    ("standard-2.0", 9, {}, "day"),
    ("standard-2.0", 16, {"tie": "top2", "vote": "from_victim"}, "night"),
    ("classic-1.0", 10, {}, "night"),
    ("classic-1.0", 13, {}, "day"),
]


def test_exact_model_sanity_two_killers_and_one_civilian_left_lose_nothing_at_night():
    config = configure(load_variant("classic-1.0"), 3, roles={"killer": 1})
    dist = shares(ExactModel(config).outcomes())[0]
    # Night 1 kills one of the two civilians; day 1 executes the killer with 1/2, else the killers win.
    assert dist == pytest.approx({"good": 0.5, "killers": 0.5})


@pytest.mark.parametrize(("variant", "players", "options", "first"), CASES)
def test_uninformed_simulation_matches_the_exact_probabilities(variant, players, options, first):
    config = configure(load_variant(variant), players, options, talk=False)
    exact, mean_days, sd_days = shares(ExactModel(config).outcomes(first))
    assert sum(exact.values()) == pytest.approx(1.0)
    games = 2500
    summary = simulate(config, "uninformed", games, seed=players * 101 + len(options), first=first)
    observed = {"draw": summary.draws, **summary.wins}
    for side in {*exact, *observed}:
        p = exact.get(side, 0.0)
        se = math.sqrt(p * (1 - p) / games)
        share = observed.get(side, 0) / games
        assert abs(share - p) <= 4 * se + 1e-9, f"{side}: simulated {share:.4f}, exact {p:.4f} (±{4 * se:.4f})"
    assert abs(summary.mean_days - mean_days) <= 4 * sd_days / math.sqrt(games), (summary.mean_days, mean_days)
