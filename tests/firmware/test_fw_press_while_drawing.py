"""A seat that is drawing its new screen stops for a press (firmware 0.9.4), run under the real MicroPython binary
with the firmware's own modules and a panel that presses the button partway through.

Found on emulated Picos (firmware/PROTOCOL.md, "The nodes' own time"): the deal's screens arrive every 150 ms and a
whole new picture is 32 chunks of I2C, 0.74 ms each on the chip. The node stopped drawing only for bus bytes, and
a LISTEN window in which nobody talks brings none, so a press made while the panel was being drawn was not even
read until the picture was done: the seat sat out most of the window with its news, and the press reached the
host 20-30 ms late."""

from __future__ import annotations

from tests.firmware.mp_standins import SEAT_3_GETS_A_WHOLE_PICTURE, run_node_script

SCRIPT = r"""class Panel:
    # An SSD1306 as the node drives it; the finger lands while the third chunk is being written.
    def __init__(self, pin):
        self.pin = pin
        self.chunks = 0

    def write(self, page, col, src, lo, end):
        self.chunks += 1
        if self.chunks == 3:
            self.pin.level = 0

    def busy(self):
        return False  # (each write is over when it returns, as machine.I2C's)


pin = Pin()
io = IO(Link(), pin, Panel(pin))
""" + SEAT_3_GETS_A_WHOLE_PICTURE + r"""
node.step(10)
print("drawn", io.screen.chunks)
node.step(11)
print("queued", len(node.queue))
node.step(12)
print("drawn", io.screen.chunks)
"""


def test_seat_3_stops_drawing_its_new_screen_to_take_a_press(micropython: str) -> None:
    words = run_node_script(micropython, SCRIPT)
    assert words[:2] == ["drawn", "3"], "the drawing stopped after the chunk the finger landed in"
    assert words[2:4] == ["queued", "1"], "the next step took the press"
    assert words[4:] == ["drawn", "3"], "and the picture waits while the press is news (HOLD_DRAWING_MS)"
