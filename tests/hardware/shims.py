"""The bus objects the published drivers expect, over the project's own bus ports, and nothing else.

Adafruit's CircuitPython drivers (through ``adafruit_bus_device``) take a ``busio.I2C``: ``try_lock``/``unlock``,
``writeto``, ``readfrom_into`` and ``writeto_then_readfrom`` with ``start``/``end`` slices, ``scan``. luma.oled
takes an smbus-like object with ``write_i2c_block_data``. The ``mfrc522`` package imports ``spidev`` and
``RPi.GPIO``. Each shim here is that interface over a :class:`~controller.gpio.i2c.RawI2c` (a fake bus here, the
kernel's bus through smbus2 on a Pi) or a fake SPI device, so the drivers run as published, unchanged.
:class:`VirtualTime` stands in for the ``time`` module the drivers sleep with, so their waits cost no wall time.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any

from controller.gpio.i2c import I2cError, RawI2c


class BusioI2c:
    """``busio.I2C`` over a RawI2c. Transfers are the same bytes the Adafruit drivers would put on a real bus."""

    def __init__(self, raw: RawI2c) -> None:
        self.raw = raw
        self._lock = threading.Lock()

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def writeto(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        self.raw.write(address, bytes(buffer[start:end]))

    def readfrom_into(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        end = len(buffer) if end is None else end
        data = self.raw.read(address, end - start)
        buffer[start:end] = data

    def writeto_then_readfrom(self, address: int, buffer_out: Any, buffer_in: Any, *, out_start: int = 0,
                              out_end: int | None = None, in_start: int = 0, in_end: int | None = None) -> None:
        self.writeto(address, buffer_out, start=out_start, end=out_end)
        self.readfrom_into(address, buffer_in, start=in_start, end=in_end)

    def scan(self) -> list[int]:
        """Who acknowledges an empty write (the kernel's i2cdetect does a quick write too)."""
        found = []
        for address in range(0x08, 0x78):
            try:
                self.raw.write(address, b"")
            except I2cError:
                continue
            found.append(address)
        return found

    def deinit(self) -> None:
        """Nothing to release: the RawI2c belongs to the test."""


class SmbusShim:
    """The smbus calls luma.core's ``i2c`` interface makes on a bus it does not manage."""

    def __init__(self, raw: RawI2c) -> None:
        self.raw = raw

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        self.raw.write(address, bytes([register, *data]))


class VirtualTime:
    """``monotonic``/``sleep`` (and the rest of ``time`` the drivers touch) on a clock that only sleeps move."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept = 0.0

    def monotonic(self) -> float:
        return self.now

    def monotonic_ns(self) -> int:
        return int(self.now * 1e9)

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 0.0)
        self.slept += max(seconds, 0.0)
        if self.slept > 60.0:
            raise TimeoutError("a driver waited more than a minute of virtual time: something hangs")


class SpiDevices:
    """Fake SPI devices by (bus, device), each with ``xfer(list) -> list`` (controller fake) or
    ``spi_transfer(bytes) -> bytes`` (firmware fake)."""

    def __init__(self) -> None:
        self.devices: dict[tuple[int, int], Any] = {}

    def transfer(self, bus: int, device: int, data: list[int]) -> list[int]:
        chip = self.devices.get((bus, device))
        if chip is None:
            return [0] * len(data)  # MISO floating low: nothing on that chip select
        if hasattr(chip, "xfer"):
            return list(chip.xfer(list(data)))
        return list(chip.spi_transfer(bytes(data)))


def spidev_module(devices: SpiDevices) -> types.ModuleType:
    """A ``spidev`` module whose ``SpiDev`` reaches the fake devices."""
    module = types.ModuleType("spidev")

    class SpiDev:
        def __init__(self) -> None:
            self.max_speed_hz = 0
            self.mode = 0
            self._where: tuple[int, int] | None = None

        def open(self, bus: int, device: int) -> None:
            self._where = (bus, device)

        def xfer2(self, data: list[int], *args: int) -> list[int]:
            if self._where is None:
                raise OSError(9, "SpiDev is not open")
            return devices.transfer(*self._where, list(data))

        xfer = xfer2

        def close(self) -> None:
            self._where = None

    module.SpiDev = SpiDev  # type: ignore[attr-defined]
    return module


def rpi_gpio_modules() -> tuple[types.ModuleType, types.ModuleType]:
    """``RPi`` and ``RPi.GPIO`` with the calls the mfrc522 package makes (the reset pin is only driven high)."""
    gpio = types.ModuleType("RPi.GPIO")
    state: dict[str, Any] = {"mode": None, "pins": {}}
    gpio.BOARD, gpio.BCM, gpio.OUT, gpio.IN = 10, 11, 0, 1  # type: ignore[attr-defined]
    setters: dict[str, Callable[..., Any]] = {
        "getmode": lambda: state["mode"],
        "setmode": lambda mode: state.__setitem__("mode", mode),
        "setwarnings": lambda flag: None,
        "setup": lambda pin, direction, **kw: state["pins"].__setitem__(pin, 0),
        "output": lambda pin, value: state["pins"].__setitem__(pin, value),
        "cleanup": lambda *pins: state["pins"].clear(),
    }
    for name, fn in setters.items():
        setattr(gpio, name, fn)
    gpio.state = state  # type: ignore[attr-defined]
    rpi = types.ModuleType("RPi")
    rpi.GPIO = gpio  # type: ignore[attr-defined]
    return rpi, gpio
