"""Adafruit's TCA9548A driver (adafruit-circuitpython-tca9548a, as published) against the fake bus's mux: a
channel's devices answer only while it is selected, the right PN532 answers on each channel, and the driver's
unlock deselects every channel (control register 0x00)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.gpio.clock import FakeClock
from controller.gpio.fakes import FakeI2cBus, Ssd1306Model
from controller.gpio.i2c import SharedBus
from controller.nfc import pn532
from controller.nfc.fakes import FakePn532

from .conftest import env_int
from .shims import BusioI2c, VirtualTime


def table_bus() -> tuple[FakeI2cBus, dict[int, FakePn532]]:
    bus = FakeI2cBus(mux_address=0x70)
    readers = {}
    for channel in (2, 5):
        readers[channel] = FakePn532(firmware=(0x32, 0x01, channel, 0x07))  # Rev tells the chips apart
        bus.attach(0x24, readers[channel], channel=channel)
        bus.attach(0x3C, Ssd1306Model(), channel=channel)
    return bus, readers


def test_each_channel_reaches_its_own_devices(vtime: VirtualTime) -> None:
    from adafruit_tca9548a import TCA9548A

    bus, _ = table_bus()
    tca = TCA9548A(BusioI2c(bus), 0x70)

    def scan(channel: int) -> list[int]:
        while not tca[channel].try_lock():
            pass
        try:
            return [a for a in tca[channel].scan() if a != 0x70]
        finally:
            tca[channel].unlock()

    assert scan(2) == [0x24, 0x3C] and scan(5) == [0x24, 0x3C]
    assert scan(4) == [], "nothing behind channel 4"
    assert bus.mux_mask == 0x00, "unlock deselects every channel"


def test_channel_selection_routes_to_the_right_reader(vtime: VirtualTime) -> None:
    from adafruit_pn532.i2c import PN532_I2C
    from adafruit_tca9548a import TCA9548A

    bus, readers = table_bus()
    tca = TCA9548A(BusioI2c(bus), 0x70)
    seat_a, seat_b = PN532_I2C(tca[2]), PN532_I2C(tca[5])
    readers[5].card = bytes.fromhex("DEADBEEF")
    assert seat_a.firmware_version[2] == 2 and seat_b.firmware_version[2] == 5
    assert seat_a.read_passive_target(timeout=0.2) is None
    assert bytes(seat_b.read_passive_target(timeout=0.2)) == bytes.fromhex("DEADBEEF")
    reached = {t.channels for t in bus.log if t.address == 0x24}
    assert reached == {1 << 2, 1 << 5}, "every transfer to a reader went out with exactly its channel selected"


def test_our_seat_bus_and_adafruits_driver_select_channels_alike(vtime: VirtualTime) -> None:
    from adafruit_tca9548a import TCA9548A

    bus, _ = table_bus()
    ours = pn532.Pn532(pn532.I2cPn532Transport(*_rw(SharedBus(bus, 0x70).channel(5))), FakeClock())
    assert ours.firmware_version()[2] == 5
    ours_selects = {t.data for t in bus.log if t.address == 0x70 and t.op == "w"}
    bus.log.clear()
    channel = TCA9548A(BusioI2c(bus), 0x70)[5]
    while not channel.try_lock():
        pass
    channel.unlock()
    adafruit_selects = {t.data for t in bus.log if t.address == 0x70 and t.op == "w"}
    assert ours_selects == {b"\x20"} and adafruit_selects == {b"\x20", b"\x00"}, "one control byte, bit n = channel n"


def _rw(seat_bus: Any) -> tuple[Any, Any]:
    return seat_bus.write, seat_bus.read


@pytest.mark.real_hardware
def test_the_real_mux_selects_the_channel_the_seat_is_on(real_i2c: Any) -> None:
    from adafruit_tca9548a import TCA9548A

    mux = env_int("TIANHEI_TEST_MUX", "0x70")
    channel = env_int("TIANHEI_TEST_CHANNEL", "0")
    tca = TCA9548A(BusioI2c(real_i2c), mux)
    while not tca[channel].try_lock():
        pass
    try:
        found = tca[channel].scan()
        assert real_i2c.read(mux, 1) == bytes([1 << channel]), "the control register reads back the channel"
    finally:
        tca[channel].unlock()
    assert 0x24 in found or 0x3C in found, f"a seat's reader or screen behind channel {channel}: found {found}"
