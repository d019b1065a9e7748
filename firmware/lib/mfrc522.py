"""MFRC522 card reader over SPI: is a card there, and what is its UID?

Every exchange is bounded: the chip's own timer ends a transceive after ~15 ms with no card (data sheet §8.5:
(2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz with TPrescaler 0xD3E and TReload 30 is 15.5 ms), and this driver reads
the interrupt register a fixed number of times, so a scan can never block the node's loop (and its watchdog).

A scan follows ISO/IEC 14443-3: WUPA (wakes halted cards too), then per cascade level anticollision and SELECT
until the card's SAK says its UID is complete, then HLTA so the next scan's WUPA finds it again. Single (4-byte,
MIFARE Classic), double (7-byte, NTAG21x: the deck cards) and triple (10-byte) size UIDs are read; at levels
before the last the card answers the cascade tag 0x88 and three UID bytes. SELECT frames carry a CRC_A computed
here (a few dozen operations: cheaper than a round trip to the chip's coprocessor), and the SAK's CRC is checked.
"""

from mpcompat import micropython

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


class MFRC522:
    def __init__(self, spi, cs, rst=None, irq_reads=40):
        self.spi = spi
        self.cs = cs
        self.rst = rst
        self.irq_reads = irq_reads
        self.errors = 0
        # A register access's two bytes out and two in, made once: a scan with no card is some fifty accesses
        # every nfc_period_ms, and a new bytes object each would feed the garbage collector, whose pauses hold up
        # the node's answers on the bus.
        self._out = bytearray(2)
        self._buf = bytearray(2)
        cs.value(1)

    # Native: a bytecode function whose frame does not fit the C stack (_transceive's, scan's) takes a heap block
    # at every call, twenty times a second with no card.
    @micropython.native
    def _write(self, reg, value):
        out = self._out
        out[0] = (reg << 1) & 0x7E
        out[1] = value
        self.cs.value(0)
        self.spi.write(out)
        self.cs.value(1)

    @micropython.native
    def _read(self, reg):
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
    def _transceive(self, data, last_bits=0):
        self._write(COMMAND, IDLE)
        self._write(COM_IRQ, 0x7F)
        self._write(FIFO_LEVEL, 0x80)
        for b in data:
            self._write(FIFO_DATA, b)
        self._write(BIT_FRAMING, last_bits)
        self._write(COMMAND, TRANSCEIVE)
        self._write(BIT_FRAMING, 0x80 | last_bits)
        for _ in range(self.irq_reads):
            irq = self._read(COM_IRQ)
            if irq & 0x30:  # RxIRq or IdleIRq: the exchange is over
                break
            if irq & 0x01:  # TimerIRq: nobody answered
                return None
        else:
            return None
        if self._read(ERROR) & 0x1B:
            self.errors += 1
            return None
        n = self._read(FIFO_LEVEL)
        got = bytearray(n)  # a loop, not a generator: one that named self made self a cell at every call
        for i in range(n):
            got[i] = self._read(FIFO_DATA)
        return bytes(got)

    @micropython.native
    def scan(self, tries=2):
        """The UID (4, 7 or 10 bytes) of the card on the reader, or None. ``tries`` bounds the RF retries: at
        most ``tries`` * 8 exchanges, each bounded, however the card answers."""
        for _ in range(tries):
            atqa = self._transceive(_WUPA_FRAME, 7)
            if atqa is None or len(atqa) != 2:
                continue
            uid = self._select()
            if uid is not None:
                self._transceive(_HLTA_FRAME)  # no answer is the expected answer
                return uid
        return None

    def _select(self):
        """Anticollision and SELECT through the cascade levels; the whole UID, or None on any bad answer."""
        uid = b""
        for level in CASCADE:
            part = self._transceive(bytes((level, 0x20)))
            if part is None or len(part) != 5:
                return None
            if part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
                self.errors += 1
                return None
            frame = bytes((level, 0x70)) + part
            sak = self._transceive(frame + crc_a(frame))
            if sak is None or len(sak) != 3:
                return None
            if crc_a(sak[:1]) != sak[1:]:
                self.errors += 1
                return None
            if sak[0] & SAK_MORE:
                if part[0] != CASCADE_TAG:
                    self.errors += 1
                    return None
                uid += part[1:4]
            else:
                return uid + part[:4]
        self.errors += 1  # a card still asking for a fourth level is not ISO 14443
        return None
