"""How many complete games per second the simulator plays (issue target: standard-2.0, 12 players,
uninformed, >= 2,000/s on one core; aim 10,000/s).

    .venv/bin/python benchmarks/simulate_speed.py [--games N]

Prints games per CPU second (process time: one core, not disturbed by other load on the machine) and per
wall-clock second, for the silent table the simulator plays by default and with talk steps included.
"""

from __future__ import annotations

import argparse
import time

from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.simulate import simulate


def measure(variant: str, players: int, policy: str, games: int, talk: bool) -> None:
    config = configure(load_variant(variant), players, talk=talk)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    summary = simulate(config, policy, games, seed=1)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print(f"{variant:16} {players:2}p {policy:10} talk={'on ' if talk else 'off'} {games:6} games: "
          f"{games / cpu:8.0f} games/CPU-s  {games / wall:8.0f} games/wall-s  "
          f"(good {summary.wins.get('good', 0)}, killers {summary.wins.get('killers', 0)}, draws {summary.draws})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20000)
    args = parser.parse_args()
    measure("standard-2.0", 12, "uninformed", args.games, talk=False)
    measure("standard-2.0", 12, "uninformed", args.games // 4, talk=True)
    for variant, players in (("classic-1.0", 12), ("five-identities", 12), ("v3.0", 13)):
        measure(variant, players, "uninformed", args.games // 4, talk=False)
    measure("standard-2.0", 12, "random", args.games // 10, talk=True)
    measure("standard-2.0", 12, "heuristic", args.games // 10, talk=True)


if __name__ == "__main__":
    main()
