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


class OledScreen:
    """One seat's 128x64 SSD1306. Sends a frame only when it differs from the last one shown."""

    def __init__(self, serial: MuxedI2cSerial, rotate: int = 0) -> None:
        from luma.oled.device import ssd1306

        self.device = ssd1306(serial_interface=serial, width=128, height=64, rotate=rotate)
        self._last: bytes | None = None

    def show(self, image: Image.Image) -> None:
        if image.mode != "1":
            image = image.convert("1")
        raw = image.tobytes()
        if raw == self._last:
            return
        self.device.display(image)
        self._last = raw
