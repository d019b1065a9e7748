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


class FakeSSD1306:
    """Display RAM of an SSD1306 in horizontal addressing mode, as written over I2C."""

    def __init__(self):
        self.ram = bytearray(1024)
        self.on = False
        self.contrast = None
        self.col = (0, 127)
        self.page = (0, 7)
        self.ptr = (0, 0)
        self.commands = []

    def i2c_write(self, buf):
        if not buf:
            return
        if buf[0] == 0x40:
            page, col = self.ptr
            for b in buf[1:]:
                self.ram[page * 128 + col] = b
                col += 1
                if col > self.col[1]:
                    col = self.col[0]
                    page += 1
                    if page > self.page[1]:
                        page = self.page[0]
            self.ptr = (page, col)
            return
        cmds = buf[1:]
        i = 0
        while i < len(cmds):
            c = cmds[i]
            self.commands.append(c)
            if c == 0x21:
                self.col = (cmds[i + 1], cmds[i + 2])
                self.ptr = (self.ptr[0], self.col[0])
                i += 3
            elif c == 0x22:
                self.page = (cmds[i + 1], cmds[i + 2])
                self.ptr = (self.page[0], self.ptr[1])
                i += 3
            elif c == 0x81:
                self.contrast = cmds[i + 1]
                i += 2
            elif c in (0xD5, 0xA8, 0xD3, 0x8D, 0x20, 0xDA, 0xD9, 0xDB):
                i += 2
            else:
                if c == 0xAF:
                    self.on = True
                elif c == 0xAE:
                    self.on = False
                i += 1

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


class FakeMFRC522:
    """Enough of an MFRC522 to answer the firmware's driver: registers, FIFO, and a card in the field that
    follows ISO/IEC 14443-3: WUPA/REQA, anticollision and SELECT per cascade level (a 4-, 7- or 10-byte UID;
    levels before the last answer the cascade tag 0x88), HLTA. A level is answered only after the ones before it
    were selected, a frame with a bad CRC is ignored, and a halted card wakes only on WUPA, as a real card does."""

    def __init__(self):
        self.regs = bytearray(64)
        self.regs[0x37] = 0x92
        self.fifo = bytearray()
        self.card = None  # UID (4, 7 or 10 bytes) of the card on the reader, or None
        self.fail_next = 0  # the next N exchanges fail as if RF was disturbed
        self.exchanges = 0
        self.halted = False
        self.selected = 0  # cascade levels selected since the last wake-up
        self.bad_crc = 0  # frames ignored for a wrong CRC_A
    def spi_transfer(self, buf):
        reg = (buf[0] >> 1) & 0x3F
        if buf[0] & 0x80:
            if reg == 0x09:
                value = self.fifo[0] if self.fifo else 0
                self.fifo = self.fifo[1:]
            elif reg == 0x0A:
                value = len(self.fifo)
            else:
                value = self.regs[reg]
            return bytes((0, value))
        value = buf[1]
        if reg == 0x09:
            self.fifo.append(value)
        elif reg == 0x0A and value & 0x80:
            self.fifo = bytearray()
        elif reg == 0x04:
            self.regs[0x04] &= ~value & 0xFF
        elif reg == 0x0D and value & 0x80 and self.regs[0x01] == 0x0C:
            self.regs[0x0D] = value
            self._exchange()
        else:
            self.regs[reg] = value
        return bytes(2)

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
        if self.fail_next:
            self.fail_next -= 1
        elif self.card is not None:
            answer = self._card_answer(sent)
        if answer is None:
            self.regs[0x04] = 0x01  # timer: nobody answered
            return
        self.fifo = bytearray(answer)
        self.regs[0x04] = 0x30

    def _card_answer(self, sent):
        levels = self._levels()
        if sent == b"\x52" or (sent == b"\x26" and not self.halted):
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
            sak = 0x04 if self.selected < len(levels) else 0x00
            return bytes((sak,)) + crc_a(bytes((sak,)))
        return None
