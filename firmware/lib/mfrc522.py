"""MFRC522 card reader over SPI: is a card there, and what is its UID?

Every exchange is bounded: the chip's own timer ends a transceive after ~15 ms with no card (data sheet §8.5:
(2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz with TPrescaler 0xD3E and TReload 30 is 15.5 ms). The node's loop
steps a scan (``begin``, then ``poll`` once a pass), so the air time passes while the loop runs; ``scan`` waits for
one, reading the interrupt register a bounded number of times, so it can never block the loop (and its watchdog).

A scan follows ISO/IEC 14443-3: WUPA (wakes halted cards too), then per cascade level anticollision and SELECT
until the card's SAK says its UID is complete, then HLTA so the next scan's WUPA finds it again. Single (4-byte,
MIFARE Classic), double (7-byte, NTAG21x: the deck cards) and triple (10-byte) size UIDs are read; at levels
before the last the card answers the cascade tag 0x88 and three UID bytes. SELECT frames carry a CRC_A computed
here (a few dozen operations: cheaper than a round trip to the chip's coprocessor), and the SAK's CRC is checked.
"""

import sys
from array import array

from mpcompat import micropython

if sys.platform == "rp2":
    import rp2spi
else:
    rp2spi = None

COMMAND = 0x01
COM_IRQ = 0x04
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
BIT_FRAMING = 0x0D
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

IDLE = 0x00
TRANSCEIVE = 0x0C
SOFT_RESET = 0x0F

WUPA = 0x52  # wakes idle and halted cards, so a card left on the reader keeps answering
HLTA = 0x50
CASCADE = (0x93, 0x95, 0x97)  # SEL codes of cascade levels 1, 2, 3
CASCADE_TAG = 0x88  # first byte at a level whose UID goes on at the next one
SAK_MORE = 0x04  # SAK bit: UID not complete

# Where a stepped scan is (MFRC522.poll): the WUPA's answer, a cascade level's anticollision or SELECT, the HLTA.
_WAKE = 0
_ANTICOLL = 1
_SELECT = 2
_HALT = 3


def crc_a(data):
    """ISO/IEC 14443-3 CRC_A (preset 0x6363), low byte first."""
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return bytes((crc & 0xFF, crc >> 8))


_WUPA_FRAME = bytes((WUPA,))  # every scan's first frame, made once
_HLTA_FRAME = bytes((HLTA, 0)) + crc_a((HLTA, 0))


def _pairs(data, last_bits):
    """A transceive's register writes as (address byte, value) pairs: what ``_start`` writes one by one."""
    out = bytearray()
    for reg, value in ((COMMAND, IDLE), (COM_IRQ, 0x7F), (FIFO_LEVEL, 0x80)):
        out.append((reg << 1) & 0x7E)
        out.append(value)
    for b in data:
        out.append((FIFO_DATA << 1) & 0x7E)
        out.append(b)
    for reg, value in ((BIT_FRAMING, last_bits), (COMMAND, TRANSCEIVE), (BIT_FRAMING, 0x80 | last_bits)):
        out.append((reg << 1) & 0x7E)
        out.append(value)
    return bytes(out)


class MFRC522:
    def __init__(self, spi, cs, rst=None, irq_reads=40, spi_id=None, cs_gpio=None):
        self.spi = spi
        self.cs = cs
        # On the RP2040 with the SPI block's number and the chip select's pin known, each access goes straight
        # through the block's registers (rp2spi.py: a few µs, not some 90); elsewhere through machine.SPI.
        self.fast = None
        if rp2spi is not None and spi_id in (0, 1) and isinstance(cs_gpio, int):
            fast = array("I", bytes(4 * rp2spi.WORDS))
            fast[rp2spi.BASE] = rp2spi.SPI_BASES[spi_id]
            fast[rp2spi.SET] = rp2spi.GPIO_OUT_SET
            fast[rp2spi.CLR] = rp2spi.GPIO_OUT_CLR
            fast[rp2spi.CS] = 1 << cs_gpio
            self.fast = fast
            self.access = rp2spi.access
            self.writes = rp2spi.writes
            self._wupa = _pairs(_WUPA_FRAME, 7)
        self.rst = rst
        self.irq_reads = irq_reads
        self.errors = 0
        # A register access's two bytes out and two in, made once: a scan with no card is some fifty accesses
        # every nfc_period_ms, and a new bytes object each would feed the garbage collector, whose pauses hold up
        # the node's answers on the bus.
        self._out = bytearray(2)
        self._buf = bytearray(2)
        self.phase = _WAKE  # (begin: a stepped scan's state)
        self.looks = 0  # looks that found the exchange under way still going (unanswered)
        self.tries_left = 0
        self.level = 0
        self.found = b""
        self.part = b""
        cs.value(1)

    # Native: a bytecode function whose frame does not fit the C stack (poll's, scan's) takes a heap block
    # at every call, twenty times a second with no card.
    @micropython.native
    def _write(self, reg, value):
        fast = self.fast
        if fast is not None:
            self.access(fast, (reg << 1) & 0x7E, value)
            return
        out = self._out
        out[0] = (reg << 1) & 0x7E
        out[1] = value
        self.cs.value(0)
        self.spi.write(out)
        self.cs.value(1)

    @micropython.native
    def _read(self, reg):
        fast = self.fast
        if fast is not None:
            got = self.access(fast, ((reg << 1) & 0x7E) | 0x80, 0)
            return 0 if got < 0 else got  # (a block that never answered reads as 0: no IRQ, no card)
        out = self._out
        out[0] = ((reg << 1) & 0x7E) | 0x80
        out[1] = 0
        self.cs.value(0)
        self.spi.write_readinto(out, self._buf)
        self.cs.value(1)
        return self._buf[1]

    def init(self):
        if self.rst is not None:
            self.rst.value(1)
        self._write(COMMAND, SOFT_RESET)
        self._write(T_MODE, 0x8D)
        self._write(T_PRESCALER, 0x3E)
        self._write(T_RELOAD_H, 0)
        self._write(T_RELOAD_L, 30)  # 31 ticks of 0.5 ms: 15.5 ms
        self._write(TX_ASK, 0x40)
        self._write(MODE, 0x3D)
        self._write(TX_CONTROL, self._read(TX_CONTROL) | 0x03)  # antenna on
        return self._read(VERSION)

    @micropython.native
    def _start(self, data, last_bits=0):
        """Put ``data`` on the air and return at once: the card's answer, or the chip's timer (15.5 ms), comes
        while the node's loop runs on (``_done`` says when)."""
        self.looks = 0
        fast = self.fast
        if fast is not None:  # every write in one call (rp2spi.writes); a WUPA's, made once
            pairs = self._wupa if data is _WUPA_FRAME else _pairs(data, last_bits)
            self.writes(fast, pairs, len(pairs))
            return
        self._write(COMMAND, IDLE)
        self._write(COM_IRQ, 0x7F)
        self._write(FIFO_LEVEL, 0x80)
        for b in data:
            self._write(FIFO_DATA, b)
        self._write(BIT_FRAMING, last_bits)
        self._write(COMMAND, TRANSCEIVE)
        self._write(BIT_FRAMING, 0x80 | last_bits)

    @micropython.native
    def _done(self):
        """0 while the exchange goes on; 1 when it is over with an answer; -1 when it is over without one (the
        timer ran out: nobody answered)."""
        irq = self._read(COM_IRQ)
        if irq & 0x30:  # RxIRq or IdleIRq: the exchange is over
            return 1
        if irq & 0x01:  # TimerIRq: nobody answered
            return -1
        return 0

    @micropython.native
    def _answer(self):
        """The bytes a card answered (after ``_done`` said 1), or None for an answer the chip found bad."""
        if self._read(ERROR) & 0x1B:
            self.errors += 1
            return None
        n = self._read(FIFO_LEVEL)
        got = bytearray(n)  # a loop, not a generator: one that named self made self a cell at every call
        for i in range(n):
            got[i] = self._read(FIFO_DATA)
        return bytes(got)

    # --- a scan the node's loop steps through ----------------------------------------------------------------
    # Waited for, a scan held the loop for as long as the chip took: on the emulated chip 1.1 ms every 100 ms
    # with no card, and on a real one up to ``irq_reads`` looks a try (some 2.8 ms), while no card's WUPA runs
    # out on the chip's 15.5 ms timer. A press made meanwhile waited for it, and missed its slot
    # (firmware/PROTOCOL.md, "A press's way to its slot"). So the node starts each exchange and looks once a
    # pass (``poll``); the air time passes while the loop runs. The same ISO/IEC 14443-3 steps as ``scan``.
    @micropython.native
    def begin(self, tries=2):
        """Start a scan: WUPA on the air. ``poll`` then says when it is over."""
        self.tries_left = tries - 1
        self.phase = _WAKE
        self.level = 0
        self.found = b""
        self._start(_WUPA_FRAME, 7)

    @micropython.native
    def poll(self):
        """None while the chip is at an exchange (the next step of the scan starts as soon as one is over);
        else the scan's end: the card's UID, or b"" (no card, or none that answered well)."""
        while True:
            done = self._done()
            if done == 0:
                self.looks += 1
                return None
            answer = self._answer() if done > 0 else None
            phase = self.phase
            if phase == _HALT:
                return self.found
            if phase == _WAKE:
                if answer is None or len(answer) != 2:
                    if not self._again():
                        return b""
                    continue
                self.phase = _ANTICOLL
                self._start(bytes((CASCADE[self.level], 0x20)))
            elif phase == _ANTICOLL:
                if answer is None or len(answer) != 5 or answer[0] ^ answer[1] ^ answer[2] ^ answer[3] != answer[4]:
                    if answer is not None and len(answer) == 5:
                        self.errors += 1
                    if not self._again():
                        return b""
                    continue
                self.part = answer
                frame = bytes((CASCADE[self.level], 0x70)) + answer
                self.phase = _SELECT
                self._start(frame + crc_a(frame))
            else:  # _SELECT
                part = self.part
                if answer is None or len(answer) != 3 or crc_a(answer[:1]) != answer[1:]:
                    if answer is not None and len(answer) == 3:
                        self.errors += 1
                    if not self._again():
                        return b""
                    continue
                if answer[0] & SAK_MORE:
                    if part[0] != CASCADE_TAG or self.level == len(CASCADE) - 1:
                        self.errors += 1  # (a card still asking for a fourth level is not ISO 14443)
                        if not self._again():
                            return b""
                        continue
                    self.found += part[1:4]
                    self.level += 1
                    self.phase = _ANTICOLL
                    self._start(bytes((CASCADE[self.level], 0x20)))
                else:
                    self.found += part[:4]
                    # HLTA, so that the next scan's WUPA finds the card again; no answer is the expected answer,
                    # so the scan is over now (the next exchange's IDLE ends the chip's wait for one).
                    self.phase = _HALT
                    self._start(_HLTA_FRAME)
                    return self.found

    @micropython.native
    def unanswered(self):
        """A WUPA unanswered at a look after the one made as it began (the node's next, a millisecond on): a card
        answers within a tenth of a millisecond (ATQA after the frame-delay time), so it ends only on the chip's
        15.5 ms timer. The node looks again then, not each millisecond: a look is a pass's SPI exchange (0.26 ms
        of an emulated chip's loop, in a press's way: firmware/PROTOCOL.md, "A frame's way to its ACK")."""
        return self.phase == _WAKE and self.looks > 1

    @micropython.native
    def _again(self):
        """The next try's WUPA, if any is left (False: the scan is over, no card)."""
        if self.tries_left <= 0:
            return False
        self.tries_left -= 1
        self.phase = _WAKE
        self.level = 0
        self.found = b""
        self._start(_WUPA_FRAME, 7)
        return True

    @micropython.native
    def scan(self, tries=2):
        """The UID (4, 7 or 10 bytes) of the card on the reader, or None, waited for. ``tries`` bounds the RF
        retries: at most ``tries`` * 8 exchanges, each bounded, however the card answers."""
        self.begin(tries)
        for _ in range(self.irq_reads * 8 * tries):
            uid = self.poll()
            if uid is not None:
                return uid or None
        return None
