"""Seats of a compact-8 table: buttons on Pi pins and on an MCP23017, LEDs, debouncing, threads."""

from __future__ import annotations

import threading

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.config.profile import LedSpec, PinRef
from controller.gpio.led import PiPinLed
from controller.ports import Button, ButtonEvent, Seat, Table

from .rig import Rig


def buttons(rig: Rig) -> list[tuple[int, Button, bool]]:
    return [(e.seat, e.button, e.pressed) for e in rig.events if isinstance(e, ButtonEvent)]


def test_the_table_implements_the_ports(rig: Rig) -> None:
    assert isinstance(rig.table, Table)
    assert sorted(rig.table.seats) == list(range(1, 9))
    assert all(isinstance(seat, Seat) for seat in rig.table.seats.values())


def test_seat_3_presses_ok_on_its_pi_pin(rig: Rig) -> None:
    ok = rig.profile.seat(3).buttons[Button.OK]
    rig.pin(ok.index).drive_low()
    rig.clock.advance(0.2)
    rig.pin(ok.index).drive_high()
    assert buttons(rig) == [(3, Button.OK, True), (3, Button.OK, False)]


def test_contact_bounce_is_one_press(rig: Rig) -> None:
    pin = rig.pin(rig.profile.seat(1).buttons[Button.OK].index)
    for _ in range(5):  # 5 bounces within 5 ms
        pin.drive_low()
        rig.clock.advance(0.0005)
        pin.drive_high()
        rig.clock.advance(0.0005)
    pin.drive_low()
    rig.clock.advance(0.3)
    pin.drive_high()
    assert buttons(rig) == [(1, Button.OK, True), (1, Button.OK, False)]


def test_a_press_shorter_than_the_bounce_window_is_not_lost(rig: Rig) -> None:
    pin = rig.pin(rig.profile.seat(2).buttons[Button.OK].index)
    pin.drive_low()
    rig.clock.advance(0.005)
    pin.drive_high()  # dropped: inside the window
    rig.clock.advance(0.5)
    pin.drive_low()  # the next press replays the missed release first
    assert buttons(rig) == [(2, Button.OK, True), (2, Button.OK, False), (2, Button.OK, True)]


def test_seat_5_presses_next_on_the_expander_through_its_interrupt_line(rig: Rig) -> None:
    rig.table.step()  # settle
    nxt = rig.profile.seat(5).buttons[Button.NEXT]
    assert nxt.chip == "mcp0"
    rig.press_expander("mcp0", nxt.index)
    int_pin = rig.pin(4)
    assert int_pin.state == 0, "INTA pulls the Pi's GPIO4 low"
    assert buttons(rig) == [], "gpiozero's thread only wakes the I/O thread"
    rig.table.step()
    assert buttons(rig) == [(5, Button.NEXT, True)]
    assert int_pin.state == 1, "reading GPIO cleared the interrupt"
    rig.clock.advance(0.2)
    rig.press_expander("mcp0", nxt.index, down=False)
    rig.table.step()
    assert buttons(rig) == [(5, Button.NEXT, True), (5, Button.NEXT, False)]


def test_expander_traffic_happens_on_the_io_thread_not_gpiozeros(rig: Rig) -> None:
    rig.bus.log.clear()
    nxt = rig.profile.seat(1).buttons[Button.PREV]
    rig.press_expander("mcp0", nxt.index)
    assert not any(t.address == 0x20 for t in rig.bus.log)


def test_the_expander_is_configured_as_the_datasheet_says(rig: Rig) -> None:
    mcp0 = rig.expanders["mcp0"]
    assert mcp0.regs[0x0A] == 0x44, "IOCON: MIRROR and open-drain INT"
    assert mcp0.regs[0x00] == 0xFF and mcp0.regs[0x01] == 0xFF, "PREV and NEXT lines are inputs"
    assert mcp0.regs[0x0C] == 0xFF and mcp0.regs[0x0D] == 0xFF, "with pull-ups"
    assert mcp0.regs[0x04] == 0xFF and mcp0.regs[0x05] == 0xFF, "and interrupt-on-change"
    mcp1 = rig.expanders["mcp1"]
    assert mcp1.regs[0x00] == 0x00 and mcp1.regs[0x01] == 0x00, "LED lines are outputs"


def test_seat_7_led_turns_yellow_on_the_expander_lines(rig: Rig) -> None:
    rig.table.seats[7].set_led((255, 200, 0))
    red, green, blue = rig.profile.seat(7).led.pins  # type: ignore[union-attr]
    assert rig.expanders["mcp1"].output(red.index)
    assert rig.expanders["mcp1"].output(green.index)
    assert not rig.expanders["mcp2"].output(blue.index)
    rig.table.seats[7].set_led((0, 0, 0))
    assert not rig.expanders["mcp1"].output(red.index)


def test_a_pwm_led_on_pi_pins_dims_each_channel() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    spec = LedSpec((PinRef(None, 12), PinRef(None, 13), PinRef(None, 19)), pwm=True)
    led = PiPinLed((12, 13, 19), pwm=spec.pwm, active_high=True, pin_factory=factory)
    led.set((255, 51, 0))
    assert factory.pin(12).state == 1.0
    assert abs(factory.pin(13).state - 0.2) < 1e-9
    assert factory.pin(19).state == 0
    led.close()
    factory.close()


def test_presses_from_many_threads_all_reach_the_sink(rig: Rig) -> None:
    seats = list(range(1, 9))

    def press(seat: int) -> None:
        rig.table.button_edge(seat, Button.OK, True)

    threads = [threading.Thread(target=press, args=(s,)) for s in seats]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(s for s, _, _ in buttons(rig)) == seats
