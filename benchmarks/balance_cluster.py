"""The balance lab on a Dask cluster: games per second for --jobs 1 and for a LocalCluster of 2 worker processes
(issue target: at least 1.8x the games per second of --jobs 1), and that both give the same counts.

    .venv/bin/python benchmarks/balance_cluster.py [--games 100000] [--players 12] [--runs 3]

100,000 games (the size docs/balance/README.md runs on a cluster) take about 3 s at --jobs 1: with 20,000 (0.6 s)
the fixed cost of a run (sending sixteen batches, the last batch's wait, gathering) was a fifth of it.
The cluster is started once (about 1-3 s, printed) and each run connects to its scheduler by address as
``tianhei balance --cluster tcp://…`` does against a club's scheduler that is already up. A run's wall-clock time
is the whole ``run_balance`` call, measured here around it: connecting, sending the batches, the workers' games,
gathering and adding up the results (and for --jobs 1 the same call playing in this process). Wall-clock counts
the machine's other load (the load average is printed before and after), so it also prints the figure that load
does not move: "CPU of all games at --jobs 1 / CPU of the busiest worker on the cluster", the speed-up two idle
cores would give, and this process's own CPU during a cluster run (the client's and the scheduler's work, which
shares the two cores with the workers). Last, one run of ``--cluster local`` as the command line does it, the
LocalCluster started and stopped by the run itself (its start counts there: with a short run it is much of the time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def warm(players: int) -> str:
    """On every worker: import the engine as a batch does (the compiled rules first, where built) and build the
    variant's configuration (not part of any run's games). Returns which rules the process plays: a warm-up that
    imported the lab before activating the build would leave the workers on the Python source, several times slower."""
    from controller import compiled_rules
    from controller.club.cluster import _play_batch

    _play_batch("controller.club.balance:play_batch", [("standard-2.0", players, "uninformed", {}, 10, 99, 0)])
    return compiled_rules.mode()


def main() -> None:
    from controller import compiled_rules

    # The same engine on both sides: the workers activate the compiled rules where they are built, as the
    # command line does for --jobs 1.
    compiled_rules.activate()
    from distributed import Client

    from controller.club.balance import run_balance
    from controller.club.cluster import local_cluster

    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100000)
    ap.add_argument("--players", type=int, default=12)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"cores: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    started = time.perf_counter()
    with local_cluster(2) as cluster:  # as --cluster local starts it
        print(f"LocalCluster of 2 worker processes at {cluster.scheduler_address}: "
              f"{time.perf_counter() - started:.1f} s to start")
        with Client(cluster) as client:  # a warm-up on each worker, as --jobs 1 is warm in this process
            engines = client.run(warm, args.players)
        print(f"rules played: here {warm(args.players)}; workers "
              + ", ".join(sorted(engines.values())))
        speeds: dict[str, list[float]] = {"jobs 1": [], "cluster": []}
        cpu_ratio: list[float] = []
        same = True
        for _ in range(args.runs):
            t = time.perf_counter()
            one = run_balance("standard-2.0", [args.players], "uninformed", args.games, seed=1, jobs=1,
                              progress=False)
            one_s = time.perf_counter() - t
            t, mine = time.perf_counter(), time.process_time()
            two = run_balance("standard-2.0", [args.players], "uninformed", args.games, seed=1, progress=False,
                              cluster=cluster.scheduler_address)
            two_s, mine = time.perf_counter() - t, time.process_time() - mine
            speeds["jobs 1"].append(args.games / one_s)
            speeds["cluster"].append(args.games / two_s)
            same &= [(r.players, dict(r.wins), r.days) for r in one.rows] == \
                [(r.players, dict(r.wins), r.days) for r in two.rows]
            cpu_ratio.append(sum(one.worker_cpu.values()) / max(two.worker_cpu.values()))
            print(f"  --jobs 1: {args.games / one_s:,.0f} games/s ({one_s:.2f} s); cluster: "
                  f"{args.games / two_s:,.0f} games/s ({two_s:.2f} s, of which connect {two.setup_seconds:.2f} s), "
                  "workers' CPU seconds " + ", ".join(f"{v:.2f}" for v in sorted(two.worker_cpu.values(), reverse=True))
                  + f", client and scheduler {mine:.2f}; load {os.getloadavg()[0]:.2f}")
    for name, s in speeds.items():
        print(f"{name}: {args.games} games at {args.players} players: min {min(s):,.0f} games/s, "
              f"median {statistics.median(s):,.0f} games/s ({', '.join(f'{x:,.0f}' for x in s)})")
    ratio = statistics.median(speeds["cluster"]) / statistics.median(speeds["jobs 1"])
    print(f"wall-clock speed-up, 2 local workers / --jobs 1 (medians): {ratio:.2f}x "
          f"(min {min(c / o for c, o in zip(speeds['cluster'], speeds['jobs 1'], strict=True)):.2f}x; "
          f"at load {os.getloadavg()[0]:.2f}; target >= 1.8x)")
    print(f"two idle cores: CPU of all games at --jobs 1 / busiest worker's CPU on the cluster: min "
          f"{min(cpu_ratio):.2f}x, median {statistics.median(cpu_ratio):.2f}x (target >= 1.8x)")
    print(f"same counts for --jobs 1 and the cluster: {same}")
    t = time.perf_counter()
    cold = run_balance("standard-2.0", [args.players], "uninformed", args.games, seed=1, jobs=2, progress=False,
                       cluster="local")
    cold_s = time.perf_counter() - t
    print(f"--cluster local --jobs 2 as the command line runs it (its own LocalCluster): {args.games / cold_s:,.0f} "
          f"games/s over {cold_s:.2f} s, of which {cold.setup_seconds:.2f} s starting the cluster")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
