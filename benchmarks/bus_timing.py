"""Wire-time model of the seat bus: how long a poll cycle and a table-wide screen update take (a breakdown: the
end-to-end figures, with the firmware under MicroPython, are ``tianhei bus-sim`` for presses and
benchmarks/bus_screens.py for every screen changing at once).

Time on the wire is bytes x 10 bits (8N1) / baud, from the real frame sizes (seatbus.encode_frame). Each
exchange also pays the node's turnaround (``--turnaround``, default 100 µs: the node notices the frame, builds
the reply and raises DE) and the master's own turnaround (default 50 µs).

    python benchmarks/bus_timing.py [--seats 16] [--turnaround-us 100] [--master-us 50]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.bus import seatbus as sb
from controller.bus.display import BusSerialInterface


def exchange_s(request: int, reply: int, baud: int, node_turn: float, master_turn: float) -> float:
    return (request + reply) * 10 / baud + node_turn + master_turn


def poll_cycle_s(seats: int, baud: int, node_turn: float, master_turn: float) -> float:
    poll = len(sb.encode_frame(1, 0, sb.POLL, sb.encode_poll(0)))
    empty = len(sb.encode_frame(1, 0, sb.EVENTS, sb.encode_events([]), True))
    return seats * exchange_s(poll, empty, baud, node_turn, master_turn)


def poll_all_cycle_s(seats: int, baud: int, node_turn: float, master_turn: float) -> float:
    """A quiet table's poll round with POLL_ALL: one broadcast frame, then every seat's slot (firmware 0.3)."""
    frame = len(sb.encode_frame(sb.BROADCAST, 0, sb.POLL_ALL, sb.encode_poll_all(
        sb.poll_all_slot_us(baud), 0, list(range(1, seats + 1)), [])))
    return frame * 10 / baud + node_turn + seats * sb.poll_all_slot_us(baud) / 1e6 + master_turn


def quarter_screen_frames(seed: int) -> list[bytes]:
    """DISPLAY payloads for one screen where a quarter of the panel (a 64x32 block of new pixels) changed."""
    rng = random.Random(seed)
    sent: list[bytes] = []
    screen = BusSerialInterface(lambda t, p: sent.append(p))
    screen.command(0x21, 0, 127, 0x22, 0, 7)
    screen.data(bytes(rng.getrandbits(8) for _ in range(1024)))
    sent.clear()
    new = bytearray(screen.shadow)
    for page in range(4):
        for col in range(64):
            new[page * 128 + col] ^= 0xFF
    screen.data(new)
    return sent


def screen_update_s(seats: int, baud: int, node_turn: float, master_turn: float) -> tuple[float, int]:
    ack = len(sb.encode_frame(1, 0, sb.ACK, b"", True))
    total = 0.0
    nbytes = 0
    for seat in range(seats):
        for payload in quarter_screen_frames(seat):
            req = sb.OVERHEAD + len(payload)
            nbytes += req + ack
            total += exchange_s(req, ack, baud, node_turn, master_turn)
    return total, nbytes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=16)
    parser.add_argument("--turnaround-us", type=float, default=100.0)
    parser.add_argument("--master-us", type=float, default=50.0)
    args = parser.parse_args()
    node_turn = args.turnaround_us / 1e6
    master_turn = args.master_us / 1e6
    print(
        f"{args.seats} seats, node turnaround {args.turnaround_us:.0f} µs, master {args.master_us:.0f} µs, 8N1"
    )
    for baud, poll_target, screen_target in ((1_000_000, 10.0, 100.0), (115_200, None, None)):
        cycle = poll_cycle_s(args.seats, baud, node_turn, master_turn) * 1000
        update, nbytes = screen_update_s(args.seats, baud, node_turn, master_turn)
        update_ms = update * 1000
        p = (
            f" (target <= {poll_target:.0f} ms: {'met' if cycle <= poll_target else 'MISSED'})"
            if poll_target
            else ""
        )
        s = (
            f" (target <= {screen_target:.0f} ms: {'met' if update_ms <= screen_target else 'MISSED'})"
            if screen_target
            else ""
        )
        print(f"{baud:>9} baud: poll cycle {cycle:6.2f} ms{p} (seats polled by name)")
        grouped = poll_all_cycle_s(args.seats, baud, node_turn, master_turn) * 1000
        print(f"{baud:>9} baud: poll round with POLL_ALL {grouped:6.2f} ms (one frame, {args.seats} slots)")
        print(f"{baud:>9} baud: quarter of every screen changes: {nbytes} bytes, {update_ms:6.2f} ms{s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
