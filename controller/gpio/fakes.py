"""Fake I2C devices that answer as their datasheets say, for tests and for trying the ``gpio`` adapter on a
machine without the hardware. The bus records every transfer so tests can check order and bytes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

from controller.gpio.i2c import I2cError


class FakeI2cDevice(Protocol):
    def on_write(self, data: bytes) -> None: ...

    def on_read(self, length: int) -> bytes: ...


@dataclass
class Transfer:
    """One transfer seen on the fake bus. ``channels`` is the mux's channel mask at the time."""

    op: str
    address: int
    data: bytes
    channels: int
    thread: str


@dataclass
class FakeI2cBus:
    """A bus with a TCA9548A (optional) and devices on the main bus or behind mux channels."""

    mux_address: int | None = 0x70
    main: dict[int, FakeI2cDevice] = field(default_factory=dict)
    behind: dict[int, dict[int, FakeI2cDevice]] = field(default_factory=dict)
    log: list[Transfer] = field(default_factory=list)
    mux_mask: int = 0
    on_transfer: object = None  # called with each Transfer (a benchmark charges a FakeClock for its bytes)

    def attach(self, address: int, device: FakeI2cDevice, channel: int | None = None) -> None:
        if channel is None:
            self.main[address] = device
        else:
            self.behind.setdefault(channel, {})[address] = device

    def _find(self, address: int) -> FakeI2cDevice:
        if address in self.main:
            return self.main[address]
        hits = [devs[address] for ch, devs in self.behind.items() if self.mux_mask & (1 << ch) and address in devs]
        if len(hits) != 1:
            raise I2cError(121, f"no acknowledge from {address:#04x} (mux mask {self.mux_mask:#04x})")
        return hits[0]

    def _record(self, op: str, address: int, data: bytes) -> None:
        transfer = Transfer(op, address, data, self.mux_mask, threading.current_thread().name)
        self.log.append(transfer)
        if callable(self.on_transfer):
            self.on_transfer(transfer)

    def write(self, address: int, data: bytes) -> None:
        self._record("w", address, bytes(data))
        if address == self.mux_address:
            self.mux_mask = data[-1]
            return
        self._find(address).on_write(bytes(data))

    def read(self, address: int, length: int) -> bytes:
        if address == self.mux_address:
            self._record("r", address, b"")
            return bytes([self.mux_mask])
        answer = self._find(address).on_read(length)
        self._record("r", address, answer)
        return answer


class Mcp23017Model:
    """An MCP23017 (IOCON.BANK = 0) with the pins pulled up by default; tests press by pulling a pin low.

    Interrupt-on-change (GPINTEN) against the previous value (INTCON = 0) latches INTF/INTCAP; reading GPIO or
    INTCAP clears it, as the datasheet's §3.6 says. ``int_active`` is the INTA line (active low when asserted).
    """

    def __init__(self) -> None:
        self.regs = [0] * 0x16
        self.regs[0x00] = self.regs[0x01] = 0xFF  # IODIR: inputs after reset
        self.inputs = 0xFFFF  # external levels, A in the low byte
        self.pointer = 0
        self.on_interrupt: object = None

    def _int_changed(self, was: bool) -> None:
        if was != self.int_active and callable(self.on_interrupt):
            self.on_interrupt(self.int_active)

    def _gpio(self) -> int:
        iodir = self.regs[0x00] | self.regs[0x01] << 8
        olat = self.regs[0x14] | self.regs[0x15] << 8
        return (self.inputs & iodir) | (olat & ~iodir & 0xFFFF)

    @property
    def int_active(self) -> bool:
        return bool(self.regs[0x0E] | self.regs[0x0F])

    def set_input(self, pin: int, level: bool) -> None:
        before = self._gpio()
        self.inputs = (self.inputs | (1 << pin)) if level else (self.inputs & ~(1 << pin))
        changed = (before ^ self._gpio()) & (self.regs[0x04] | self.regs[0x05] << 8)
        if changed and not self.int_active:
            self.regs[0x0E], self.regs[0x0F] = changed & 0xFF, changed >> 8
            cap = self._gpio()
            self.regs[0x10], self.regs[0x11] = cap & 0xFF, cap >> 8
            self._int_changed(False)

    def output(self, pin: int) -> bool:
        return bool(self._gpio() >> pin & 1)

    def on_write(self, data: bytes) -> None:
        self.pointer = data[0]
        for value in data[1:]:
            if self.pointer not in (0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13):
                self.regs[self.pointer] = value
            elif self.pointer in (0x12, 0x13):  # writing GPIO writes OLAT
                self.regs[self.pointer + 2] = value
            self.pointer = (self.pointer + 1) % 0x16

    def on_read(self, length: int) -> bytes:
        was = self.int_active
        out = []
        for _ in range(length):
            reg = self.pointer
            if reg in (0x12, 0x13):
                out.append(self._gpio() >> (8 * (reg - 0x12)) & 0xFF)
                self.regs[0x0E] = self.regs[0x0F] = 0
            else:
                out.append(self.regs[reg])
                if reg in (0x10, 0x11):
                    self.regs[0x0E] = self.regs[0x0F] = 0
            self.pointer = (self.pointer + 1) % 0x16
        self._int_changed(was)
        return bytes(out)


class Ssd1306Model:
    """Records the command and data bytes an SSD1306 receives over I2C (control byte 0x00 / 0x40)."""

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.data: list[int] = []

    def on_write(self, data: bytes) -> None:
        control, payload = data[0], data[1:]
        if control == 0x00:
            self.commands += payload
        elif control == 0x40:
            self.data += payload
        else:
            raise I2cError(121, f"SSD1306 got control byte {control:#04x}")

    def on_read(self, length: int) -> bytes:
        return bytes(length)
