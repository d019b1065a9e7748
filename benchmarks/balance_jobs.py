"""The balance lab on N processes: games per second for --jobs 1 and --jobs 2 (issue target: N=2 on two cores
gives at least 1.8x the games per second of N=1), and that both give the same counts.

    .venv/bin/python benchmarks/balance_jobs.py [--games 3000] [--players 12] [--runs 3]

Wall-clock games per second of ``run_balance`` (standard-2.0, uninformed, the Python source of the rules), min
and median of ``--runs`` runs each; the ratio uses the medians. Wall-clock time counts the machine's other load:
on a busy machine (the load average is printed) two processes cannot run at once and the ratio says little. So
it also prints the figure that load does not change: the CPU seconds each worker spent playing. With N
processes on N idle cores a run takes as long as its busiest worker, so "CPU of all games at --jobs 1 / CPU of
the busiest worker at --jobs 2" is the speed-up two idle cores give (the parent only adds up counts).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    from controller.club.balance import run_balance

    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--players", type=int, default=12)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    speeds: dict[int, list[float]] = {1: [], 2: []}
    cpu_ratio: list[float] = []
    counts: dict[int, object] = {}
    for _ in range(args.runs):
        busiest: dict[int, float] = {}
        for jobs in (1, 2):
            started = time.perf_counter()
            result = run_balance("standard-2.0", [args.players], "uninformed", args.games, seed=1, jobs=jobs,
                                 progress=False)
            speeds[jobs].append(args.games / (time.perf_counter() - started))
            counts[jobs] = [(r.players, dict(r.wins), r.days) for r in result.rows]
            busiest[jobs] = max(result.worker_cpu.values())
            print(f"  --jobs {jobs}: workers' CPU seconds "
                  + ", ".join(f"{v:.2f}" for v in sorted(result.worker_cpu.values(), reverse=True)))
        cpu_ratio.append(busiest[1] / busiest[2])
    for jobs, s in speeds.items():
        print(f"--jobs {jobs}: {args.games} games at {args.players} players: min {min(s):,.0f} games/s, "
              f"median {statistics.median(s):,.0f} games/s ({', '.join(f'{x:,.0f}' for x in s)})")
    ratio = statistics.median(speeds[2]) / statistics.median(speeds[1])
    print(f"wall-clock speed-up --jobs 2 / --jobs 1 (medians): {ratio:.2f}x (at load {os.getloadavg()[0]:.2f})")
    print(f"two idle cores: CPU of all games at --jobs 1 / busiest worker's CPU at --jobs 2: min "
          f"{min(cpu_ratio):.2f}x, median {statistics.median(cpu_ratio):.2f}x (target >= 1.8x)")
    print(f"same counts for --jobs 1 and 2: {counts[1] == counts[2]}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
