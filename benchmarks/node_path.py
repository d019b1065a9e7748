"""Where one seat's time goes on the way from a frame, or a press, to its answer: the rp2 image on one emulated Pico
(controller/nodes), the moments its core first enters each of a list of the firmware's functions after the frame's
last byte (or the finger), in emulated time. What firmware/PROTOCOL.md's "Bytes in machine code" was traced with.

    .venv/bin/python benchmarks/node_path.py poll     # a POLL by name with nothing to say, to the answer
    .venv/bin/python benchmarks/node_path.py screen   # a 180-byte DISPLAY_RLE, to its ACK
    .venv/bin/python benchmarks/node_path.py press    # a press 0.3 ms after a POLL_ALL (its slot 1.75 ms after it)
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
    "press": ["fun_data_node_Node__buttons", "fun_data_node_Node__queue", "fun_data_node_Node__span_step",
              "fun_data_node_Node__poll_slot", "fun_data_node_Node__prepare", "fun_data_node_Node__stamp",
              "fun_data_rs485_RS485_write_at", "fun_data_rp2send_rp2send_dot_py"],
}
SCREEN = bytes([0, 0, 0x7F]) + bytes([0x55]) * 128 + bytes([0x2F]) + bytes([0xAA]) * 48  # 180 bytes changed
PRESS_AFTER_S = 0.0003
LEAD_US = 1500


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
        moments, answered = run(bus, pico, args.path, args.times)
        seen = bus.call({"op": "hits", "pico": 0, "take": True})["seen"]
    print(f"{args.path}: {args.times} at {BAUD} baud, µs after the {'finger' if args.path == 'press' else 'frame'}"
          + (f"; answered in the slot {answered} times" if args.path == "press" else ""))
    for name in names:
        after = []
        for at in moments:
            hits = [t / 1e9 - at for t, pc in seen if starts[pc] == name and 0 <= t / 1e9 - at < 0.004]
            if hits:
                after.append(min(hits) * 1e6)
        if after:
            print(f"  {name:42s} p50 {statistics.median(after):7.1f}  min {min(after):7.1f}  max {max(after):7.1f}"
                  f"  ({len(after)})")
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
        pico.button("ok", False)
        bus.run(0.05)
        for k in range(1, 4):  # every event acked by name, so that the next press is the only news
            bus.write(sb.encode_frame(1, (seq + k) & 0xFF, sb.POLL, sb.encode_poll(last)))
            for f in sb.Decoder().feed(bus.run(0.01)):
                if f.from_node and f.mtype == sb.EVENTS and f.addr == 1:
                    events = sb.decode_events(f.payload)
                    if events:
                        last = events[-1][0]
    return moments, answered


if __name__ == "__main__":
    sys.exit(main())
