"""The I2C bus the seats share, and the TCA9548A multiplexer in front of them.

Every seat's screen answers at 0x3C and every PN532 at 0x24, so each seat sits on its own TCA9548A channel
(datasheet §8.5: writing one control byte to the mux selects channels, bit n = channel n). A seat's transfer is
therefore two steps — select the channel, then talk — and a transfer from another thread between the two would
reach the wrong seat. :class:`SharedBus` owns one lock for the whole physical bus; :class:`SeatBus` takes it,
switches the channel before *every* transfer (no cached "current channel" that a glitch or a reset of the mux
could make stale), and releases it after.
"""

from __future__ import annotations

import threading
from typing import Protocol


class I2cError(OSError):
    """A transfer failed (no acknowledge, bus stuck). Carries the address for the message."""


class RawI2c(Protocol):
    """Plain I2C transfers on one bus (no locking)."""

    def write(self, address: int, data: bytes) -> None: ...

    def read(self, address: int, length: int) -> bytes: ...


class Smbus2I2c:
    """RawI2c on Linux through smbus2's combined-transfer ioctl (arbitrary lengths, no SMBus framing)."""

    def __init__(self, bus: int) -> None:
        from smbus2 import SMBus  # imported here: only a real Pi has /dev/i2c-*

        self._bus = SMBus(bus)

    def write(self, address: int, data: bytes) -> None:
        from smbus2 import i2c_msg

        try:
            self._bus.i2c_rdwr(i2c_msg.write(address, data))
        except OSError as exc:
            raise I2cError(exc.errno, f"I2C write to {address:#04x} failed: {exc.strerror}") from exc

    def read(self, address: int, length: int) -> bytes:
        from smbus2 import i2c_msg

        msg = i2c_msg.read(address, length)
        try:
            self._bus.i2c_rdwr(msg)
        except OSError as exc:
            raise I2cError(exc.errno, f"I2C read from {address:#04x} failed: {exc.strerror}") from exc
        return bytes(msg)

    def close(self) -> None:
        self._bus.close()


class SharedBus:
    """One physical bus plus the lock every user of it takes (seats, the expanders, the mux)."""

    def __init__(self, raw: RawI2c, mux_address: int | None = None) -> None:
        self.raw = raw
        self.mux_address = mux_address
        self.lock = threading.RLock()

    def write(self, address: int, data: bytes) -> None:
        """A transfer on the main bus (upstream of the mux), e.g. to a port expander."""
        with self.lock:
            self.raw.write(address, data)

    def read(self, address: int, length: int) -> bytes:
        with self.lock:
            return self.raw.read(address, length)

    def write_read(self, address: int, data: bytes, length: int) -> bytes:
        """Register read: write the register address, then read, with no other transfer in between."""
        with self.lock:
            self.raw.write(address, data)
            return self.raw.read(address, length)

    def channel(self, channel: int | None) -> SeatBus:
        return SeatBus(self, channel)


class SeatBus:
    """One seat's view of the bus: every transfer selects its mux channel first, under the bus lock."""

    def __init__(self, shared: SharedBus, channel: int | None) -> None:
        if channel is not None and not 0 <= channel <= 7:
            raise ValueError(f"TCA9548A channel {channel} does not exist (0..7)")
        if channel is not None and shared.mux_address is None:
            raise ValueError("a mux channel was given but the bus has no multiplexer")
        self.shared = shared
        self.channel = channel

    def _select(self) -> None:
        if self.channel is not None and self.shared.mux_address is not None:
            self.shared.raw.write(self.shared.mux_address, bytes([1 << self.channel]))

    def write(self, address: int, data: bytes) -> None:
        with self.shared.lock:
            self._select()
            self.shared.raw.write(address, data)

    def read(self, address: int, length: int) -> bytes:
        with self.shared.lock:
            self._select()
            return self.shared.raw.read(address, length)
