"""How many complete games per second the simulator plays. Targets (compiled rules, one core, uninformed bots,
no talk): standard-2.0 at 12 players >= 15,000 games per CPU second, v4.0 at 13 players >= 5,000.

    .venv/bin/python benchmarks/simulate_speed.py [--games N] [--rules python|mypyc|both] [--targets]

``--targets`` measures only the two target lines (quicker; what the figures in the notes quote).

Prints games per CPU second (process time: one core, not disturbed by other load on the machine) and per
wall-clock second, for the silent table the simulator plays by default and with talk steps included, once for
the Python source of the rules and once for their mypyc build (``./dev fast``; controller/compiled_rules.py),
each in a process of its own.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def measure(variant: str, players: int, policy: str, games: int, talk: bool, rules: str) -> None:
    from controller.rules.setup import configure
    from controller.rules.variant import load_variant
    from controller.simulate import simulate

    config = configure(load_variant(variant), players, talk=talk)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    summary = simulate(config, policy, games, seed=1)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    print(f"{rules:6} {variant:16} {players:2}p {policy:10} talk={'on ' if talk else 'off'} {games:6} games: "
          f"{games / cpu:8.0f} games/CPU-s  {games / wall:8.0f} games/wall-s  "
          f"(good {summary.wins.get('good', 0)}, killers {summary.wins.get('killers', 0)}, draws {summary.draws})",
          flush=True)


def run(games: int, rules: str, targets: bool = False) -> int:
    from controller import compiled_rules

    if rules == "python":
        os.environ[compiled_rules.PURE_ENV] = "1"
    mode = compiled_rules.activate()
    if mode != rules:
        print(f"{rules}: no current build of the compiled rules; run ./dev fast first", file=sys.stderr)
        return 1
    measure("standard-2.0", 12, "uninformed", games, talk=False, rules=mode)
    measure("v4.0", 13, "uninformed", games // 3, talk=False, rules=mode)
    if targets:
        return 0
    measure("standard-2.0", 12, "uninformed", games // 4, talk=True, rules=mode)
    for variant, players in (("classic-1.0", 12), ("five-identities", 12), ("v3.0", 13)):
        measure(variant, players, "uninformed", games // 4, talk=False, rules=mode)
    measure("standard-2.0", 12, "random", games // 10, talk=True, rules=mode)
    measure("standard-2.0", 12, "heuristic", games // 10, talk=True, rules=mode)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--rules", choices=("python", "mypyc", "both"), default="both")
    parser.add_argument("--targets", action="store_true", help="only standard-2.0 12p and v4.0 13p")
    args = parser.parse_args()
    if args.rules != "both":
        return run(args.games, args.rules, args.targets)
    failed = 0
    for rules in ("python", "mypyc"):  # a process each: a process imports the rules once, in one form
        command = [sys.executable, __file__, "--games", str(args.games), "--rules", rules]
        failed |= subprocess.run(command + (["--targets"] if args.targets else [])).returncode
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
