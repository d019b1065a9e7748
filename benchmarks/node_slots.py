"""How exactly a seat node on its own chip keeps its POLL_ALL and LISTEN slot: the rp2 firmware on emulated Picos
(controller/nodes), the unchanged bus master with POLL_ALL and LISTEN on, in emulated time, while the deal's
screens arrive (every seat's screen changes every 150 ms) and fingers press buttons at random moments.

A slotted answer must start at its slot's start (firmware/PROTOCOL.md: the slot's index times ``slot_us`` after
the POLL_ALL's last byte, or round and slot after the LISTEN's second copy) and leave the line, DE released,
before the next slot begins: ``POLL_ALL_GUARD_US`` is what the slot keeps for the difference. This prints, for
every answer in a slot, its first byte's start on the line less the slot's ideal start (the node reads the frame
late by its loop's latency, then counts the slot from that moment), the DE pin's rise before that byte, and the
DE pin's fall after the last stop bit; and whether any answer ran past its slot's end (guard included).

What the emulator cannot show: the real UART's edges (a byte here leaves exactly 10 bit times after it entered
the shift register) and the transceiver's own enable and disable times (docs/hardware-truth.md's parts), which
come on top of the DE figures here; and the crystal's drift (every emulated clock is exact).

    .venv/bin/python benchmarks/node_slots.py [--seats 4] [--seconds 3] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from node_reply import boot_seats  # noqa: E402

from controller.bus import seatbus as sb  # noqa: E402
from controller.bus.master import BusMaster  # noqa: E402
from controller.bus.nodes import NodeSpec  # noqa: E402
from controller.bus.table import BusTable  # noqa: E402
from controller.nodes import firmware_build  # noqa: E402
from controller.nodes.emulated_bus import EmulatedBus  # noqa: E402
from controller.screens.render import render  # noqa: E402
from controller.screens.views import RoleReveal, TapCard  # noqa: E402

EARLY_NS = 50_000  # an answer this much before its window's start still counts as in it (early)


def slot_starts(said: list[tuple[int, bytes]], byte_ns: int) -> list[tuple[int, int, dict[int, int], int, int, int]]:
    """Every slotted poll the master sent, as (ns its window begins, slot ns, {address: offset ns}, round ns,
    rounds, message type): a POLL_ALL's window begins at its last byte; a LISTEN's at its second copy's end
    (``after_us``)."""
    out = []
    for done, data in said:
        for frame in sb.Decoder().feed(data):
            if frame.mtype == sb.POLL_ALL:
                slot_us, _, addresses, _ = sb.decode_poll_all(frame.payload)
                gap_us, rounds, after_us = 0, 1, 0
            elif frame.mtype == sb.LISTEN:
                slot_us, gap_us, rounds, _, after_us, addresses, _ = sb.decode_listen(frame.payload)
                if after_us == 0:
                    continue  # the second copy: the first already said where the window begins
            else:
                continue
            slot = slot_us * 1000
            offsets = {a: i * slot for i, a in enumerate(addresses)}
            out.append((done + after_us * 1000, slot, offsets, len(addresses) * slot + gap_us * 1000, rounds,
                        frame.mtype))
    return out


def frames_of(tx: list[int], byte_ns: int) -> list[tuple[int, int]]:
    """(first byte's start, last stop bit's end) of each run of back-to-back bytes one Pico sent."""
    out: list[tuple[int, int]] = []
    for end in tx:
        if out and end - out[-1][1] <= byte_ns + byte_ns // 2:
            out[-1] = (out[-1][0], end)
        else:
            out.append((end - byte_ns, end))
    return out


def measure(bus: EmulatedBus, edges: dict[int, dict[str, list]]) -> dict[str, object]:
    """Each slotted answer against its slot: start error, DE lead and release, overruns."""
    windows = slot_starts(bus.said, bus.byte_ns)
    by_name = [(done, data[2]) for done, data in bus.said if len(data) > 2 and data[2] != sb.BROADCAST]
    late: list[float] = []
    late_poll_all: list[float] = []
    late_listen: list[float] = []
    lead: list[float] = []
    release: list[float] = []
    overruns = 0
    for address, seen in edges.items():
        rises = [t for t, level in seen["pin"] if level]
        falls = [t for t, level in seen["pin"] if not level]
        for start, end in frames_of(seen["tx"], bus.byte_ns):
            before = [w for w in windows if w[0] <= start + EARLY_NS]
            asked = [done for done, addr in by_name if done <= start]
            if not before or (asked and asked[-1] > before[-1][0]):
                continue  # an answer to a frame by name, not a slot
            begin, slot, offsets, round_ns, rounds, mtype = before[-1]
            if address not in offsets:
                continue
            r = max(0, min(rounds - 1, round((start - begin - offsets[address]) / round_ns)))
            ideal = begin + r * round_ns + offsets[address]
            late.append((start - ideal) / 1000)
            (late_poll_all if mtype == sb.POLL_ALL else late_listen).append((start - ideal) / 1000)
            rise = max((t for t in rises if t <= start), default=None)
            fall = min((t for t in falls if t >= end), default=None)
            if rise is not None:
                lead.append((start - rise) / 1000)
            if fall is not None:
                release.append((fall - end) / 1000)
                if fall > ideal + slot:
                    overruns += 1
    # Two nodes driving the line at once (DE high on both): a collision, whatever the slots' arithmetic says.
    driven = sorted((rise, fall, address) for address, seen in edges.items()
                    for rise, fall in zip([t for t, level in seen["pin"] if level],
                                          [t for t, level in seen["pin"] if not level], strict=False))
    collisions = sum(1 for (_, fall, a), (rise, _, b) in itertools.pairwise(driven) if rise < fall and a != b)
    gaps = [(rise - fall) / 1000 for (_, fall, a), (rise, _, b) in itertools.pairwise(driven)
            if a != b and 0 <= rise - fall < 1000 * 1000]
    return {"answers": len(late), "collisions": collisions, "quiet_between_us": spread(gaps), "late_us": spread(late), "poll_all_late_us": spread(late_poll_all),
            "listen_late_us": spread(late_listen), "latest_us": sorted(late)[-8:], "de_lead_us": spread(lead),
            "de_release_us": spread(release), "overruns": overruns}


def spread(values: list[float]) -> dict[str, float | None]:
    every = sorted(values)
    if not every:
        return {"min": None, "p50": None, "p99": None, "max": None}
    return {"min": round(every[0], 1), "p50": round(statistics.median(every), 1),
            "p99": round(every[min(len(every) - 1, int(len(every) * 0.99))], 1), "max": round(every[-1], 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=3.0, help="emulated seconds of screens and presses")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    firmware = firmware_build.build().firmware.read_bytes()
    rng = random.Random(args.seed)
    wall = time.monotonic()
    with EmulatedBus() as bus:
        addresses = boot_seats(bus, firmware, args.seats)
        master = BusMaster(bus, [NodeSpec(address=a, seat=a) for a in addresses])
        table = BusTable(master, threaded=False)
        table.start(lambda event: None)
        table.run_for(0.2)
        de = {pico.config["address"]: pico.config["uart"]["de"] for pico in bus.picos}
        for pico in bus.picos:
            bus.call({"op": "edges", "pico": pico.index, "gpio": de[pico.config["address"]]})
        bus.said.clear()
        views = [TapCard(seat=1), RoleReveal(seat=1, role="killer", partners=(2,)), RoleReveal(seat=1, role="police")]
        step, t, held = 0.01, 0.0, set()
        while t < args.seconds:
            if int(t / 0.15) != int((t - step) / 0.15):  # the deal: every seat's screen changes every 150 ms
                for address in table.seats:
                    table.seats[address].display(render(views[(int(t / 0.15) + address) % len(views)]))
            for pico in bus.picos:  # a finger presses or lifts now and then, at no particular moment
                if rng.random() < 0.08:
                    pressed = pico.index not in held
                    pico.button("ok", pressed)
                    (held.add if pressed else held.discard)(pico.index)
            table.run_for(step * rng.uniform(0.5, 1.5))
            t += step
        edges = {pico.config["address"]: bus.call({"op": "edges", "pico": pico.index, "take": True})
                 for pico in bus.picos}
        result = measure(bus, edges)
        result.update(seats=args.seats, emulated_s=args.seconds, host_s=round(time.monotonic() - wall, 1),
                      slot_us=master.slot_us, guard_us=sb.POLL_ALL_GUARD_US)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>14}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
