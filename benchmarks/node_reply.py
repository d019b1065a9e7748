"""How fast a seat node answers on its own chip: the rp2 firmware on emulated Picos (controller/nodes), the
unchanged bus master polling each seat by name, first while the deal's screens go out (every seat's screen changes
every 150 ms), then with no screen traffic, in emulated time.

The reply latency is from the last byte of the master's frame on the line to the first byte of the node's
answer (the node's own time: its UART interrupt, its loop, its decoder, its reply), as a logic analyser on the
bus would see it. Target (issue 34): p99 <= 3 ms, max below half the 10 ms reply timeout, none over it. Beside
it: the garbage collections (count, longest, total), the main-loop passes (time between watchdog feeds) and the
three slowest exchanges with the collection time inside each.

    .venv/bin/python benchmarks/node_reply.py [--seats 2] [--seconds 5] [--json]
    .venv/bin/python benchmarks/node_reply.py --seats 16 --seconds 1   # a whole bus-16 line of Picos
    .venv/bin/python benchmarks/node_reply.py --remote               # and the judge's remote (AUTH answers)
    .venv/bin/python benchmarks/node_reply.py --seats 4 --baud 2000000  # the line at 2 Mbaud
    .venv/bin/python benchmarks/node_reply.py --seats 4 --seconds 3 --baud 2000000 --save-replies \
        benchmarks/data/pico-replies.json                             # what bus_timing.py --node-replies draws from
    .venv/bin/python benchmarks/node_reply.py --seconds 1 --profile   # where seat 1's time goes, who allocates
    NODE_REPLY_ALLOC=m_malloc ... --profile                           # the allocator's callers one level up
    .venv/bin/python benchmarks/node_reply.py --seconds 1 --profile-replies  # only from a frame to seat 1 to its answer
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from controller.bus import seatbus as sb  # noqa: E402
from controller.bus.auth_counter import CounterStore  # noqa: E402
from controller.bus.master import BusMaster  # noqa: E402
from controller.bus.nodes import NodeSpec  # noqa: E402
from controller.bus.table import BusTable  # noqa: E402
from controller.config.profile import load_profile  # noqa: E402
from controller.nodes import firmware_build  # noqa: E402
from controller.nodes.check import BOOT_S  # noqa: E402
from controller.nodes.emulated_bus import EmulatedBus  # noqa: E402
from controller.nodes.images import plan, write_images  # noqa: E402
from controller.nodes.node_image import node_uf2  # noqa: E402
from controller.screens.render import render  # noqa: E402
from controller.screens.views import RoleReveal, TapCard  # noqa: E402

TIMEOUT_MS = 10.0
REMOTE_KEY = bytes(range(16))  # a pairing key for the benchmark's remote (tianhei remote pair makes real ones)
ALLOC = os.environ.get("NODE_REPLY_ALLOC", "gc_alloc")  # m_malloc: one level up


def latencies(bus: EmulatedBus) -> list[tuple[int, float, int, int]]:
    """(message type, ms, address, ns when its last byte was on the line) for every master frame to one node:
    the time to its answer, or ``inf`` when the master spoke again first (it gave up after its reply timeout:
    the answer, if any, came too late)."""
    out = []
    heard = bus.heard
    said = bus.said
    j = 0
    for i, (done, data) in enumerate(said):
        frames = sb.Decoder().feed(data)
        if len(frames) != 1 or frames[0].addr == sb.BROADCAST:
            continue
        start_next = said[i + 1][0] - len(said[i + 1][1]) * bus.byte_ns if i + 1 < len(said) else None
        while j < len(heard) and heard[j][0] <= done:
            j += 1
        if j < len(heard) and (start_next is None or heard[j][0] < start_next):
            first_start = heard[j][0] - bus.byte_ns
            out.append((frames[0].mtype, (first_start - done) / 1e6, frames[0].addr, done))
        else:
            out.append((frames[0].mtype, float("inf"), frames[0].addr, done))
    return out


def print_profile(samples: list[list[int]], allocs: list[list[object]], elf: Path, top: int = 25) -> None:
    """Where the sampled PCs fall, by function of the firmware (arm-none-eabi-nm's symbol table), and which
    functions asked the heap for how many bytes how often."""
    import bisect
    import subprocess
    from collections import Counter

    table = []
    for line in subprocess.run(["arm-none-eabi-nm", "-n", "-S", "--defined-only", str(elf)],
                               capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            table.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    starts = [t[0] for t in table]
    where: Counter[str] = Counter()
    total = 0

    def name_of(pc: int) -> str:
        i = bisect.bisect_right(starts, pc) - 1
        return table[i][2] if i >= 0 and pc < table[i][0] + max(table[i][1], 1) else f"?{pc:08x}"

    for pc, count in samples:
        total += count
        where[name_of(pc)] += count
    print(f"PC samples of seat 1 (every 20 us of running time): {total}")
    for name, count in where.most_common(top):
        print(f"  {100 * count / total:5.1f} %  {name}")
    asked: Counter[str] = Counter()
    for key, times in allocs:
        caller, size = (int(x) for x in str(key).split(":"))
        asked[f"{name_of(caller)} {size} B"] += int(str(times))
    print(f"heap allocations of seat 1: {sum(asked.values())}")
    for what, count in asked.most_common(top):
        print(f"  {count:7d}  {what}")


def spread(values: list[float]) -> dict[str, object]:
    """p50, p99 and max of ``values`` (ms), rounded; None where there are none."""
    every = sorted(values)
    if not every:
        return {"p50_ms": None, "p99_ms": None, "max_ms": None}
    return {"p50_ms": round(statistics.median(every), 3),
            "p99_ms": round(every[min(len(every) - 1, int(len(every) * 0.99))], 3),
            "max_ms": round(every[-1], 3)}


def symbol(elf: Path, name: str) -> int:
    """The address of a function of the firmware (its Thumb bit cleared)."""
    found = firmware_build.functions(elf).get(name)
    if found is None:
        raise SystemExit(f"node_reply: the firmware has no function {name} (arm-none-eabi-nm -S {elf})")
    return found[0] & ~1


def stretch(bus: EmulatedBus, table: BusTable, seconds: float, screens: bool, gc_entry: int) -> dict[str, object]:
    """``seconds`` of emulated time with every seat's screen changing every 150 ms (``screens``) or none: the
    reply latencies, the GC pauses and the main-loop passes of every seat."""
    master = table.master
    before = (master.stats.timeouts, master.stats.retransmits)
    bus.said.clear()
    bus.heard.clear()
    for pico in bus.picos:
        bus.call({"op": "watch", "pico": pico.index, "gc_entry": gc_entry})
    views = [TapCard(seat=1), RoleReveal(seat=1, role="killer", partners=(2,)), RoleReveal(seat=1, role="police")]
    step = 0.15
    t = 0.0
    while t < seconds:  # the deal: every seat's screen changes every 150 ms
        for address in table.seats if screens else ():
            view = views[(int(t / step) + address) % len(views)]
            table.seats[address].display(render(view))
        table.run_for(step)
        t += step
    pauses: list[float] = []
    passes: list[float] = []
    gc_at: dict[int, list[list[int]]] = {}
    for pico in bus.picos:
        watched = bus.call({"op": "watch", "pico": pico.index, "take": True})
        gc_at[pico.config["address"]] = watched["gc"]
        pauses += [(end - begin) / 1e6 for begin, end in watched["gc"]]
        feeds = watched["feeds"]
        passes += [(b - a) / 1e6 for a, b in itertools.pairwise(feeds)]
    found = latencies(bus)
    every = [ms for _, ms, _, _ in found]

    def slow(mtype: int, ms: float, addr: int, done: int) -> str:
        """One of the slowest: its type, latency and how much of it a collection took."""
        until = done + (ms * 1e6 if ms != float("inf") else TIMEOUT_MS * 1e6)
        in_gc = sum(max(0, min(end, until) - max(begin, done)) for begin, end in gc_at.get(addr, []))
        return f"0x{mtype:02x} {ms:.2f} (gc {in_gc / 1e6:.2f})"

    return {
        "replies_ms": [round(ms, 4) for ms in every if ms != float("inf")],
        "exchanges": len(every),
        "polls": sum(1 for mtype, _, _, _ in found if mtype == sb.POLL),
        **spread(every),  # max inf: some request was never answered in time
        "over_timeout": sum(1 for ms in every if ms > TIMEOUT_MS),
        "timeouts": master.stats.timeouts - before[0],
        "retransmits": master.stats.retransmits - before[1],
        "gc_pauses": len(pauses),
        "gc_max_ms": round(max(pauses), 3) if pauses else None,
        "gc_total_ms": round(sum(pauses), 3),
        "loop_passes": len(passes),
        **{"loop_" + key: value for key, value in spread(passes).items()},
        "slowest": ", ".join(slow(*one) for one in sorted(found, key=lambda one: -one[1])[:3]),
        "per_node": per_node(found),
    }


def per_node(found: list[tuple[int, float, int, int]]) -> dict[int, dict[str, object]]:
    """Each node's own p50/p99/max and how many of its answers came after the reply timeout (or never): with
    more seats on the line, one slow node must not hide behind the others' figures."""
    out: dict[int, dict[str, object]] = {}
    for address in sorted({addr for _, _, addr, _ in found}):
        mine = [ms for _, ms, addr, _ in found if addr == address]
        out[address] = {"exchanges": len(mine), **spread(mine), "over_timeout": sum(1 for ms in mine if ms > TIMEOUT_MS)}
    return out


def add_seats(bus: EmulatedBus, firmware: bytes, seats: int, tmp: Path) -> list[int]:
    """Seats 1..``seats`` on ``bus``, each from the image with the config a club flashes on it (written in
    ``tmp``) at the line's baud, not yet booted; their addresses."""
    addresses = list(range(1, seats + 1))
    for address in addresses:
        config = json.loads((REPO / "firmware" / "config.example.json").read_text())
        config["address"] = address
        config["uart"]["baud"] = bus.baud
        path = tmp / f"seat-{address:02d}.uf2"
        path.write_bytes(node_uf2(firmware, config))
        bus.add(path, config)
    return addresses


def boot_seats(bus: EmulatedBus, firmware: bytes, seats: int) -> list[int]:
    """:func:`add_seats`, booted; their addresses."""
    with tempfile.TemporaryDirectory() as tmp:
        addresses = add_seats(bus, firmware, seats, Path(tmp))
    bus.run(BOOT_S)
    return addresses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0, help="emulated seconds of each stretch")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--remote", action="store_true",
                        help="the judge's remote on the line too (bus-16's image): its POLL answers are sealed (AUTH)")
    parser.add_argument("--profile", action="store_true", help="sample seat 1's PC and print where its time goes")
    parser.add_argument("--profile-replies", action="store_true",
                        help="the same, only from the last byte of a frame to seat 1 to its answer's first byte")
    parser.add_argument("--baud", type=int, default=1_000_000, help="the line's speed (default 1000000)")
    parser.add_argument("--save-replies", type=Path, metavar="FILE",
                        help="write every answered exchange's reply latency (ms) of both stretches to FILE (JSON), "
                             "for benchmarks/bus_timing.py --node-replies")
    args = parser.parse_args()
    image = firmware_build.build()
    firmware = image.firmware.read_bytes()
    gc_entry = symbol(image.elf, "gc_collect")
    wall = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, EmulatedBus(baud=args.baud) as bus:
        addresses = add_seats(bus, firmware, args.seats, Path(tmp))
        specs = [NodeSpec(address=a, seat=a) for a in addresses]
        if args.remote:
            remote = plan(load_profile("bus-16"), remote_key=REMOTE_KEY)[-1]
            bus.add(write_images([remote], firmware, Path(tmp))[0], remote.config)
            specs.append(NodeSpec(address=remote.address, seat=0, key=REMOTE_KEY,
                                  counters=CounterStore(Path(tmp) / "remote.counter", REMOTE_KEY)))
        bus.run(BOOT_S)
        # Every node by name (no POLL_ALL slots, no LISTEN windows): each poll is one timed exchange.
        master = BusMaster(bus, specs, poll_all=False, listen=False, baud=args.baud)
        table = BusTable(master, threaded=False)
        table.start(lambda event: None)
        table.run_for(0.1)
        if args.profile_replies:
            bus.call({"op": "profile", "pico": 0, "every_ns": 1_000, "to_address": addresses[0]})
        elif args.profile:
            bus.call({"op": "profile", "pico": 0, "every_ns": 20_000, "alloc_entry": symbol(image.elf, ALLOC)})
        busy = stretch(bus, table, args.seconds, True, gc_entry)
        quiet = stretch(bus, table, args.seconds, False, gc_entry)
        profile = bus.call({"op": "profile", "pico": 0, "take": True}) if args.profile or args.profile_replies else {}
    host_s = time.monotonic() - wall
    result = {"seats": args.seats, "emulated_s": args.seconds, "host_s": round(host_s, 1),
              # the host's seconds per emulated second of the whole line (boot and both stretches)
              "host_s_per_emulated_s": round(host_s / (BOOT_S + 0.1 + 2 * args.seconds), 1),
              "busy": busy, "quiet": quiet}
    replies = {name: stretch.pop("replies_ms") for name, stretch in (("busy", busy), ("quiet", quiet))}
    if args.save_replies is not None:
        args.save_replies.write_text(json.dumps({
            "what": "reply latency in ms (last byte of the master's frame to the first byte of the node's answer) "
                    "of every answered exchange, emulated Picos with the rp2 image, benchmarks/node_reply.py",
            "seats": args.seats, "baud": args.baud, "emulated_s": args.seconds, **replies}) + "\n")
    if profile:
        print_profile(profile["counts"], profile["allocs"], image.elf)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.seats} seats at {args.baud} baud, {args.seconds} emulated s a stretch, {result['host_s']} s on this host "
              f"({result['host_s_per_emulated_s']} s per emulated second)")
        print(f"{'':>14}  {'busy (deal)':>12}  {'quiet':>12}")
        for key in busy:
            if key != "per_node":
                print(f"{key:>14}  {busy[key]!s:>12}  {quiet[key]!s:>12}")
        print("per node (busy | quiet): exchanges, p50, p99, max ms, over timeout")
        nodes: list[dict[int, dict[str, object]]] = [busy["per_node"], quiet["per_node"]]  # type: ignore[list-item]
        for address in nodes[0]:
            row = [nodes[0][address], nodes[1].get(address, {})]
            print(f"  node {address:2d}  " + "  |  ".join(
                f"{r.get('exchanges')} {r.get('p50_ms')} {r.get('p99_ms')} {r.get('max_ms')} {r.get('over_timeout')}"
                for r in row))
        print("        target: p99 <= 3 ms, max < 5 ms, over_timeout 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
