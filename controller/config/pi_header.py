"""The Raspberry Pi 4/5 40-pin header, as data: which GPIOs exist, where they sit, and which are spoken for.

Profiles name Pi pins as ``GPIO<n>`` (Broadcom numbering, what gpiozero and lgpio use). The wiring tables need the
physical pin too, and validation needs to know which GPIOs a profile may not use: GPIO0/1 carry the HAT ID EEPROM,
GPIO2/3 are I2C1 (our display/reader bus), and the SPI0 or UART0 pins are taken once a reader uses them.
"""

from __future__ import annotations

import re

#: Broadcom GPIO number -> physical header pin (Pi 2/3/4/5 and Zero share this 40-pin layout).
GPIO_TO_PHYSICAL: dict[int, int] = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21, 10: 19, 11: 23, 12: 32, 13: 33,
    14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35, 20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22,
    26: 37, 27: 13,
}

#: Physical pins that are not GPIOs.
POWER_PINS: dict[int, str] = {
    1: "3V3", 17: "3V3", 2: "5V", 4: "5V",
    6: "GND", 9: "GND", 14: "GND", 20: "GND", 25: "GND", 30: "GND", 34: "GND", 39: "GND",
}

#: GPIOs nobody should wire a seat to, and why.
RESERVED: dict[int, str] = {
    0: "ID_SD, the HAT ID EEPROM",
    1: "ID_SC, the HAT ID EEPROM",
    2: "SDA1, the I2C bus for screens, readers and expanders",
    3: "SCL1, the I2C bus for screens, readers and expanders",
}

#: Pins a function claims once a profile uses it.
SPI0_PINS: dict[int, str] = {7: "SPI0 CE1", 8: "SPI0 CE0", 9: "SPI0 MISO", 10: "SPI0 MOSI", 11: "SPI0 SCLK"}
UART0_PINS: dict[int, str] = {14: "UART0 TXD", 15: "UART0 RXD"}

_GPIO_NAME = re.compile(r"^GPIO(\d+)$")


def parse_gpio(name: str) -> int | None:
    """``"GPIO17"`` -> 17; anything else -> None (the caller reports it)."""
    match = _GPIO_NAME.match(name)
    return int(match.group(1)) if match else None


def physical_pin(gpio: int) -> int:
    """Header pin number of a Broadcom GPIO that exists on the header."""
    return GPIO_TO_PHYSICAL[gpio]


def free_gpios() -> list[int]:
    """GPIOs a seat may use when neither SPI0 nor UART0 is claimed."""
    return sorted(g for g in GPIO_TO_PHYSICAL if g not in RESERVED)
