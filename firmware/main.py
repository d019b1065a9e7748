"""Seat node entry point (MicroPython runs main.py at boot): load config, build the hardware, loop forever.

Everything with behaviour is in lib/node.py; this file only wires it to the real clock.
"""

import gc
import time

import board
import config
from heap import Heap
from node import Node

COUNTER_FILE = "auth_counter"  # the remote's reserved AUTH counters (lib/authcounter.py)


def boot_id():
    try:
        import os

        return int.from_bytes(os.urandom(2), "big")
    except (ImportError, AttributeError):
        return time.ticks_ms() & 0xFFFF


def run(path="config.json"):
    cfg = config.load(path)
    gc.collect()  # the config's text and parse: what lives on is made after, low in the heap (lib/heap.py)
    io = board.build(cfg)
    counter = None
    if cfg["role"] == "remote":
        from binascii import unhexlify

        from authcounter import Reservation

        counter = Reservation(COUNTER_FILE, unhexlify(cfg["key"]), legacy_path="counter")
    gc.collect()
    node = Node(cfg, io, 0, board.reset_cause(), boot_id(), counter)
    heap = Heap()
    heap.settle()  # the boot's garbage goes before the first request comes
    stats = node.stats
    replies = stats["replies"]
    last = time.ticks_ms()
    now = 0
    while True:
        # ticks_ms wraps; summing ticks_diff gives a millisecond count that never does.
        t = time.ticks_ms()
        now += time.ticks_diff(t, last)
        last = t
        node.step(now)
        if stats["replies"] != replies:
            replies = stats["replies"]
            bank = node.bank
            if not node.queue and (bank is None or bank.calm(now)):
                # News first: a collection (about 2.7 ms) right after an answer whose news the host has not acked
                # yet held the next LISTEN, and the press missed its rounds (firmware/PROTOCOL.md, "A LISTEN's
                # way to the slot"). That holds for a press the loop has not read yet too: one made while the
                # answer waited for its slot (0.9.16).
                heap.replied(now)


if __name__ == "__main__":
    run()
