"""The same checks on gpiozero's MockFactory and, with ``TIANHEI_REAL_HARDWARE=1`` on a Raspberry Pi, on real pins.

On a Pi, connect TIANHEI_TEST_PIN (default GPIO26) to TIANHEI_TEST_INPUT (default GPIO27) with a jumper wire, as
gpiozero's own test_real_pins.py does; on the mock factory the two pins are joined by ``MockConnectedPin``. The
tests marked ``real_hardware`` need the real table's I2C bus and are skipped elsewhere.
"""

from __future__ import annotations

import os
import threading

import pytest

from controller.config.profile import parse_profile
from controller.gpio.fakes import FakeI2cBus
from controller.gpio.table import build_table
from controller.ports import Button, ButtonEvent, InputEvent

from .conftest import REAL

OUT = int(os.environ.get("TIANHEI_TEST_PIN", "26"))
IN = int(os.environ.get("TIANHEI_TEST_INPUT", "27"))


def one_seat_profile() -> dict:
    return {
        "profile": {"name": "wire-test", "adapter": "gpio"},
        "seat": [{
            "number": 1,
            "buttons": {"prev": "GPIO20", "next": "GPIO21", "ok": f"GPIO{IN}"},
            "screen": {"type": "none"},
            "reader": {"type": "none"},
        }],
    }


def test_a_press_travels_along_a_wire(pin_factory: object) -> None:
    from gpiozero import DigitalOutputDevice

    if not REAL:
        from gpiozero.pins.mock import MockConnectedPin, MockPWMPin

        class Wire(MockConnectedPin, MockPWMPin):
            """An output pin wired to an input pin (PWM-capable, like the rest of this factory's pins)."""

        pin_factory.pin(OUT, pin_class=Wire, input_pin=pin_factory.pin(IN))  # type: ignore[attr-defined]
    profile = parse_profile(one_seat_profile(), "wire-test.toml")
    table = build_table(profile, pin_factory=pin_factory, i2c=FakeI2cBus(mux_address=None))
    got: list[InputEvent] = []
    pressed = threading.Event()

    def sink(event: InputEvent) -> None:
        got.append(event)
        pressed.set()

    table.start(sink, thread=False)
    driver = DigitalOutputDevice(OUT, initial_value=True, pin_factory=pin_factory)  # idle high, like the pull-up
    try:
        driver.off()  # the button closes: the line goes low
        assert pressed.wait(timeout=2.0)
        event = got[0]
        assert isinstance(event, ButtonEvent) and (event.seat, event.button, event.pressed) == (1, Button.OK, True)
    finally:
        driver.close()
        table.stop()


@pytest.mark.real_hardware
def test_the_multiplexer_answers_on_the_i2c_bus() -> None:
    from controller.config.profile import load_profile
    from controller.gpio.i2c import SharedBus, Smbus2I2c

    profile = load_profile(os.environ.get("TIANHEI_TEST_PROFILE", "compact-8"))
    assert profile.mux_address is not None
    raw = Smbus2I2c(profile.i2c_bus)
    try:
        bus = SharedBus(raw, profile.mux_address)
        bus.channel(3).write(profile.mux_address, bytes([1 << 3]))
        assert bus.read(profile.mux_address, 1) == bytes([1 << 3])
    finally:
        raw.close()
