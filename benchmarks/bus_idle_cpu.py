"""The table's host CPU while a speech runs and nobody presses: the real director on the real asyncio loop, the
real bus master on its own thread with pyserial on a pseudo-terminal, and 16 seat nodes (the firmware's ``Node``
under CPython, benchmarks/bus_nodes.py) on the other end. Target (issue: fast where players feel it): under 1 % of
one core here while a speech runs, with the press target kept (the master still polls every node each cycle).

    .venv/bin/python benchmarks/bus_idle_cpu.py [--seats 16] [--seconds 120] [--runs 3] [--press-seconds 20]
                                                [--no-listen]

The game is set up so that the night passes by its deadlines (nobody acts) and day 1's first speech opens with a
long window; the CPU of this process (director, loop, master thread; not the nodes' process) is measured over
``--seconds`` of that speech, with the poll rate and what went over the wire.

Then, still in the speech, a finger presses PREV on one seat after another, about every ``--press-every``
seconds at random moments, for ``--press-seconds``: the time from the press on the node to the master handing
the event on (the same monotonic clock in both processes) is the press latency on the real clock, the master's
thread sleeping in its LISTEN windows as on the table. A pty moves bytes at once, so wire time is left out
(about 0.2 ms a frame at 1 Mbaud); the simulator (``tianhei bus-sim``) has it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.table import BusTable
from controller.bus.transport import SerialTransport
from controller.director.clock import AsyncioScheduler
from controller.director.director import Director
from controller.director.timing import Timings
from controller.ports import ButtonEvent, InputEvent
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.voice.null_voice import NullVoice

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seat_bank import SeatBank


def thread_cpu(native_id: int | None) -> float:
    """CPU seconds of one thread of this process (Linux: /proc/self/task/ID/stat, user + system)."""
    if native_id is None:
        return 0.0
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def one_run(seats: int, seconds: float, press_seconds: float, press_every: float,
                  listen: bool = True) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    bank = SeatBank(seats, press_every)
    transport = SerialTransport.open(bank.port, 1_000_000)
    master = BusMaster(transport, [NodeSpec(address=a, seat=a) for a in range(1, seats + 1)], listen=listen)
    table = BusTable(master, post=loop.call_soon_threadsafe)
    timings = Timings(night_action_s=0.5, recognition_s=0.5, answer_s=0.2, reveal_s=0.2,
                      speech_s=seconds + press_seconds + 30.0, last_words_s=0.5, first_identity_s=0.5)
    config = configure(load_variant("standard-2.0"), seats, {})
    director = Director(table, NullVoice(loop.time, part_seconds=0.02), AsyncioScheduler(loop), config,
                        timings=timings, seed=1)
    try:
        started = time.monotonic()
        director.start()
        deadline = time.monotonic() + 120
        while not (director.window is not None and director.window.kind == "speeches"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"no speech after 120 s (stage {director.stage})")
            await asyncio.sleep(0.05)
        # The speech's first screens have gone out, and the master no longer distrusts the line as it does for
        # its first ``noisy_for`` seconds (short LISTEN windows): the speech of a real evening comes much later.
        await asyncio.sleep(max(2.0, started + master.noisy_for + 2.0 - time.monotonic()))
        poller = table._thread.native_id if table._thread is not None else None
        st = master.stats
        c0, t0, f0 = cpu(), time.monotonic(), st.frames_sent
        w0, p0, x0, r0 = st.listens, st.poll_alls, st.timeouts, st.frames_received
        b0, l0 = thread_cpu(poller), time.thread_time()
        await asyncio.sleep(seconds)
        c1, t1, f1 = cpu(), time.monotonic(), st.frames_sent
        w1, p1, x1, r1 = st.listens, st.poll_alls, st.timeouts, st.frames_received
        b1, l1 = thread_cpu(poller), time.thread_time()
        arrivals: list[tuple[float, ButtonEvent]] = []
        hand_on = master.sink

        def timed(event: InputEvent) -> None:
            if isinstance(event, ButtonEvent) and event.pressed:
                arrivals.append((time.monotonic(), event))
            hand_on(event)

        master.sink = timed
        e0, in0 = st.events, st.events_in_windows
        if press_seconds > 0:
            bank.press()
            await asyncio.sleep(press_seconds)
        in_windows = (st.events_in_windows - in0) / max(1, st.events - e0)
    finally:
        table.stop()
        transport.port.close()  # type: ignore[attr-defined]
        presses = bank.presses(bank.close())
    latencies = []
    for seat, at in presses:
        got = [t for t, e in arrivals if e.seat == seat and t >= at]
        if got:
            latencies.append((min(got) - at) * 1000.0)
    wall = t1 - t0
    return {"cpu_pct": 100.0 * (c1 - c0) / wall, "frames_per_s": (f1 - f0) / wall,
            "listens_per_s": (w1 - w0) / wall, "poll_alls_per_s": (p1 - p0) / wall, "timeouts": x1 - x0,
            "received_per_s": (r1 - r0) / wall, "presses": len(presses), "latencies": latencies,
            "in_windows": in_windows,
            "bus_pct": 100.0 * (b1 - b0) / wall, "loop_pct": 100.0 * (l1 - l0) / wall}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--press-seconds", type=float, default=20.0, help="then press for this long (0: no presses)")
    parser.add_argument("--press-every", type=float, default=0.25, help="seconds between presses, about")
    parser.add_argument("--no-listen", action="store_true",
                        help="poll with POLL_ALL cycles only, as before LISTEN (for comparison)")
    args = parser.parse_args()
    results = [asyncio.run(one_run(args.seats, args.seconds, args.press_seconds, args.press_every,
                                   listen=not args.no_listen)) for _ in range(args.runs)]
    for i, r in enumerate(results, 1):
        print(f"run {i}: {args.seats} seats, {args.seconds:.0f} s of a speech: host CPU {r['cpu_pct']:.2f} % of a core, "
              f"{r['frames_per_s']:.0f} frames/s sent ({r['listens_per_s']:.1f} LISTEN windows/s, "
              f"{r['poll_alls_per_s']:.1f} POLL_ALL/s), {r['received_per_s']:.0f} frames/s received, "
              f"{r['timeouts']:.0f} timeouts (poll thread {r['bus_pct']:.2f} %, loop {r['loop_pct']:.2f} %)")
    lat = sorted(x for r in results for x in r["latencies"])
    if args.press_seconds > 0:
        made = sum(r["presses"] for r in results)
        share = statistics.mean(r["in_windows"] for r in results) * 100
        if lat:
            p99 = statistics.quantiles(lat, n=100, method="inclusive")[98] if len(lat) > 1 else lat[0]
            print(f"presses during the speech (real clock, pty, no wire time): {len(lat)} of {made} arrived, "
                  f"{share:.0f} % in a LISTEN window; press to master p50 {statistics.median(lat):.2f} ms, "
                  f"p99 {p99:.2f} ms, max {lat[-1]:.2f} ms")
        else:
            print(f"presses during the speech: none of {made} arrived")
    pcts = [r["cpu_pct"] for r in results]
    print(f"host CPU idling in a speech: min {min(pcts):.2f} %, median {statistics.median(pcts):.2f} % "
          f"(target < 1 %: {'met' if statistics.median(pcts) < 1.0 else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
