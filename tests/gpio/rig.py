"""A compact-8 table on mock backends: gpiozero's MockFactory (MockPWMPin, so PWM LEDs work), a fake I2C bus
with a TCA9548A, three MCP23017s, and per channel an SSD1306 and a PN532 that answer as their datasheets say."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.config.profile import Profile, load_profile
from controller.gpio.clock import FakeClock
from controller.gpio.fakes import FakeI2cBus, Mcp23017Model, Ssd1306Model
from controller.gpio.table import GpioTable, build_table
from controller.nfc.fakes import FakePn532
from controller.ports import InputEvent


@dataclass
class Rig:
    profile: Profile
    table: GpioTable
    factory: MockFactory
    bus: FakeI2cBus
    clock: FakeClock
    expanders: dict[str, Mcp23017Model]
    screens: dict[int, Ssd1306Model]
    readers: dict[int, FakePn532]
    events: list[InputEvent] = field(default_factory=list)

    def pin(self, gpio: int) -> MockPWMPin:
        return self.factory.pin(gpio)  # type: ignore[no-any-return]

    def press_expander(self, name: str, pin: int, down: bool = True) -> None:
        self.expanders[name].set_input(pin, not down)


def make_rig(profile_name: str = "compact-8", poll_period: float = 0.05) -> Rig:
    profile = load_profile(profile_name)
    factory = MockFactory(pin_class=MockPWMPin)
    bus = FakeI2cBus(mux_address=profile.mux_address)
    clock = FakeClock(100.0)
    expanders: dict[str, Mcp23017Model] = {}
    for spec in profile.expanders:
        model = Mcp23017Model()
        bus.attach(spec.address, model)
        expanders[spec.name] = model
        if spec.int_pin is not None:
            int_pin = factory.pin(spec.int_pin.index)

            def follow(active: bool, pin: MockPWMPin = int_pin) -> None:
                if active:
                    pin.drive_low()
                else:
                    pin.drive_high()

            model.on_interrupt = follow
    screens, readers = {}, {}
    for seat in profile.seats:
        screens[seat.number] = Ssd1306Model()
        readers[seat.number] = FakePn532()
        bus.attach(seat.screen.address, screens[seat.number], seat.mux_channel)
        bus.attach(seat.reader.address, readers[seat.number], seat.mux_channel)
    table = build_table(profile, pin_factory=factory, i2c=bus, clock=clock, poll_period=poll_period)
    return Rig(profile, table, factory, bus, clock, expanders, screens, readers)


