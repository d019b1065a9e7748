"""How soon after a POLL_ALL or a LISTEN a seat node on its own chip can answer in a slot: the rp2 firmware on two
emulated Picos, seat 1 with a press waiting, and slotted polls whose address list puts seat 1's slot later and
later (the places before it go to addresses no node has), each tried at several moments of the node's loop.

A node answers in a slot only if it has taken the frame before the slot begins: it comes round its loop, reads
the frame, checks its CRC, finds its slot and stamps its answer, in interpreted MicroPython. A slot that begins
sooner goes by silent, so this figure is what a POLL_ALL's lead (seatbus.POLL_ALL_LEAD_US) and a LISTEN's first
round must leave (firmware/PROTOCOL.md, "POLL_ALL's lead"). Emulated time: the same on every run. It prints, for
each frame and each slot start, how many tries seat 1 answered in, and the first start from which it answered in
half the tries or more, and in every try.

``--drawing`` gives seat 1 a new screen just before each try, so that it is drawing its panel (in I2C chunks)
when the frame comes, as at the deal; with a press waiting since firmware 0.9 it holds the drawing, so this shows
what a seat without news costs (its press comes in the middle of drawing).

    .venv/bin/python benchmarks/node_ready.py [--tries 12] [--baud 2000000] [--drawing] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from node_reply import boot_seats  # noqa: E402

from controller.bus import seatbus as sb  # noqa: E402
from controller.bus.display import rle_payloads, ssd1306_bytes  # noqa: E402
from controller.nodes import firmware_build  # noqa: E402
from controller.nodes.emulated_bus import EmulatedBus  # noqa: E402
from controller.screens.render import render  # noqa: E402
from controller.screens.views import RoleReveal, TapCard  # noqa: E402

NOBODY = 20  # the first of the addresses no node has, which fill the places before seat 1's slot


def answered(bus: EmulatedBus, seq: int, address: int, seconds: float) -> bool:
    """Run ``seconds`` and say whether ``address`` answered the poll numbered ``seq``."""
    start = len(bus.heard)
    bus.run(seconds)
    decoder = sb.Decoder()
    for _, byte in bus.heard[start:]:
        for frame in decoder.feed(bytes([byte])):
            if frame.from_node and frame.addr == address and frame.seq == seq:
                return True
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=12, help="tries at each slot start, at different moments")
    parser.add_argument("--baud", type=int, default=2_000_000, help="the line's speed (default 2000000)")
    parser.add_argument("--most-ms", type=float, default=3.0, help="the latest slot start tried (ms)")
    parser.add_argument("--drawing", action="store_true", help="a new screen for seat 1 just before each try")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    firmware = firmware_build.build().firmware.read_bytes()
    wall = time.monotonic()
    slot = sb.poll_all_slot_us(args.baud, sb.POLL_ALL_SHORT_GUARD_US)
    gap = sb.listen_gap_us(args.baud)
    results: dict[str, dict[float, int]] = {"POLL_ALL": {}, "LISTEN": {}}
    with EmulatedBus(baud=args.baud) as bus:
        seat, other = boot_seats(bus, firmware, 2)
        seq = 1
        for address in (seat, other):
            bus.write(sb.encode_frame(address, seq, sb.IDENTIFY))
            answered(bus, seq, address, 0.01)
            seq += 1
        pictures = [ssd1306_bytes(render(RoleReveal(seat=1, role="killer", partners=(2,)))),
                    ssd1306_bytes(render(TapCard(seat=1)))]
        shown = bytes(sb.SCREEN_BYTES)
        bus.picos[0].button("ok", True)  # seat 1's press waits: it answers every poll it reaches
        bus.run(0.05)
        for name, mtype in (("POLL_ALL", sb.POLL_ALL), ("LISTEN", sb.LISTEN)):
            places = 0
            while places * slot <= args.most_ms * 1000:
                hits = 0
                for trial in range(args.tries):
                    if args.drawing:
                        new = pictures[trial % 2]
                        for payload in rle_payloads(shown, new):
                            bus.write(sb.encode_frame(seat, seq, sb.DISPLAY_RLE, payload))
                            answered(bus, seq, seat, 0.006)
                            seq = (seq + 1) & 0xFF or 1
                        shown = new
                        bus.run(0.001 + 0.0003 * trial)
                    else:
                        bus.run(0.003 + 0.00037 * trial)  # another moment of the node's loop
                    addresses = bytes(range(NOBODY, NOBODY + places)) + bytes([seat])
                    if mtype == sb.POLL_ALL:
                        payload = sb.encode_poll_all(slot, 0, addresses, [])
                    else:
                        payload = sb.encode_listen(slot, gap, 1, 0, addresses, [])
                    bus.write(sb.encode_frame(sb.BROADCAST, seq, mtype, payload))
                    hits += answered(bus, seq, seat, 0.003 + places * slot / 1e6)
                    seq = (seq + 1) & 0xFF or 1
                results[name][places * slot / 1000] = hits
                places += 1
    ready = {name: next((at for at, hits in sorted(by.items()) if all(
        h == args.tries for a, h in by.items() if a >= at)), None) for name, by in results.items()}
    half = {name: next((at for at, hits in sorted(by.items()) if all(
        2 * h >= args.tries for a, h in by.items() if a >= at)), None) for name, by in results.items()}
    if args.json:
        print(json.dumps({"tries": args.tries, "answered": results, "ready_ms": ready, "half_ms": half, "slot_us": slot,
                          "host_s": round(time.monotonic() - wall, 1)}))
        return 0
    print(f"seat 1 on an emulated Pico, {args.baud} baud, a press waiting"
          f"{', a new screen before each try' if args.drawing else ''}; slots of {slot} µs; {args.tries} tries each")
    for name, by in results.items():
        row = "  ".join(f"{at:.2f}:{hits}" for at, hits in sorted(by.items()))
        print(f"{name:>8} slot start ms:answered  {row}")
        at, most = ready[name], half[name]
        print(f"{name:>8} answered in half the tries or more from {most:.2f} ms after the frame, in every try from "
              f"{at:.2f} ms" if at is not None and most is not None else f"{name:>8} never answered in every try")
    print(f"host time {time.monotonic() - wall:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
