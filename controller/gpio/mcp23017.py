"""Microchip MCP23017 16-bit I/O expander on I2C (datasheet DS20001952), for buttons and LED lines past the
Pi's own pins.

Registers with IOCON.BANK = 0 (§3.5, Table 3-5): port A and B registers sit side by side, so one transfer reads
or writes both ports as a 16-bit value (A in the low byte). Buttons are inputs with the internal 100 kΩ pull-ups,
pressed = low. Interrupt-on-change (GPINTEN, INTCON = 0) asserts INTA; with IOCON.MIRROR both ports drive INTA,
and IOCON.ODR makes it open-drain so several expanders can share one Pi pin. Reading GPIO clears the interrupt.

Why not a gpiozero pin factory: a factory needs gpiozero's board/pin-info plumbing so that every device class
works on it, while the seats need only edge callbacks for buttons and on/off LED lines. This driver plus
:class:`controller.gpio.table.GpioTable` (which reads the expander on the I/O thread when the interrupt line
falls) is smaller, and keeps all I2C traffic on one thread.
"""

from __future__ import annotations

import threading

from controller.gpio.i2c import SharedBus

IODIR = 0x00
IPOL = 0x02
GPINTEN = 0x04
DEFVAL = 0x06
INTCON = 0x08
IOCON = 0x0A
GPPU = 0x0C
INTF = 0x0E
INTCAP = 0x10
GPIO = 0x12
OLAT = 0x14

IOCON_MIRROR = 0x40
IOCON_ODR = 0x04


class Mcp23017:
    """One expander. ``inputs`` is the 16-bit mask of input pins (1 = input), A in the low byte."""

    def __init__(self, bus: SharedBus, address: int, inputs: int, name: str = "") -> None:
        self.bus = bus
        self.address = address
        self.inputs = inputs & 0xFFFF
        self.name = name or f"mcp23017@{address:#04x}"
        self._olat = 0
        self._lock = threading.Lock()
        self.last = 0xFFFF

    def _write16(self, reg: int, value: int) -> None:
        self.bus.write(self.address, bytes([reg, value & 0xFF, value >> 8 & 0xFF]))

    def configure(self, initial_outputs: int = 0) -> None:
        """Inputs pulled up with interrupt-on-change; outputs driven to ``initial_outputs``."""
        self.bus.write(self.address, bytes([IOCON, IOCON_MIRROR | IOCON_ODR]))
        self._olat = initial_outputs & ~self.inputs & 0xFFFF
        self._write16(OLAT, self._olat)
        self._write16(IODIR, self.inputs)
        self._write16(IPOL, 0)
        self._write16(GPPU, self.inputs)
        self._write16(INTCON, 0)
        self._write16(DEFVAL, 0)
        self._write16(GPINTEN, self.inputs)
        self.last = self.read()

    def read(self) -> int:
        """Both ports' levels (this also clears a pending interrupt)."""
        raw = self.bus.write_read(self.address, bytes([GPIO]), 2)
        return raw[0] | raw[1] << 8

    def changes(self) -> list[tuple[int, bool]]:
        """Read the inputs and return (pin, level) for every input pin that changed since the last read."""
        now = self.read()
        changed = (now ^ self.last) & self.inputs
        self.last = now
        return [(pin, bool(now >> pin & 1)) for pin in range(16) if changed >> pin & 1]

    def set_outputs(self, mask: int, values: int) -> None:
        """Set the output pins in ``mask`` to ``values`` (read-modify-write of a cached OLAT, one transfer)."""
        with self._lock:
            self._olat = (self._olat & ~mask | values & mask) & ~self.inputs & 0xFFFF
            self._write16(OLAT, self._olat)
