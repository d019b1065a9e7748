"""The uninformed model has exact answers: a check that the engine and the ``uninformed`` policy are exactly right.

In that model (the published Mafia analyses) nobody knows anything: each night the killers kill a uniformly
random living non-killer, each day everyone votes for one uniformly random living player, who is executed. The
police's checks change nothing. So the chance of every outcome depends only on how many of each role are alive,
and a small dynamic program over (civilians, police, killers) with the variant's win table (V1.4, V2.9) gives it
exactly, and the mean number of days too. Thousands of simulated games must agree within about 4 standard
errors; a wrong victim pool, a skipped win check (C8), a wrong win row or a day counted twice would not. The
model is the balance lab's own (controller/club/exact.py), so the figures the lab prints beside its simulated rows
are the ones checked here.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pytest

from controller.club.exact import ExactModel
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.simulate import simulate


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
