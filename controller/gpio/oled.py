"""Seat screens: luma.oled's ssd1306 driver over a seat's multiplexed I2C bus.

luma drives the SSD1306 through a *serial interface* object with ``command(*bytes)`` and ``data(bytes)``. Over
I2C the SSD1306 (datasheet §8.1.5.2) takes a control byte first: 0x00 for a run of commands, 0x40 for display
RAM data. :class:`MuxedI2cSerial` is that interface on a :class:`~controller.gpio.i2c.SeatBus`, so every transfer
selects the seat's mux channel under the bus lock. Frame data goes out in chunks so one seat's 1 KiB frame does
not hold the bus for 20 ms while the card readers wait.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from controller.gpio.i2c import SeatBus

CONTROL_COMMANDS = 0x00
CONTROL_DATA = 0x40


class MuxedI2cSerial:
    """A luma serial interface for one SSD1306 behind one mux channel."""

    def __init__(self, bus: SeatBus, address: int = 0x3C, chunk: int = 256) -> None:
        self.bus = bus
        self.address = address
        self.chunk = chunk

    def command(self, *cmd: int) -> None:
        self.bus.write(self.address, bytes([CONTROL_COMMANDS, *cmd]))

    def data(self, data: Sequence[int]) -> None:
        for start in range(0, len(data), self.chunk):
            self.bus.write(self.address, bytes([CONTROL_DATA, *data[start : start + self.chunk]]))

    def cleanup(self) -> None:
        """Nothing to release: the shared bus outlives the seats."""


PAGES = 8
WIDTH = 128


def page_buffer(image: Image.Image) -> bytes:
    """The SSD1306's display RAM for a 128x64 mode "1" image in horizontal addressing mode: 8 pages of 128
    column bytes, bit n of a byte = row 8*page + n (datasheet §8.7, figure 8-13)."""
    pixels = image.tobytes()  # rows of 16 bytes, most significant bit = leftmost pixel
    buf = bytearray(PAGES * WIDTH)
    for y in range(64):
        row = pixels[y * 16 : (y + 1) * 16]
        page, bit = divmod(y, 8)
        base = page * WIDTH
        for x in range(WIDTH):
            if row[x >> 3] & (0x80 >> (x & 7)):
                buf[base + x] |= 1 << bit
    return bytes(buf)


class OledScreen:
    """One seat's 128x64 SSD1306, set up by luma's ssd1306 driver (init sequence, contrast, rotation).

    Frames go out as the pages that changed since the last frame (the SSD1306 keeps its RAM, so a window of
    pages is enough): a countdown digit costs two pages (256 bytes, ~6 ms at 400 kHz) instead of a whole frame
    (~23 ms), which keeps the bus free for the card readers.
    """

    def __init__(self, serial: MuxedI2cSerial, rotate: int = 0) -> None:
        from luma.oled.device import ssd1306

        self.device = ssd1306(serial_interface=serial, width=128, height=64, rotate=rotate)
        self._ram = bytes(PAGES * WIDTH)  # luma cleared the display on init

    def show(self, image: Image.Image) -> None:
        if image.mode != "1":
            image = image.convert("1")
        if image.size != (WIDTH, 64):
            raise ValueError(f"seat screens are 128x64, got {image.size[0]}x{image.size[1]}")
        buf = page_buffer(self.device.preprocess(image))
        changed = [p for p in range(PAGES) if buf[p * WIDTH : (p + 1) * WIDTH] != self._ram[p * WIDTH : (p + 1) * WIDTH]]
        if not changed:
            return
        first, last = changed[0], changed[-1]
        self.device.command(0x21, 0, WIDTH - 1, 0x22, first, last)  # column address, page address
        self.device.data(list(buf[first * WIDTH : (last + 1) * WIDTH]))
        self._ram = buf
