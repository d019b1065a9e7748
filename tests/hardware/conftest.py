"""Published drivers against the fakes, and (``TIANHEI_REAL_HARDWARE=1`` on the table's Raspberry Pi) against the
real chips: each check runs once per fake and once per real chip, the real ones marked ``real_hardware``.

On a Pi, say where the chips are (every variable has the table's usual value as default):
  TIANHEI_TEST_I2C_BUS=1          the I2C bus (/dev/i2c-N)
  TIANHEI_TEST_MUX=0x70           the TCA9548A's address
  TIANHEI_TEST_CHANNEL=0          the mux channel of the seat under test (its PN532 at 0x24, its SSD1306 at
                                  0x3C); 'none' for a PN532 on the main bus
  TIANHEI_TEST_MCP23017=0x20      an MCP23017 on the main bus
  TIANHEI_TEST_PN532_UART=/dev/serial0   a PN532 in HSU mode (its UART checks are skipped without it)
  TIANHEI_TEST_MFRC522_SPI=0.0    an MFRC522 on SPI bus.device (skipped without it; the mfrc522 package drives
                                  BOARD pin 22, GPIO25, high as the chip's reset line)
  TIANHEI_TEST_CARD=04A1B2C3D4E5F6  the UID of an NTAG card lying on the reader under test (card checks skipped
                                  without it)
Without ``TIANHEI_REAL_HARDWARE=1`` every real variant is skipped and the reason is printed (pytest -ra).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .shims import VirtualTime

REAL = os.environ.get("TIANHEI_REAL_HARDWARE") == "1"

# The seat board's scripts (hardware/kicad/: design, schematic writer, netlist reader, power model) for its tests.
_KICAD = str(Path(__file__).resolve().parents[2] / "hardware" / "kicad")
if _KICAD not in sys.path:
    sys.path.append(_KICAD)   # after the installed packages: our module names never hide theirs

#: The modules of published drivers that sleep or read the clock while they wait for a chip.
TIMED_MODULES = ("adafruit_pn532.adafruit_pn532", "adafruit_pn532.i2c", "adafruit_pn532.uart", "adafruit_ssd1306",
                 "adafruit_tca9548a", "adafruit_bus_device.i2c_device")


@pytest.fixture(autouse=True)
def _real_hardware_only_on_request(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("real_hardware") and not REAL:
        pytest.skip("needs the real chips on a Raspberry Pi: set TIANHEI_REAL_HARDWARE=1 (see tests/hardware)")


def env(name: str, default: str | None = None, why: str = "") -> str:
    """A real-hardware setting, or a skip that says which variable to set."""
    value = os.environ.get(name, default)
    if value is None:
        pytest.skip(f"set {name} to run this on the real chip{': ' + why if why else ''}")
    return value


def env_int(name: str, default: str) -> int:
    return int(env(name, default), 0)


@pytest.fixture
def vtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualTime]:
    """The published drivers' ``time`` replaced by a virtual clock: their sleeps and timeouts cost nothing."""
    import importlib

    clock = VirtualTime()
    for name in TIMED_MODULES:
        module = importlib.import_module(name)
        if hasattr(module, "time"):
            monkeypatch.setattr(module, "time", clock)
    yield clock


@pytest.fixture
def real_i2c() -> Iterator[object]:
    """The Pi's I2C bus through smbus2 (only on real hardware)."""
    from controller.gpio.i2c import Smbus2I2c

    number = env_int("TIANHEI_TEST_I2C_BUS", "1")
    try:
        raw = Smbus2I2c(number)
    except OSError as exc:
        pytest.fail(f"cannot open /dev/i2c-{number} ({exc.strerror}): enable I2C (dtparam=i2c_arm=on) or set "
                    f"TIANHEI_TEST_I2C_BUS", pytrace=False)
    yield raw
    raw.close()
