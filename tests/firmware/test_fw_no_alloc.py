"""A seat that is polled, hears the host talk to other seats and hears their answers, and is listed in LISTEN
windows and POLL_ALLs (taken in place, firmware 0.8), allocates nothing: on the
Pico every allocation is the allocator's search and, sooner or later, a garbage collection the next request waits
for (docs/hardware-truth.md, "Replies in time"). Run under the real MicroPython binary with the firmware's own
modules; the link is a stand-in that allocates nothing itself."""

from __future__ import annotations

from tests.firmware.mp_standins import run_node_script

SCRIPT = r"""import gc

cfg = {"role": "seat", "address": 3, "uart": {"baud": 1000000}}
io = IO(Link(), Pin())
io.buttons = []  # no finger: only the bus
node = Node(cfg, io, 0)
io.link.data = sb.encode_frame(3, 1, sb.IDENTIFY)  # the host starts seat 3's session
node.step(0)
polls = [sb.encode_frame(3, i, sb.POLL, sb.encode_poll(0)) for i in range(256)]  # seat 3, nothing to report
others = [sb.encode_frame(5, i, sb.SET_LED, b"\x01\x02\x03") for i in range(256)]  # the host to seat 5
answers = [sb.encode_frame(5, i, sb.EVENTS, b"\x00", True) for i in range(256)]  # seat 5 answering
listens = [sb.encode_frame(sb.BROADCAST, i, sb.LISTEN, sb.encode_listen(210, 1000, 20, 1, b"\x01\x03\x05", [(3, 0)]))
           for i in range(256)]  # a window opened, seat 3 listed, with nothing to say in it
poll_alls = [sb.encode_frame(sb.BROADCAST, i, sb.POLL_ALL, sb.encode_poll_all(210, 5, b"\x01\x03\x05", [(3, 0)],
                                                                            1500 if i % 2 else 0))
             for i in range(256)]  # the seats polled together (every other POLL_ALL with a lead), seat 5 by roll
kinds = (polls, listens, others, answers, poll_alls)  # (the host talking to seat 5 ends the window)
for warm in range(4):
    io.link.data = polls[warm]
    node.step(1 + warm)
gc.collect()
gc.disable()
before = gc.mem_alloc()
writes = io.link.writes
for i in range(ROUNDS):
    for frames in kinds:
        io.link.data = frames[i & 255]
        node.step(10 + i)
    node.step(10 + i)
after = gc.mem_alloc()
gc.enable()
print("allocated", after - before, "replies", io.link.writes - writes)
"""


def test_seat_3_answers_900_polls_amid_other_seats_traffic_without_allocating(micropython: str) -> None:
    words = run_node_script(micropython, SCRIPT.replace("ROUNDS", "900"), timeout=120)
    assert words[2:] == ["replies", "900"], words  # every poll answered, nothing else (the others' frames)
    # 2700 frames handled: what was allocated is a one-off of the first calls (96 bytes on the unix port), not a
    # cost per frame.
    assert int(words[1]) < 256, words


DRIVERS = r"""import gc
from mfrc522 import MFRC522
from ssd1306 import SSD1306


class I2C:
    # The rp2 port's machine.I2C as the panel meets it: one buffer a transfer (writevto would join its parts in a
    # new buffer), here only counted.
    def __init__(self):
        self.bytes = 0

    def writeto(self, addr, buf):
        self.bytes += len(buf)


class SPI:
    # An MFRC522 with no card: every register reads 0 but the interrupt register, whose timer bit says that
    # nobody answered.
    def write(self, buf):
        pass

    def write_readinto(self, out, into):
        into[1] = 0x01 if (out[0] >> 1) & 0x3F == 0x04 else 0


class CS:
    def value(self, v):
        pass


io = IO(Link(), Pin(), SSD1306(I2C()))
io.reader = MFRC522(SPI(), CS())
node = Node({"role": "seat", "address": 3, "uart": {"baud": 1000000}, "nfc_period_ms": 1}, io, 0)
io.link.data = sb.encode_frame(3, 1, sb.IDENTIFY)
node.step(0)
for warm in range(2):  # each chunk length's view of the panel's buffer is made once
    node._dirty(0, 1024)
    node.step(1000 + warm)
gc.collect()
gc.disable()
before = gc.mem_alloc()
sent = io.screen.i2c.bytes
for i in range(ROUNDS):
    node._dirty(0, 1024)  # a whole new picture: 32 chunks of 32 bytes
    node.step(2000 + 2 * i)  # and a scan with no card (every millisecond)
after = gc.mem_alloc()
gc.enable()
print("allocated", after - before, "sent", io.screen.i2c.bytes - sent)
"""


def test_seat_3_draws_its_panel_and_scans_for_cards_without_allocating(micropython: str) -> None:
    """The panel's chunks (the rp2 port's I2C joins a writevto's parts in a new buffer) and the reader's register
    accesses (a scan with no card is some fifty) were most of a seat's allocations while the deal's screens went
    out: a garbage collection every 125 ms, up to 2.3 ms long, inside the replies it held up."""
    words = run_node_script(micropython, DRIVERS.replace("ROUNDS", "50"), timeout=120)
    # every chunk drawn: one window a picture (the chunks follow each other), then each chunk's control byte and data
    assert words[2:] == ["sent", str(50 * (7 + 32 * 33))], words
    assert int(words[1]) < 256, words
