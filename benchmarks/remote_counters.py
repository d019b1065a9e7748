"""How fast the judge's remote uses its AUTH counters, and what that costs each end (docs/security.md).

Every POLL answer of the remote is sealed with a new counter. Run 16 seat nodes and the remote (the real firmware
under MicroPython, ``controller/bus/sim.py``) polled flat out (``--min-cycle 0``, as ``open_bus_table`` does on
the table) or at the simulator's pace, on the simulated clock, and print:

* counters per second;
* how often each end writes its block (the remote's flash file, the Pi's ``remote.counter``): once per 65,536;
* how long one key's 2**32 counters last while the bus polls without a break;
* what one write of the Pi's counter file costs here (atomic replace + two fsyncs), min/median of the runs.

    python benchmarks/remote_counters.py [--seats 16] [--seconds 2] [--min-cycle 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.bus import seatbus as sb
from controller.bus.auth_counter import CounterStore
from controller.bus.sim import start_sim_table


def counters_per_second(seats: int, seconds: float, min_cycle: float) -> float:
    key = bytes(range(16))
    with start_sim_table(seats, remote_key=key, min_cycle=min_cycle) as sim:
        sim.table.start(lambda event: None)
        sim.table.run_for(0.2)
        node = sim.master.nodes[100]
        c0, t0 = node.auth_counter, sim.bus.now()
        sim.table.run_for(seconds)
        return (node.auth_counter - c0) / (sim.bus.now() - t0)


def store_write_ms(runs: int) -> list[float]:
    key = bytes(range(16))
    out = []
    with tempfile.TemporaryDirectory() as folder:
        store = CounterStore(Path(folder) / "remote.counter", key)
        for block in range(runs):
            start = time.perf_counter()
            store.accept(block * sb.AUTH_BLOCK)
            out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=2.0, help="simulated seconds of polling")
    parser.add_argument("--min-cycle", type=float, default=0.0, help="the master's shortest poll cycle, s")
    parser.add_argument("--writes", type=int, default=20)
    args = parser.parse_args()
    rate = counters_per_second(args.seats, args.seconds, args.min_cycle)
    block_min = sb.AUTH_BLOCK / rate / 60
    days = 2**32 / rate / 86400
    writes = store_write_ms(args.writes)
    print(f"remote, {args.seats} seats, min cycle {args.min_cycle * 1000:.0f} ms: {rate:.0f} counters/s; "
          f"one block ({sb.AUTH_BLOCK}) every {block_min:.1f} min (one flash write on the remote, one "
          f"fsync'd file write on the Pi); a key's 2**32 counters last {days:.0f} days of polling without a break")
    print(f"the Pi's counter file write: min {min(writes):.2f} ms, median {statistics.median(writes):.2f} ms "
          f"({args.writes} writes)")


if __name__ == "__main__":
    main()
