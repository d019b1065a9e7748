"""The firmware's fake ``machine`` module (controller/sim/seatnode/machine.py), loaded under CPython by path so the
published drivers can talk to the same fake chips the seat nodes' firmware talks to under ``micropython``."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

from controller.sim.seatnode import FAKE_MACHINE

REPO = Path(__file__).resolve().parents[2]


@cache
def fake_machine() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tianhei_fw_fake_machine", FAKE_MACHINE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def firmware_module(name: str) -> ModuleType:
    """A module of firmware/lib that needs no ``machine`` (mfrc522, ssd1306), imported under CPython, with
    firmware/lib on sys.path only while it imports (``mpcompat``, ``framing``): left there, the firmware's driver would
    shadow the PyPI package of the same name that other tests check."""
    lib = REPO / "firmware" / "lib"
    spec = importlib.util.spec_from_file_location(f"tianhei_fw_{name}", lib / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(lib))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(lib))
    return module


class FirmwareSsd1306:
    """The firmware's FakeSSD1306 as an I2C device of the controller's fake bus."""

    def __init__(self) -> None:
        self.fake = fake_machine().FakeSSD1306()

    def on_write(self, data: bytes) -> None:
        self.fake.i2c_write(data)

    def on_read(self, length: int) -> bytes:
        return bytes(length)

    @property
    def ram(self) -> bytearray:
        return self.fake.ram  # type: ignore[no-any-return]

    @property
    def display_on(self) -> bool:
        return bool(self.fake.on)

    def pixel(self, x: int, y: int) -> int:
        return int(self.fake.pixel(x, y))
