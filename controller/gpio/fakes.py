"""Fake I2C devices that answer as their datasheets say, for tests and for trying the ``gpio`` adapter on a
machine without the hardware. The bus records every transfer so tests can check order and bytes.

Each model implements the part of its chip the table uses, to the datasheet (docs/hardware-truth.md lists every
correction and tests/hardware runs the published Adafruit and luma drivers against them): the TCA9548A's control
register, the MCP23017's registers with IOCON.BANK = 0, the SSD1306's whole command table and display RAM."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

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
            if data:  # TCA9548A data sheet (control register): of several bytes the last is kept; none: a probe
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
    """An MCP23017 (DS20001952) with IOCON.BANK = 0; tests press a button by pulling its pin low.

    Registers as Table 3-5 (IOCON answers at 0x0A and 0x0B); the address pointer steps through them unless
    IOCON.SEQOP is set. An input reads its external level, or 1 through its pull-up (GPPU) when nothing drives it
    (a pin with neither floats: the model reads it as 0), inverted by IPOL. Interrupt-on-change per port (§3.6):
    GPINTEN enables a pin, INTCON chooses the previous value (0) or DEFVAL (1) to compare against; the first change
    latches INTF and INTCAP and later ones wait until GPIO or INTCAP of that port is read, which clears it (a pin
    still differing from DEFVAL interrupts again at once). INTA follows port A, INTB port B, both with
    IOCON.MIRROR; ``int_active`` is INTA asserted and ``on_interrupt`` is called when it changes.
    """

    BANK0_ONLY: ClassVar[str] = "IOCON.BANK = 1 (registers by port) is not modelled"

    def __init__(self) -> None:
        self.regs = [0] * 0x16
        self.regs[0x00] = self.regs[0x01] = 0xFF  # IODIR: inputs after reset
        self.drive: dict[int, bool] = {}  # pins driven from outside (a pressed button pulls low)
        self.pointer = 0
        self.on_interrupt: object = None
        self._last = self._gpio()

    # --- the pins --------------------------------------------------------------------------------------
    def _reg16(self, reg: int) -> int:
        return self.regs[reg] | self.regs[reg + 1] << 8

    def _levels(self) -> int:
        iodir, gppu, olat = self._reg16(0x00), self._reg16(0x0C), self._reg16(0x14)
        level = 0
        for pin in range(16):
            bit = 1 << pin
            if not iodir & bit:
                level |= olat & bit
            elif pin in self.drive:
                level |= bit if self.drive[pin] else 0
            else:
                level |= gppu & bit
        return level

    def _gpio(self) -> int:
        return self._levels() ^ (self._reg16(0x02) & self._reg16(0x00))  # IPOL inverts inputs only

    @property
    def inputs(self) -> int:
        """The pins' levels as the chip reads them (A in the low byte)."""
        return self._levels()

    def set_input(self, pin: int, level: bool) -> None:
        """``level`` False: the pin is pulled low from outside; True: let go (the pull-up, if on, holds it high)."""
        if level:
            self.drive.pop(pin, None)
        else:
            self.drive[pin] = False
        self._evaluate()

    def output(self, pin: int) -> bool:
        return bool(self._levels() >> pin & 1)

    # --- interrupts ------------------------------------------------------------------------------------
    @property
    def int_active(self) -> bool:
        """INTA asserted (port A's interrupt, or either port's with IOCON.MIRROR)."""
        return self.int_a_active

    @property
    def int_a_active(self) -> bool:
        return bool(self.regs[0x0E] or (self.regs[0x0A] & 0x40 and self.regs[0x0F]))

    @property
    def int_b_active(self) -> bool:
        return bool(self.regs[0x0F] or (self.regs[0x0A] & 0x40 and self.regs[0x0E]))

    def int_level(self) -> bool | None:
        """The INTA pin's level: open-drain (ODR) pulls low or lets go (None); push-pull drives INTPOL."""
        iocon = self.regs[0x0A]
        if iocon & 0x04:
            return False if self.int_a_active else None
        return bool(iocon & 0x02) == self.int_a_active

    def _evaluate(self) -> None:
        was = self.int_active
        now = self._gpio()
        enabled, intcon, defval = self._reg16(0x04), self._reg16(0x08), self._reg16(0x06)
        hit = ((now ^ self._last) & ~intcon | (now ^ defval) & intcon) & enabled
        self._last = now
        for port in (0, 1):
            bits = hit >> (8 * port) & 0xFF
            if bits and not self.regs[0x0E + port]:
                self.regs[0x0E + port] = bits
                self.regs[0x10 + port] = now >> (8 * port) & 0xFF
        self._int_changed(was)

    def _int_changed(self, was: bool) -> None:
        if was != self.int_active and callable(self.on_interrupt):
            self.on_interrupt(self.int_active)

    # --- as an I2C device ------------------------------------------------------------------------------
    def _step(self) -> None:
        if not self.regs[0x0A] & 0x20:  # IOCON.SEQOP = 0: the pointer moves on
            self.pointer = (self.pointer + 1) % 0x16

    def on_write(self, data: bytes) -> None:
        if not data:
            return  # an address probe
        self.pointer = data[0] % 0x16
        for value in data[1:]:
            reg = self.pointer
            if reg in (0x0A, 0x0B):
                if value & 0x80:
                    raise I2cError(5, f"MCP23017 model: {self.BANK0_ONLY}")
                self.regs[0x0A] = self.regs[0x0B] = value
            elif reg in (0x12, 0x13):  # writing GPIO writes OLAT
                self.regs[reg + 2] = value
            elif reg not in (0x0E, 0x0F, 0x10, 0x11):  # INTF and INTCAP are read-only
                self.regs[reg] = value
            self._step()
        self._evaluate()

    def on_read(self, length: int) -> bytes:
        was = self.int_active
        out = []
        cleared = False
        for _ in range(length):
            reg = self.pointer
            if reg in (0x12, 0x13):
                out.append(self._gpio() >> (8 * (reg - 0x12)) & 0xFF)
            else:
                out.append(self.regs[reg])
            if reg in (0x10, 0x11, 0x12, 0x13):  # reading INTCAP or GPIO clears that port's interrupt
                self.regs[0x0E + (reg & 1)] = 0
                cleared = True
            self._step()
        self._int_changed(was)
        if cleared:
            self._evaluate()  # a pin still differing from DEFVAL interrupts again
        return bytes(out)


#: SSD1306 commands (datasheet Rev 1.1 §9, Table 9-1, and the charge pump command of its application note):
#: first byte -> (bytes with arguments, name). 0xAD is the SSD1315's internal IREF selection: not in the SSD1306
#: table, sent by several published drivers, accepted and recorded in ``Ssd1306Model.unknown``.
SSD1306_COMMANDS: dict[int, tuple[int, str]] = {
    0x81: (2, "set contrast"), 0xA4: (1, "display follows RAM"), 0xA5: (1, "entire display on"),
    0xA6: (1, "normal display"), 0xA7: (1, "inverse display"), 0xAE: (1, "display off"), 0xAF: (1, "display on"),
    0x26: (7, "right horizontal scroll"), 0x27: (7, "left horizontal scroll"),
    0x29: (6, "vertical and right scroll"), 0x2A: (6, "vertical and left scroll"),
    0x2E: (1, "deactivate scroll"), 0x2F: (1, "activate scroll"), 0xA3: (3, "vertical scroll area"),
    0x20: (2, "memory addressing mode"), 0x21: (3, "column address"), 0x22: (3, "page address"),
    0xA8: (2, "multiplex ratio"), 0xD3: (2, "display offset"), 0xDA: (2, "COM pins configuration"),
    0xD5: (2, "clock divide / oscillator"), 0xD9: (2, "pre-charge period"), 0xDB: (2, "VCOMH deselect level"),
    0xE3: (1, "NOP"), 0x8D: (2, "charge pump"), 0xA0: (1, "segment remap off"), 0xA1: (1, "segment remap"),
    0xC0: (1, "COM scan normal"), 0xC8: (1, "COM scan remapped"),
    **{c: (1, "lower column start (page mode)") for c in range(0x00, 0x10)},
    **{c: (1, "higher column start (page mode)") for c in range(0x10, 0x20)},
    **{c: (1, "display start line") for c in range(0x40, 0x80)},
    **{c: (1, "page start (page mode)") for c in range(0xB0, 0xB8)},
}
HORIZONTAL, VERTICAL, PAGE = 0, 1, 2


class Ssd1306Model:
    """An SSD1306 on I2C: the control bytes of §8.1.5.2, the command decoder, and the 128x64 display RAM.

    A control byte is ``Co D/C# 0 0 0 0 0 0``: with Co = 0 the rest of the transfer is all data (D/C# = 1) or all
    commands (D/C# = 0); with Co = 1 one byte follows, then another control byte. A command's arguments may come
    in later transfers (Adafruit's driver sends one byte per transfer): the decoder keeps its state. RAM writes
    follow the addressing mode (§10.1.3: page mode after reset, horizontal, vertical) and the column and page
    windows. ``commands`` and ``data`` keep every byte received, ``ram`` the display RAM, ``unknown`` command bytes
    outside the command table.
    """

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.data: list[int] = []
        self.unknown: list[int] = []
        self.ram = bytearray(128 * 8)
        self._pending: list[int] = []
        self.display_on = False
        self.contrast = 0x7F
        self.mode = PAGE
        self.columns = (0, 127)
        self.pages = (0, 7)
        self.page = 0
        self.column = 0
        self._page_column_start = 0
        self.charge_pump = False
        self.settings: dict[int, int] = {}  # single-argument settings by command (mux, offset, clock, ...)

    # --- I2C -------------------------------------------------------------------------------------------
    def on_write(self, data: bytes) -> None:
        i = 0
        while i < len(data):
            control = data[i]
            if control & 0x3F:
                raise I2cError(121, f"SSD1306 got {control:#04x} where a control byte (Co D/C# 000000) belongs")
            payload = data[i + 1 :] if not control & 0x80 else data[i + 1 : i + 2]
            for byte in payload:
                self._data(byte) if control & 0x40 else self._command_byte(byte)
            i += 1 + len(payload)

    def on_read(self, length: int) -> bytes:
        """The status byte (§8.1.5: D6 = 1 when the display is off), for each byte read."""
        return bytes([0x00 if self.display_on else 0x40]) * length

    # --- commands --------------------------------------------------------------------------------------
    def _command_byte(self, byte: int) -> None:
        self.commands.append(byte)
        self._pending.append(byte)
        first = self._pending[0]
        size, _ = SSD1306_COMMANDS.get(first, (2 if first == 0xAD else 1, "unknown"))
        if len(self._pending) < size:
            return
        command, self._pending = self._pending, []
        self._execute(command)

    def _execute(self, cmd: list[int]) -> None:
        op = cmd[0]
        if op not in SSD1306_COMMANDS:
            self.unknown.append(op)
        elif op in (0xAE, 0xAF):
            self.display_on = op == 0xAF
        elif op == 0x81:
            self.contrast = cmd[1]
        elif op == 0x8D:
            self.charge_pump = bool(cmd[1] & 0x04)
        elif op == 0x20:
            self.mode = cmd[1] & 0x03  # A[1:0]; 11b is invalid and is kept as such (nothing is written)
        elif op == 0x21:
            self.columns = (cmd[1] & 0x7F, cmd[2] & 0x7F)
            self.column = self.columns[0]
        elif op == 0x22:
            self.pages = (cmd[1] & 0x07, cmd[2] & 0x07)
            self.page = self.pages[0]
        elif op < 0x10:
            if self.mode == PAGE:
                self._page_column_start = self._page_column_start & 0xF0 | op
                self.column = self._page_column_start
        elif op < 0x20:
            if self.mode == PAGE:
                self._page_column_start = self._page_column_start & 0x0F | (op & 0x07) << 4
                self.column = self._page_column_start
        elif 0xB0 <= op <= 0xB7:
            if self.mode == PAGE:
                self.page = op & 0x07
        elif len(cmd) == 2:
            self.settings[op] = cmd[1]

    # --- display RAM -----------------------------------------------------------------------------------
    def _data(self, byte: int) -> None:
        self.data.append(byte)
        if self.mode == 3:
            return
        self.ram[self.page * 128 + self.column] = byte
        if self.mode == PAGE:
            self.column = self.column + 1 if self.column < 127 else self._page_column_start
        elif self.mode == HORIZONTAL:
            if self.column < self.columns[1]:
                self.column += 1
            else:
                self.column = self.columns[0]
                self.page = self.page + 1 if self.page < self.pages[1] else self.pages[0]
        else:
            if self.page < self.pages[1]:
                self.page += 1
            else:
                self.page = self.pages[0]
                self.column = self.column + 1 if self.column < self.columns[1] else self.columns[0]

    def pixel(self, x: int, y: int) -> int:
        return self.ram[(y // 8) * 128 + x] >> (y % 8) & 1
