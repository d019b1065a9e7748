"""How fast a seat node answers on its own chip: the rp2 firmware on emulated Picos (controller/nodes), the
unchanged bus master polling each seat by name while the deal's screens go out, in emulated time.

The reply latency is from the last byte of the master's frame on the line to the first byte of the node's
answer (the node's own time: its UART interrupt, its loop, its decoder, its reply), as a logic analyser on the
bus would see it. Target (issue 34): p99 <= 3 ms, max below half the 10 ms reply timeout, none over it.

    .venv/bin/python benchmarks/node_reply.py [--seats 2] [--seconds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from controller.bus import seatbus as sb  # noqa: E402
from controller.bus.master import BusMaster  # noqa: E402
from controller.bus.nodes import NodeSpec  # noqa: E402
from controller.bus.table import BusTable  # noqa: E402
from controller.nodes import firmware_build  # noqa: E402
from controller.nodes.check import BOOT_S  # noqa: E402
from controller.nodes.emulated_bus import EmulatedBus  # noqa: E402
from controller.nodes.node_image import node_uf2  # noqa: E402
from controller.screens.render import render  # noqa: E402
from controller.screens.views import RoleReveal, TapCard  # noqa: E402

TIMEOUT_MS = 10.0


def latencies(bus: EmulatedBus) -> list[tuple[int, float]]:
    """(message type, ms) for every master frame to one node: the time to its answer, or ``inf`` when the master
    spoke again first (it gave up after its reply timeout: the answer, if any, came too late)."""
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
            out.append((frames[0].mtype, (first_start - done) / 1e6))
        else:
            out.append((frames[0].mtype, float("inf")))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0, help="emulated seconds of the busy stretch")
    parser.add_argument("--quiet-screens", action="store_true", help="no screen changes: the polls alone")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    firmware = firmware_build.build().firmware.read_bytes()
    wall = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, EmulatedBus() as bus:
        addresses = list(range(1, args.seats + 1))
        for address in addresses:
            config = json.loads((REPO / "firmware" / "config.example.json").read_text())
            config["address"] = address
            path = Path(tmp) / f"seat-{address:02d}.uf2"
            path.write_bytes(node_uf2(firmware, config))
            bus.add(path, config)
        bus.run(BOOT_S)
        # Every seat by name (no POLL_ALL slots, no LISTEN windows): each poll is one timed exchange.
        master = BusMaster(bus, [NodeSpec(address=a, seat=a) for a in addresses], poll_all=False, listen=False)
        table = BusTable(master, threaded=False)
        table.start(lambda event: None)
        table.run_for(0.1)
        bus.said.clear()
        bus.heard.clear()
        views = [TapCard(seat=1), RoleReveal(seat=1, role="killer", partners=(2,)), RoleReveal(seat=1, role="police")]
        step = 0.15
        t = 0.0
        while t < args.seconds:  # the deal: every seat's screen changes every 150 ms
            for address in addresses if not args.quiet_screens else ():
                view = views[(int(t / step) + address) % len(views)]
                table.seats[address].display(render(view))
            table.run_for(step)
            t += step
        stats = master.stats
    found = latencies(bus)
    polls = [ms for mtype, ms in found if mtype == sb.POLL]
    every = sorted(ms for _, ms in found)
    result = {
        "seats": args.seats,
        "emulated_s": args.seconds,
        "host_s": round(time.monotonic() - wall, 1),
        "exchanges": len(every),
        "polls": len(polls),
        "p50_ms": round(statistics.median(every), 3) if every else None,
        "p99_ms": round(every[min(len(every) - 1, int(len(every) * 0.99))], 3) if every else None,
        "max_ms": round(every[-1], 3) if every else None,  # inf: some request was never answered in time
        "over_timeout": sum(1 for ms in every if ms > TIMEOUT_MS),
        "timeouts": stats.timeouts,
        "retransmits": stats.retransmits,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>14}: {value}")
        print("        target: p99 <= 3 ms, max < 5 ms, over_timeout 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
