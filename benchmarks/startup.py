"""How long a person waits for the command line: ``tianhei --help`` to its last line, and ``tianhei table`` (the
simulated table, no window) to its first prompt on the screen. Targets (issue: fast where players feel it):
<= 0.1 s and <= 0.3 s here; a Pi Zero 2 W is 5-10x slower.

    .venv/bin/python benchmarks/startup.py [--runs 5]

Each figure is wall time from starting the process, as a person at the terminal sees it, after one warm-up run
(which also leaves the compiled modules in __pycache__, as an installed table has them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tianhei() -> list[str]:
    script = Path(sys.executable).with_name("tianhei")
    return [str(script)] if script.exists() else [sys.executable, "-m", "controller.cli"]


#: As installed: Python keeps the compiled modules (__pycache__). A shell that sets PYTHONDONTWRITEBYTECODE would
#: have every run compile every module from source again, which no installed table does.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def help_time() -> float:
    start = time.perf_counter()
    subprocess.run([*tianhei(), "--help"], capture_output=True, check=True, cwd=ROOT, env=ENV)
    return time.perf_counter() - start


def table_time(workdir: str) -> float:
    """Until the table's first line on stdout (its first prompt, or what it says before it)."""
    env = dict(ENV, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONUNBUFFERED="1")
    env.pop("DISPLAY", None)
    start = time.perf_counter()
    proc = subprocess.Popen([*tianhei(), "table", "--headless", "--seed", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=workdir, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    took = time.perf_counter() - start
    proc.kill()
    proc.wait()
    if not line:
        raise RuntimeError("tianhei table printed nothing")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    help_time()  # warm the file cache once, as a second run at the table would be
    helps = [help_time() for _ in range(args.runs)]
    with tempfile.TemporaryDirectory() as workdir:
        shutil.copytree(ROOT / "decks", Path(workdir) / "decks", dirs_exist_ok=True)
        table_time(workdir)
        tables = [table_time(workdir) for _ in range(args.runs)]
    for name, xs, target in (("tianhei --help", helps, 0.1), ("tianhei table, first prompt", tables, 0.3)):
        print(f"{name}: min {min(xs):.3f} s, median {statistics.median(xs):.3f} s over {len(xs)} runs "
              f"(target <= {target} s: {'met' if statistics.median(xs) <= target else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
