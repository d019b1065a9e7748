"""Instructions per simulated game, counted by valgrind's callgrind: a figure the machine's other load does not
change (``simulate_speed.py``'s clock on a shared machine moves by a quarter from run to run), for telling
whether a change to the rules or the bots made the simulator cheaper.

    .venv/bin/python benchmarks/simulate_instructions.py [standard-2.0:12:1500 v4.0:13:500 ...]

Each spec is ``variant:players:games``. It counts ``games`` uninformed games and 0 games (the start-up) and prints
the difference per game, with the rules the simulator would play (the mypyc build when it is current: ``./dev
fast``). ``PYTHONHASHSEED`` is fixed, so a count repeats exactly. Needs ``valgrind`` (Debian: valgrind).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAY = """
import sys
sys.path.insert(0, {root!r})
from controller import compiled_rules
mode = compiled_rules.activate()
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.simulate import simulate
variant, players, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
simulate(configure(load_variant(variant), players, talk=False), "uninformed", games, seed=1)
print(mode)
"""


def count(variant: str, players: str, games: int) -> tuple[int, str]:
    """Instructions of a whole process that plays ``games`` games, and which rules it played."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           PLAY.format(root=str(ROOT)), variant, players, str(games)],
                          capture_output=True, text=True, env=env)
    found = re.search(r"refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed for {variant}: {done.stderr.strip().splitlines()[-1:]}")
    return int(found.group(1).replace(",", "")), done.stdout.strip()


def main() -> int:
    if shutil.which("valgrind") is None:
        print("needs valgrind (Debian: apt-get install valgrind)", file=sys.stderr)
        return 1
    for spec in sys.argv[1:] or ["standard-2.0:12:1500", "v4.0:13:500"]:
        variant, players, games = spec.split(":")
        base, _ = count(variant, players, 0)
        total, mode = count(variant, players, int(games))
        print(f"{variant} {players}p ({mode} rules): {(total - base) / int(games):,.0f} instructions a game "
              f"({games} uninformed games, start-up subtracted)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
