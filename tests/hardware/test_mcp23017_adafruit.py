"""Adafruit's MCP23017 driver (adafruit-circuitpython-mcp230xx, as published) against the fake expander: pins as
inputs with pull-ups, buttons pulling them low, interrupt-on-change against the previous value and against DEFVAL,
INTF and INTCAP, the INT line's drive; and it reads back what the project's own driver configured."""

from __future__ import annotations

from typing import Any

import pytest
from digitalio import Direction, Pull

from controller.gpio.fakes import FakeI2cBus, Mcp23017Model
from controller.gpio.i2c import SharedBus
from controller.gpio.mcp23017 import IOCON_MIRROR, IOCON_ODR, Mcp23017

from .conftest import env_int
from .shims import BusioI2c

BUTTONS = (0, 1, 2, 9)  # three on port A, one on port B


def expander() -> tuple[Mcp23017Model, Any]:
    from adafruit_mcp230xx.mcp23017 import MCP23017

    model = Mcp23017Model()
    bus = FakeI2cBus(mux_address=None)
    bus.attach(0x20, model)
    return model, MCP23017(BusioI2c(bus), address=0x20)


def buttons_with_pullups(mcp: Any) -> list[Any]:
    pins = [mcp.get_pin(n) for n in BUTTONS]
    for pin in pins:
        pin.switch_to_input(pull=Pull.UP)
    return pins


def test_inputs_with_pull_ups_read_high_until_a_button_pulls_them_low() -> None:
    model, mcp = expander()
    pins = buttons_with_pullups(mcp)
    assert all(p.direction == Direction.INPUT and p.pull == Pull.UP for p in pins)
    assert [p.value for p in pins] == [True] * 4
    model.set_input(2, False)  # seat 3 presses OK
    assert [p.value for p in pins] == [True, True, False, True]


def test_an_input_without_its_pull_up_does_not_read_high() -> None:
    _model, mcp = expander()
    pin = mcp.get_pin(5)
    pin.switch_to_input()  # no pull-up: the line floats (the model reads a floating pin as 0)
    assert pin.value is False or pin.value == 0


def test_a_press_raises_the_interrupt_and_reading_clears_it() -> None:
    model, mcp = expander()
    buttons_with_pullups(mcp)
    mcp.io_control = IOCON_MIRROR | IOCON_ODR  # both ports on INTA, open drain (one Pi pin for several chips)
    mcp.interrupt_configuration = 0x0000  # compare against the previous value
    mcp.interrupt_enable = sum(1 << n for n in BUTTONS)
    mcp.clear_ints()
    assert not model.int_active and model.int_level() is None, "open drain: let go"
    model.set_input(9, False)  # a port B button, seen on INTA through MIRROR
    assert model.int_active and model.int_level() is False, "open drain pulls INTA low"
    assert mcp.int_flag == [9]
    model.set_input(0, False)  # a change on the other port latches there too
    model.set_input(9, True)  # port B is latched: this change is not recorded (DS20001952 §3.6, interrupt logic)
    assert mcp.int_flag == [0, 9]
    cap = mcp.int_cap  # reading INTCAP of both ports clears both
    assert cap[0] == 0 and cap[9] == 0, "INTCAP holds each port as it was at its interrupt"
    assert not model.int_active
    model.set_input(0, True)  # letting go is a change too
    assert model.int_active and mcp.int_flag == [0]
    assert mcp.get_pin(0).value, "reading GPIO clears the interrupt as well"
    assert not model.int_active


def test_a_pin_compared_with_defval_interrupts_for_as_long_as_it_differs() -> None:
    model, mcp = expander()
    buttons_with_pullups(mcp)
    mcp.interrupt_configuration = 0x0002  # pin 1 against DEFVAL
    mcp.default_value = 0x0002  # idle high
    mcp.interrupt_enable = 0x0002
    assert not model.int_active
    model.set_input(1, False)
    assert mcp.int_flag == [1]
    mcp.clear_ints()
    assert mcp.int_flag == [1], "still held: the interrupt comes back at once (DS20001952 §3.6)"
    model.set_input(1, True)
    mcp.clear_ints()
    assert mcp.int_flag == [] and not model.int_active


def test_the_projects_driver_configures_what_adafruits_reads_back() -> None:
    model, mcp = expander()
    bus = FakeI2cBus(mux_address=None)
    bus.attach(0x20, model)
    inputs = sum(1 << n for n in BUTTONS)
    ours = Mcp23017(SharedBus(bus), 0x20, inputs)
    ours.configure(initial_outputs=0x8000)
    assert mcp.iodir == inputs and mcp.gppu == inputs and mcp.interrupt_enable == inputs
    assert mcp.interrupt_configuration == 0 and mcp.ipol == 0
    assert mcp.io_control == IOCON_MIRROR | IOCON_ODR
    model.set_input(1, False)
    assert ours.changes() == [(1, False)] and not model.int_active


@pytest.mark.real_hardware
def test_the_real_expander_takes_pull_ups_and_interrupt_settings(real_i2c: Any) -> None:
    from adafruit_mcp230xx.mcp23017 import MCP23017

    mcp = MCP23017(BusioI2c(real_i2c), address=env_int("TIANHEI_TEST_MCP23017", "0x20"))
    pins = buttons_with_pullups(mcp)
    assert all(p.value for p in pins), "nobody presses a button during the test: pulled-up inputs read high"
    mcp.interrupt_enable = sum(1 << n for n in BUTTONS)
    assert mcp.interrupt_enable == sum(1 << n for n in BUTTONS)
    mcp.clear_ints()
    assert mcp.int_flag == []
