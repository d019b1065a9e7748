"""Seat LEDs: an RGB LED on three Pi pins (gpiozero ``RGBLED``, PWM dimming), or on three expander lines
(on/off per channel: 8 colours, a channel is on from 128 up)."""

from __future__ import annotations

from typing import Protocol

from controller.gpio.mcp23017 import Mcp23017
from controller.ports import RGB


class SeatLed(Protocol):
    def set(self, rgb: RGB) -> None: ...

    def close(self) -> None: ...


def _check(rgb: RGB) -> RGB:
    if len(rgb) != 3 or any(not 0 <= c <= 255 for c in rgb):
        raise ValueError(f"an LED colour is three channels 0..255, not {rgb!r}")
    return rgb


class PiPinLed:
    """gpiozero RGBLED on the Pi's pins (``pin_factory`` is lgpio on a Pi, MockFactory in tests)."""

    def __init__(self, pins: tuple[int, int, int], *, pwm: bool, active_high: bool, pin_factory: object) -> None:
        from gpiozero import RGBLED

        red, green, blue = pins
        self.pwm = pwm
        self.device = RGBLED(red, green, blue, pwm=pwm, active_high=active_high, pin_factory=pin_factory)

    def set(self, rgb: RGB) -> None:
        r, g, b = _check(rgb)
        if self.pwm:
            self.device.value = (r / 255, g / 255, b / 255)
        else:
            self.device.value = (int(r >= 128), int(g >= 128), int(b >= 128))

    def close(self) -> None:
        self.device.close()


class ExpanderLed:
    """An RGB LED on MCP23017 output lines; each entry of ``lines`` is (expander, pin 0..15)."""

    def __init__(self, lines: tuple[tuple[Mcp23017, int], ...], *, active_high: bool = True) -> None:
        self.lines = lines
        self.active_high = active_high

    def set(self, rgb: RGB) -> None:
        for (chip, pin), channel in zip(self.lines, _check(rgb), strict=True):
            on = (channel >= 128) == self.active_high
            chip.set_outputs(1 << pin, (1 << pin) if on else 0)

    def close(self) -> None:
        self.set((0, 0, 0))
