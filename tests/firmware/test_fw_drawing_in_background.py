"""A seat draws its panel while its loop runs on (firmware 0.9.13): on the RP2040 a chunk's bytes go out of the I2C
block's FIFO by themselves (firmware/lib/rp2i2c.py), so a pass of the loop starts a chunk and goes on to the bus,
and later passes feed it until its STOP. Run under the real MicroPython binary with the firmware's own modules and
a panel whose chunks take three looks to go out, as the chip's take a few passes.

Found on emulated Picos (firmware/PROTOCOL.md, "The panel drawn while the loop runs"): a 33-byte chunk held the
loop 0.74 ms, and the POLL_ALLs that came meanwhile were taken late enough to miss their slots."""

from __future__ import annotations

from tests.firmware.mp_standins import SEAT_3_GETS_A_WHOLE_PICTURE, run_node_script

SCRIPT = r"""class Panel:
    # An SSD1306 written in the background: each chunk is still going out for the next two looks at it.
    def __init__(self):
        self.chunks = []
        self.left = 0
        self.over = 0

    def write(self, page, col, src, lo, end):
        if self.left:
            self.over += 1  # a chunk written over one still going out
        self.chunks.append(page * 128 + col)
        self.left = 3

    def busy(self):
        if self.left:
            self.left -= 1
        return self.left > 0


io = IO(Link(), Pin(), Panel())
""" + SEAT_3_GETS_A_WHOLE_PICTURE + r"""
node.step(10)
print("chunks", len(io.screen.chunks))
io.link.data = sb.encode_frame(3, 2, sb.POLL, sb.encode_poll(0))  # the host asks while the chunk goes out
writes = io.link.writes
node.step(11)
print("answered", io.link.writes - writes, "chunks", len(io.screen.chunks))
for t in range(12, 200):
    node.step(t)
print("chunks", len(io.screen.chunks), "over", io.screen.over, "drawing", node.drawing)
print("in_order", io.screen.chunks == list(range(0, 1024, 32)))
"""


def test_seat_3_answers_a_poll_while_its_chunk_goes_out_and_draws_the_whole_picture_in_order(
    micropython: str,
) -> None:
    words = run_node_script(micropython, SCRIPT)
    assert words[:2] == ["chunks", "1"], "a pass starts one chunk and goes on, as the chip's FIFO sends it"
    assert words[2:6] == ["answered", "1", "chunks", "1"], (
        "the poll is answered while that chunk still goes out"
    )
    assert words[6:12] == ["chunks", "32", "over", "0", "drawing", "False"], (
        "every chunk went, none over the one before it, and the panel is done"
    )
    assert words[12:] == ["in_order", "True"]
