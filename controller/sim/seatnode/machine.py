"""A fake ``machine`` module for running the real firmware under the unix ``micropython`` binary (and CPython).

Installed as sys.modules["machine"] before the firmware is imported. The fakes are real enough to exercise the
drivers: I2C and SPI transfers reach emulated devices (an SSD1306 keeping its display RAM, an MFRC522 that
answers WUPA and anticollision for the card placed on it), input pins are levels a test sets, UART bytes go to
and from buffers. ``world`` holds everything a test or the simulator pokes at.
"""

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5


class FakeReset(Exception):
    """machine.reset() or a watchdog bite: the harness restarts the node."""


class World:
    def __init__(self):
        self.pins = {}
        self.pwms = {}
        self.i2c_devices = {}
        self.spi_devices = {}
        self.uarts = {}
        self.wdt = None
        self.reset_cause = PWRON_RESET
        self.now_ms = 0  # the harness's clock: the time of the step in progress


world = World()


def reset_cause():
    return world.reset_cause


def reset():
    raise FakeReset("reset")


def unique_id():
    return b"\xe6\x61\x00\x00\x00\x00\x00\x01"


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        if id not in world.pins:
            world.pins[id] = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            world.pins[id] = 1 if value else 0
        self.history = []

    def value(self, v=None):
        if v is None:
            return world.pins[self.id]
        world.pins[self.id] = 1 if v else 0
        return None

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class PWM:
    def __init__(self, pin, freq=1000, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        world.pwms[pin.id] = self

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        return None

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        return None


class I2C:
    def __init__(self, id, scl=None, sda=None, freq=400000):
        self.id = id

    def scan(self):
        return sorted(world.i2c_devices)

    def writeto(self, addr, buf, stop=True):
        dev = world.i2c_devices.get(addr)
        if dev is None:
            raise OSError(19)  # ENODEV: nothing acked the address, as on a real bus
        dev.i2c_write(bytes(buf))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        return self.writeto(addr, b"".join(bytes(part) for part in vector), stop)


class SPI:
    def __init__(self, id, baudrate=1000000, sck=None, mosi=None, miso=None, polarity=0, phase=0):
        self.id = id

    def _dev(self):
        return world.spi_devices.get(self.id)

    def write(self, buf):
        dev = self._dev()
        if dev is not None:
            dev.spi_transfer(bytes(buf))

    def write_readinto(self, wbuf, rbuf):
        dev = self._dev()
        out = dev.spi_transfer(bytes(wbuf)) if dev is not None else bytes(len(wbuf))
        for i in range(len(rbuf)):
            rbuf[i] = out[i]


class UART:
    def __init__(self, id, baudrate=115200, tx=None, rx=None, **kw):
        self.id = id
        self.baudrate = baudrate
        self.rx = bytearray()
        self.tx = bytearray()
        self.de_during_write = []
        self.de_pin = None
        world.uarts[id] = self

    def any(self):
        return len(self.rx)

    def read(self, n=-1):
        if not self.rx:
            return None
        if n is None or n < 0 or n >= len(self.rx):
            out = bytes(self.rx)
            self.rx = bytearray()
        else:
            out = bytes(self.rx[:n])
            self.rx = self.rx[n:]
        return out

    def readinto(self, buf, n=None):
        """As machine.UART.readinto: at most ``n`` (else len(buf)) of the bytes that have arrived, into buf."""
        if not self.rx:
            return None
        n = min(len(buf) if n is None else n, len(buf), len(self.rx))
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def write(self, buf):
        self.tx.extend(buf)
        de = world.pins.get(self.de_pin) if self.de_pin is not None else None
        self.de_during_write.append(de)
        return len(buf)

    def flush(self):
        pass

    def txdone(self):
        return True

    def take_tx(self):
        out = bytes(self.tx)
        self.tx = bytearray()
        return out


class WDT:
    """The RP2040 watchdog: once started it cannot be stopped; unfed for ``timeout`` ms it resets the board
    (the harness asks :meth:`bitten` with its clock, since nothing here runs on its own)."""

    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        self.fed_at = world.now_ms
        world.wdt = self

    def feed(self):
        self.feeds += 1
        self.fed_at = world.now_ms

    def bitten(self, now_ms):
        return now_ms - self.fed_at >= self.timeout


def _ssd1306_sizes():
    """SSD1306 command table (datasheet Rev 1.1 §9, Table 9-1, and the charge pump command): the number of bytes
    of each command with its arguments. Kept apart from the controller's model (this file runs under MicroPython)
    and checked against the same datasheet tests (tests/hardware/test_ssd1306_datasheet.py)."""
    sizes = {}
    for c in range(256):
        sizes[c] = 1
    for c in (0x81, 0x20, 0xA8, 0xD3, 0xDA, 0xD5, 0xD9, 0xDB, 0x8D, 0xAD):  # 0xAD: the SSD1315's IREF
        sizes[c] = 2
    for c in (0x21, 0x22, 0xA3):
        sizes[c] = 3
    sizes[0x26] = sizes[0x27] = 7
    sizes[0x29] = sizes[0x2A] = 6
    return sizes


SSD1306_SIZES = _ssd1306_sizes()


class FakeSSD1306:
    """Display RAM of an SSD1306 as written over I2C: control bytes (Co, D/C#, §8.1.5.2), a command decoder that
    keeps its state across transfers, and the page (after reset), horizontal and vertical addressing modes."""

    def __init__(self):
        self.ram = bytearray(1024)
        self.on = False
        self.contrast = 0x7F
        self.mode = 2  # page addressing after reset (§10.1.3)
        self.col = (0, 127)
        self.page = (0, 7)
        self.ptr = (0, 0)
        self.page_col = 0
        self.commands = []
        self.pending = []

    def i2c_write(self, buf):
        i = 0
        while i < len(buf):
            control = buf[i]
            if control & 0x3F:
                raise OSError(5)  # not a control byte: the chip would misread everything after it
            payload = buf[i + 1 :] if not control & 0x80 else buf[i + 1 : i + 2]
            for b in payload:
                if control & 0x40:
                    self._data(b)
                else:
                    self._command(b)
            i += 1 + len(payload)

    def _command(self, c):
        self.commands.append(c)
        if len(self.commands) > 1024:  # the latest only: a whole evening's log filled the port's heap (bus-sim)
            del self.commands[:512]
        self.pending.append(c)
        if len(self.pending) < SSD1306_SIZES[self.pending[0]]:
            return
        cmd = self.pending
        self.pending = []
        op = cmd[0]
        page, col = self.ptr
        if op == 0x21:
            self.col = (cmd[1] & 0x7F, cmd[2] & 0x7F)
            self.ptr = (page, self.col[0])
        elif op == 0x22:
            self.page = (cmd[1] & 7, cmd[2] & 7)
            self.ptr = (self.page[0], col)
        elif op == 0x20:
            self.mode = cmd[1] & 3
        elif op == 0x81:
            self.contrast = cmd[1]
        elif op == 0xAF:
            self.on = True
        elif op == 0xAE:
            self.on = False
        elif op < 0x20 and self.mode == 2:
            self.page_col = (self.page_col & 0xF0 | op) if op < 0x10 else (self.page_col & 0x0F | (op & 7) << 4)
            self.ptr = (page, self.page_col)
        elif 0xB0 <= op <= 0xB7 and self.mode == 2:
            self.ptr = (op & 7, col)

    def _data(self, b):
        if self.mode == 3:
            return
        page, col = self.ptr
        self.ram[page * 128 + col] = b
        if self.mode == 2:
            col = col + 1 if col < 127 else self.page_col
        elif self.mode == 0:
            col += 1
            if col > self.col[1]:
                col = self.col[0]
                page = page + 1 if page < self.page[1] else self.page[0]
        else:
            page += 1
            if page > self.page[1]:
                page = self.page[0]
                col = col + 1 if col < self.col[1] else self.col[0]
        self.ptr = (page, col)

    def pixel(self, x, y):
        return (self.ram[(y // 8) * 128 + x] >> (y % 8)) & 1


def crc_a(data):
    """ISO/IEC 14443-3 CRC_A, as the card computes it (kept apart from the driver's, so each checks the other)."""
    crc = 0x6363
    for b in data:
        b = (b ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return bytes((crc & 0xFF, (crc >> 8) & 0xFF))


CASCADE = (0x93, 0x95, 0x97)


# MFRC522 register reset values (data sheet rev. 3.9, §9.3) the drivers depend on: CommandReg, ComIEnReg,
# ComIrqReg, ControlReg, ModeReg (CRC preset FFFFh), TxControlReg (antenna off), CRCResultReg.
MFRC522_RESET = {0x01: 0x20, 0x02: 0x80, 0x04: 0x14, 0x0C: 0x10, 0x11: 0x3F, 0x14: 0x80, 0x21: 0xFF, 0x22: 0xFF}
CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)  # ModeReg CRCPreset[1:0]


def crc_preset(data, preset):
    """The MFRC522's CRC coprocessor: CRC_A's polynomial from the preset that ModeReg selects."""
    crc = preset
    for b in data:
        b = (b ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return bytes((crc & 0xFF, (crc >> 8) & 0xFF))


class FakeMFRC522:
    """Enough of an MFRC522 to answer the firmware's driver and published ones: the register file with its reset
    values, SPI reads of several addresses in one transfer (§8.1.2.1), the FIFO, the Set1/Set2 bits of the IRQ
    registers, CalcCRC with ModeReg's preset, Transceive (TxIRq, then RxIRq or TimerIRq), and a card in the field
    that follows ISO/IEC 14443-3: WUPA/REQA, anticollision and SELECT per cascade level (a 4-, 7- or 10-byte UID;
    levels before the last answer the cascade tag 0x88), HLTA. A level is answered only after the ones before it
    were selected, a frame with a bad CRC is ignored, and a halted card wakes only on WUPA, as a real card does."""

    def __init__(self):
        self.regs = bytearray(64)
        self.fifo = bytearray()
        self._reset()
        self.card = None  # UID (4, 7 or 10 bytes) of the card on the reader, or None
        self.fail_next = 0  # the next N exchanges fail as if RF was disturbed
        self.exchanges = 0
        self.halted = False
        self.selected = 0  # cascade levels selected since the last wake-up
        self.bad_crc = 0  # frames ignored for a wrong CRC_A

    def _reset(self):
        self.regs = bytearray(64)
        for reg in MFRC522_RESET:
            self.regs[reg] = MFRC522_RESET[reg]
        self.regs[0x37] = 0x92
        self.fifo = bytearray()

    def spi_transfer(self, buf):
        if buf[0] & 0x80:
            out = bytearray(len(buf))
            for i in range(len(buf) - 1):
                out[i + 1] = self._read((buf[i] >> 1) & 0x3F)
            return bytes(out)
        reg = (buf[0] >> 1) & 0x3F
        for value in buf[1:]:
            self._write(reg, value)
        return bytes(len(buf))

    def _read(self, reg):
        if reg == 0x09:
            value = self.fifo[0] if self.fifo else 0
            self.fifo = self.fifo[1:]
            return value
        if reg == 0x0A:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg, value):
        if reg == 0x09:
            self.fifo.append(value)
        elif reg == 0x0A:
            if value & 0x80:
                self.fifo = bytearray()
        elif reg in (0x04, 0x05):  # bit 7 set: set the marked bits; clear: clear them
            if value & 0x80:
                self.regs[reg] |= value & 0x7F
            else:
                self.regs[reg] &= ~value & 0xFF
        elif reg == 0x01:
            command = value & 0x0F
            self.regs[0x01] = value & 0x30 | command
            if command == 0x0F:
                self._reset()
            elif command == 0x03:
                crc = crc_preset(self.fifo, CRC_PRESETS[self.regs[0x11] & 3])
                self.fifo = bytearray()
                self.regs[0x22] = crc[0]
                self.regs[0x21] = crc[1]
                self.regs[0x05] |= 0x04  # CRCIRq
        elif reg == 0x0D:
            self.regs[0x0D] = value
            if value & 0x80 and self.regs[0x01] & 0x0F == 0x0C:
                self._exchange()
        elif reg not in (0x06, 0x07, 0x08, 0x21, 0x22, 0x37):  # read-only registers
            self.regs[reg] = value

    def _levels(self):
        u = self.card
        if len(u) == 4:
            return [u]
        if len(u) == 7:
            return [b"\x88" + u[:3], u[3:]]
        return [b"\x88" + u[:3], b"\x88" + u[3:6], u[6:]]

    def _exchange(self):
        self.exchanges += 1
        sent = bytes(self.fifo)
        self.fifo = bytearray()
        answer = None
        self.regs[0x0C] &= 0xF8  # RxLastBits: whole bytes
        if self.fail_next:
            self.fail_next -= 1
        elif self.card is not None and self.regs[0x14] & 0x03:  # a card, and the antenna is on
            answer = self._card_answer(sent, self.regs[0x0D] & 0x07)
        if answer is None:
            self.regs[0x04] |= 0x41  # TxIRq, then the timer: nobody answered
            return
        self.fifo = bytearray(answer)
        self.regs[0x04] |= 0x60  # TxIRq, RxIRq

    def _card_answer(self, sent, last_bits=7):
        levels = self._levels()
        if last_bits == 7 and (sent == b"\x52" or (sent == b"\x26" and not self.halted)):
            self.halted = False
            self.selected = 0
            return bytes(((0x04, 0x44, 0x84)[len(levels) - 1], 0x00))  # ATQA: bits 7-6 give the UID size
        if self.halted or not sent:
            return None
        if len(sent) > 2 and crc_a(sent[:-2]) != sent[-2:]:
            self.bad_crc += 1
            return None
        if sent[0] == 0x50 and len(sent) == 4:
            self.halted = True
            return None
        if sent[0] not in CASCADE:
            return None
        level = CASCADE.index(sent[0])
        if level != self.selected or level >= len(levels):
            return None  # not this level's turn: a real card stays silent
        part = levels[level]
        if sent[1:] == b"\x20":
            return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
        if len(sent) == 9 and sent[1] == 0x70 and sent[2:6] == part:
            self.selected += 1
            sak = 0x04 if self.selected < len(levels) else (0x08 if len(self.card) == 4 else 0x00)  # 1K / NTAG
            return bytes((sak,)) + crc_a(bytes((sak,)))
        return None
