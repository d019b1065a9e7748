"""Where one seat's time goes on the way from a frame, or a press, to its answer: the rp2 image on one emulated Pico
(controller/nodes), the moments its core first enters each of a list of the firmware's functions after the frame's
last byte (or the finger), in emulated time. What firmware/PROTOCOL.md's "Bytes in machine code" was traced with.

    .venv/bin/python benchmarks/node_path.py poll     # a POLL by name with nothing to say, to the answer
    .venv/bin/python benchmarks/node_path.py screen   # a 180-byte DISPLAY_RLE, to its ACK
    .venv/bin/python benchmarks/node_path.py press    # a press 0.3 ms after a POLL_ALL (its slot 1.75 ms after it)
    .venv/bin/python benchmarks/node_path.py listen   # presses in a 16-seat LISTEN window, 0.3-2.0 ms before a slot
    .venv/bin/python benchmarks/node_path.py take     # a press waiting for a LISTEN, its slot 0.5-2.0 ms after it
    .venv/bin/python benchmarks/node_path.py take-all # ...for a POLL_ALL
    .venv/bin/python benchmarks/node_path.py press --functions fun_data_node_Node__buttons,fun_data_node_Node__queue

Each function is named by its symbol in the image (``arm-none-eabi-nm``: a native method is
``fun_data_<module>_<class>_<name>``, a viper or assembler function ``fun_data_<module>_<module>_dot_py<n>`` by its
place in the module; bytecode functions have no code of their own to enter). A function entered, left for a callee
and entered again counts once: its first entry. The figures are p50 / min / max over the frames sent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from controller.bus import seatbus as sb  # noqa: E402
from controller.nodes import firmware_build  # noqa: E402
from controller.nodes.check import identify_when_up  # noqa: E402
from controller.nodes.emulated_bus import EmulatedBus  # noqa: E402
from controller.nodes.node_image import node_uf2  # noqa: E402

BAUD = 2_000_000
PATHS = {
    "poll": ["fun_data_node_Node__take_frames", "fun_data_rs485_rs485_dot_py2", "fun_data_framing_FrameReader_next",
             "fun_data_node_Node__handle_fast", "fun_data_framing_Reply_ready", "fun_data_rs485_RS485_write",
             "fun_data_rp2send_rp2send_dot_py"],
    "screen": ["fun_data_node_Node__take_frames", "fun_data_rs485_rs485_dot_py2", "fun_data_framing_FrameReader_next",
               "fun_data_node_Node__handle_fast", "fun_data_node_Node__display_rle", "fun_data_framing_Reply_ready",
               "fun_data_rs485_RS485_write", "fun_data_rp2send_rp2send_dot_py"],
    "listen": ["fun_data_node_Node__buttons", "fun_data_node_Node__queue", "fun_data_node_Node__span_step",
               "fun_data_node_Node__span_target", "fun_data_node_Node__span_reply", "fun_data_node_Node__prepare",
               "fun_data_node_Node__stamp", "fun_data_node_Node__span_send", "fun_data_rs485_RS485_write_at",
               "fun_data_rp2send_rp2send_dot_py"],
    "take": ["fun_data_node_Node__take_frames", "fun_data_framing_FrameReader_next", "fun_data_node_Node__listen_fast",
             "fun_data_node_Node__span_step", "fun_data_node_Node__news_step", "fun_data_node_Node__stamp",
             "fun_data_node_Node__span_send", "fun_data_rs485_RS485_write_at", "fun_data_rp2send_rp2send_dot_py"],
    "take-all": ["fun_data_node_Node__take_frames", "fun_data_framing_FrameReader_next",
                 "fun_data_node_Node__poll_all_fast", "fun_data_node_Node__stamp", "fun_data_rs485_RS485_write_at",
                 "fun_data_rp2send_rp2send_dot_py"],
    "press": ["fun_data_node_Node__buttons", "fun_data_node_Node__queue", "fun_data_node_Node__span_step",
              "fun_data_node_Node__poll_slot", "fun_data_node_Node__prepare", "fun_data_node_Node__stamp",
              "fun_data_rs485_RS485_write_at", "fun_data_rp2send_rp2send_dot_py"],
}
SCREEN = bytes([0, 0, 0x7F]) + bytes([0x55]) * 128 + bytes([0x2F]) + bytes([0xAA]) * 48  # 180 bytes changed
PRESS_AFTER_S = 0.0003
LEAD_US = 1500
LISTEN_SEATS = 16  # the listen path's window: seat 1 in the 11th slot of 16, 20 rounds
LISTEN_INDEX = 10
LISTEN_ROUNDS = 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", choices=sorted(PATHS))
    parser.add_argument("--functions", help="comma-separated symbols instead of the path's own")
    parser.add_argument("--times", type=int, default=40, help="frames (or presses) sent")
    args = parser.parse_args()
    image = firmware_build.build()
    symbols = firmware_build.functions(image.elf)
    names = args.functions.split(",") if args.functions else PATHS[args.path]
    unknown = [n for n in names if n not in symbols]
    if unknown:
        print(f"node_path: the image has no function {', '.join(unknown)} (arm-none-eabi-nm -S {image.elf})")
        return 2
    starts = {symbols[n][0]: n for n in names}
    with tempfile.TemporaryDirectory() as tmp, EmulatedBus(baud=BAUD) as bus:
        config = json.loads((REPO / "firmware" / "config.example.json").read_text())
        config["address"] = 1
        config["uart"]["baud"] = BAUD
        uf2 = Path(tmp) / "seat-01.uf2"
        uf2.write_bytes(node_uf2(image.firmware.read_bytes(), config))
        pico = bus.add(uf2, config)
        if identify_when_up(bus, 1) is None:
            print("node_path: the seat did not boot")
            return 1
        bus.write(sb.encode_frame(1, 1, sb.IDENTIFY))
        bus.run(0.3)
        bus.call({"op": "hits", "pico": 0, "ranges": [list(symbols[n]) for n in names]})
        tries: list[tuple[float, int, bool]] = []
        if args.path == "listen":
            tries = run_listen(bus, pico, args.times)
        elif args.path in ("take", "take-all"):
            tries = run_take(bus, pico, args.times, args.path == "take-all")
        else:
            moments, answered = run(bus, pico, args.path, args.times)
        if tries:
            moments = [moment for moment, _, _ in tries]
        seen = bus.call({"op": "hits", "pico": 0, "take": True})["seen"]
    finger = args.path in ("press", "listen")  # (take: after the LISTEN's second copy)
    print(f"{args.path}: {args.times} at {BAUD} baud, µs after the {'finger' if finger else 'frame'}"
          + (f"; answered in the slot {answered} times" if args.path == "press" else ""))
    if args.path in ("listen", "take", "take-all"):
        what = ("a press {:.2f} ms before its slot" if args.path == "listen"
                else "a slot {:.2f} ms after the " + ("LISTEN" if args.path == "take" else "POLL_ALL"))
        for ahead in sorted({distance for _, distance, _ in tries}):
            made = [ok for _, distance, ok in tries if distance == ahead]
            print(f"  {what.format(ahead / 1000)}: made it {sum(made)} of {len(made)}")
    # Each step counted from the one before it: a function the loop passes through before the finger (the window's
    # step on every pass) is counted where the path comes to it.
    after: dict[str, list[float]] = {name: [] for name in names}
    for at in moments:
        since = 0.0
        for name in names:
            hits = [t / 1e9 - at for t, pc in seen if starts[pc] == name and since <= t / 1e9 - at < 0.004]
            if hits:
                since = min(hits)
                after[name].append(since * 1e6)
    for name, took in after.items():
        if took:
            print(f"  {name:42s} p50 {statistics.median(took):7.1f}  min {min(took):7.1f}  max {max(took):7.1f}"
                  f"  ({len(took)})")
        else:
            print(f"  {name:42s} not entered")
    return 0


def run(bus: EmulatedBus, pico, path: str, times: int) -> tuple[list[float], int]:
    """Send the path's frames (and presses); the moments to count from, and how many presses were answered in
    their slot."""
    moments = []
    answered = 0
    last = 0
    slot = sb.poll_all_slot_us(BAUD, sb.POLL_ALL_SHORT_GUARD_US)
    for i in range(times):
        seq = (2 + 4 * i) & 0xFF
        if path == "press":
            frame = sb.encode_frame(sb.BROADCAST, seq, sb.POLL_ALL, sb.encode_poll_all(slot, 0, [2, 3, 1], [], LEAD_US))
        elif path == "poll":
            frame = sb.encode_frame(1, seq, sb.POLL, sb.encode_poll(last))
        else:
            frame = sb.encode_frame(1, seq, sb.DISPLAY_RLE, SCREEN)
        start = bus.now()
        bus.write(frame)
        end = start + len(frame) * 10 / BAUD
        if path == "press":
            moment = end + PRESS_AFTER_S + (i % 4) * 50e-6
            bus.at(moment, lambda: pico.button("ok", True))
        else:
            moment = end
        moments.append(moment)
        heard = sb.Decoder().feed(bus.run(0.006 + (i % 7) * 130e-6))
        if path != "press":
            continue
        answered += any(f.from_node and f.addr == 1 and f.mtype == sb.EVENTS for f in heard)
        last = lift_and_ack(bus, pico, seq, last)
    return moments, answered


def lift_and_ack(bus: EmulatedBus, pico, seq: int, last: int) -> int:
    """The finger lifted, then POLLs by name until every event is acked (the host's frame also ends a window), so
    that the next press is the only news; the last event's number."""
    pico.button("ok", False)
    bus.run(0.05)
    for k in range(1, 4):
        bus.write(sb.encode_frame(1, (seq + k) & 0xFF, sb.POLL, sb.encode_poll(last)))
        for f in sb.Decoder().feed(bus.run(0.01)):
            if f.from_node and f.mtype == sb.EVENTS and f.addr == 1:
                events = sb.decode_events(f.payload)
                if events:
                    last = events[-1][0]
    return last


def in_its_slot(bus: EmulatedBus, heard_from: int, due: float, slot_us: int) -> bool:
    """Did seat 1's first byte heard since ``heard_from`` begin in the slot that begins at ``due``?"""
    mine = [t / 1e9 for t, _ in bus.heard[heard_from:]]
    return bool(mine) and abs(mine[0] - 10 / BAUD - due) < slot_us / 1e6


def run_listen(bus: EmulatedBus, pico, times: int) -> list[tuple[float, int, bool]]:
    """Presses in a LISTEN window of 16 seats (seat 1's slot the 11th), each made ``ahead`` µs before seat 1's
    slot in the window's third round (0.3 to 2.0 ms, in turn); (the finger's moment, how far ahead, whether the
    answer came in that slot) for each."""
    slot = sb.poll_all_slot_us(BAUD, sb.POLL_ALL_SHORT_GUARD_US)
    gap = sb.listen_gap_us(BAUD)
    round_us = LISTEN_SEATS * slot + gap
    addresses = [a for a in range(2, LISTEN_SEATS + 1)]
    addresses.insert(LISTEN_INDEX, 1)
    aheads = list(range(300, 2001, 100))
    tries = []
    last = 0
    for i in range(times):
        seq = (2 + 4 * i) & 0xFF
        frame = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN,
                                sb.encode_listen(slot, gap, LISTEN_ROUNDS, 0, addresses, [], sb.LISTEN_LEAD_US))
        bus.write(frame)
        begins = bus.now() + len(frame) * 10 / BAUD + sb.LISTEN_LEAD_US / 1e6
        due = begins + (2 * round_us + LISTEN_INDEX * slot) / 1e6  # seat 1's slot in round 3
        ahead = aheads[i % len(aheads)]
        moment = due - ahead / 1e6
        bus.at(moment, lambda: pico.button("ok", True))
        heard_from = len(bus.heard)
        bus.run(moment - bus.now() + 0.004)
        tries.append((moment, ahead, in_its_slot(bus, heard_from, due, slot)))
        last = lift_and_ack(bus, pico, seq, last)
    return tries


def run_take(bus: EmulatedBus, pico, times: int, poll_all: bool) -> list[tuple[float, int, bool]]:
    """A press made while no window is open, then a LISTEN as the master sends it (two copies; or a POLL_ALL) with
    seat 1's first slot 0.5 to 2.0 ms after it, in turn (a lead of 0.5 ms and seat 1 further down the list);
    (the frame's end, the slot's distance, whether the answer came in that slot) for each. What a lead must cover
    (seatbus.LISTEN_LEAD_US, POLL_ALL_LEAD_US)."""
    slot = sb.poll_all_slot_us(BAUD, sb.POLL_ALL_SHORT_GUARD_US)
    gap = sb.listen_gap_us(BAUD)
    lead = 500
    tries = []
    last = 0
    for i in range(times):
        seq = (2 + 4 * i) & 0xFF
        index = i % 13
        addresses = [a for a in range(2, 15)]
        addresses.insert(index, 1)
        pico.button("ok", True)
        bus.run(0.002 + (i % 5) * 0.0003)
        if poll_all:
            frames = sb.encode_frame(sb.BROADCAST, seq, sb.POLL_ALL, sb.encode_poll_all(slot, 0, addresses, [], lead))
        else:
            copy = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(slot, gap, 20, 0, addresses, [], lead))
            frames = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(
                slot, gap, 20, 0, addresses, [], len(copy) * 10_000_000 // BAUD + lead)) + copy
        bus.write(frames)
        end = bus.now() + len(frames) * 10 / BAUD
        due = end + (lead + index * slot) / 1e6
        heard_from = len(bus.heard)
        bus.run(due - bus.now() + 0.002)
        tries.append((end, lead + index * slot, in_its_slot(bus, heard_from, due, slot)))
        last = lift_and_ack(bus, pico, seq, last)
    return tries


if __name__ == "__main__":
    sys.exit(main())
