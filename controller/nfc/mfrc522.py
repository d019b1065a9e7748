"""NXP MFRC522 on SPI, written against the MFRC522 datasheet (rev. 3.9) and ISO/IEC 14443-3.

Register access (§8.1.2.3): the address byte is ``(reg << 1) & 0x7E`` to write and ``0x80 | (reg << 1)`` to
read. Talking to a card goes through the FIFO and the Transceive command (§10.3.1.8); the chip's timer (TModeReg,
TPrescaler, TReload) ends a transceive with TimerIRq when no card answers, and every wait here is also bounded by
the injected clock. A poll is WUPA (wakes halted cards too), anticollision and SELECT per cascade level (with the
chip's CRC coprocessor for the SELECT frame), then HLTA so the card can be woken again on the next poll.

Each seat has its own chip-select line; a transport (``xfer``) is one SPI device with its CS.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from controller.gpio.clock import Clock
from controller.nfc.reader import NfcError

# Registers (§9.2)
COMMAND = 0x01
COM_IEN = 0x02
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
CRC_RESULT_H = 0x21
CRC_RESULT_L = 0x22
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# Commands (§10.3)
IDLE = 0x00
CALC_CRC = 0x03
TRANSCEIVE = 0x0C
SOFT_RESET = 0x0F

# ComIrqReg bits
RX_IRQ = 0x20
IDLE_IRQ = 0x10
ERR_IRQ = 0x02
TIMER_IRQ = 0x01
CRC_IRQ = 0x04  # DivIrqReg
# ErrorReg bits that spoil a frame: BufferOvfl, CollErr, ParityErr, ProtocolErr (CRCErr checked separately)
FRAME_ERRORS = 0x10 | 0x08 | 0x02 | 0x01

# ISO 14443-3 type A
WUPA = 0x52
HLTA = 0x50
CASCADE = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88

KNOWN_VERSIONS = {0x88: "FM17522 clone", 0x91: "MFRC522 v1.0", 0x92: "MFRC522 v2.0", 0xB2: "FM17522"}


def crc_a(data: Sequence[int]) -> bytes:
    """ISO 14443-3 CRC_A (initial value 0x6363), low byte first, as the chip's coprocessor computes it."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = ((crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)) & 0xFFFF
    return bytes([crc & 0xFF, crc >> 8])


class SpiTransport(Protocol):
    """One SPI device (one chip-select): full-duplex transfer, like ``spidev.SpiDev.xfer2``."""

    def xfer(self, data: list[int]) -> list[int]: ...


class Mfrc522:
    """One seat's MFRC522."""

    def __init__(self, spi: SpiTransport, clock: Clock, *, timeout: float = 0.03,
                 poll_interval: float = 0.001) -> None:
        self.spi = spi
        self.clock = clock
        self.timeout = timeout
        self.poll_interval = poll_interval
        self._ready = False

    # --- registers ------------------------------------------------------------------------------------
    def write(self, reg: int, *values: int) -> None:
        self.spi.xfer([(reg << 1) & 0x7E, *values])

    def read(self, reg: int, count: int = 1) -> list[int]:
        address = 0x80 | ((reg << 1) & 0x7E)
        answer = self.spi.xfer([address] * count + [0])
        return answer[1:]

    def read1(self, reg: int) -> int:
        return self.read(reg)[0]

    def set_bits(self, reg: int, mask: int) -> None:
        self.write(reg, self.read1(reg) | mask)

    def clear_bits(self, reg: int, mask: int) -> None:
        self.write(reg, self.read1(reg) & ~mask & 0xFF)

    def _wait(self, reg: int, mask: int, what: str, fail_mask: int = 0) -> int:
        deadline = self.clock.monotonic() + self.timeout
        while True:
            value = self.read1(reg)
            if value & (mask | fail_mask):
                return value
            if self.clock.monotonic() >= deadline:
                raise NfcError(f"MFRC522 {what} did not finish within {self.timeout * 1000:.0f} ms")
            self.clock.sleep(self.poll_interval)

    # --- setup ----------------------------------------------------------------------------------------
    def init(self) -> None:
        """Soft reset, a 25 ms receive timeout on the chip's timer, 100 % ASK, CRC preset 0x6363, antenna on."""
        self.write(COMMAND, SOFT_RESET)
        deadline = self.clock.monotonic() + self.timeout
        while self.read1(COMMAND) & 0x10:  # PowerDown bit clears when the reset is done
            if self.clock.monotonic() >= deadline:
                raise NfcError("MFRC522 did not come out of soft reset")
            self.clock.sleep(self.poll_interval)
        version = self.read1(VERSION)
        if version not in KNOWN_VERSIONS:
            raise NfcError(f"no MFRC522 answering (VersionReg reads {version:#04x}); check wiring and chip-select")
        self.write(T_MODE, 0x80)  # TAuto: timer starts at the end of transmission
        self.write(T_PRESCALER, 0xA9)  # 13.56 MHz / (2*0xA9+1) ~ 40 kHz -> 25 us ticks
        self.write(T_RELOAD_H, 0x03)
        self.write(T_RELOAD_L, 0xE8)  # counts 1000 down to 0: 1001 ticks = 25.0 ms (data sheet §8.5)
        self.write(TX_ASK, 0x40)
        self.write(MODE, 0x3D)
        self.set_bits(TX_CONTROL, 0x03)
        self._ready = True

    def setup(self) -> None:
        self.init()

    # --- card commands --------------------------------------------------------------------------------
    def calculate_crc(self, data: Sequence[int]) -> bytes:
        """CRC_A by the chip's coprocessor (CalcCRC command)."""
        self.write(COMMAND, IDLE)
        self.write(DIV_IRQ, CRC_IRQ)  # clear CRCIRq (writing 0 to Set2 clears the marked bits)
        self.write(FIFO_LEVEL, 0x80)
        self.write(FIFO_DATA, *data)
        self.write(COMMAND, CALC_CRC)
        self._wait(DIV_IRQ, CRC_IRQ, "CRC calculation")
        self.write(COMMAND, IDLE)
        return bytes([self.read1(CRC_RESULT_L), self.read1(CRC_RESULT_H)])

    def transceive(self, data: Sequence[int], last_bits: int = 0) -> bytes | None:
        """Send ``data`` to the card and return its answer, or None when no card answered before the timer."""
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)  # clear all IRQ bits
        self.write(FIFO_LEVEL, 0x80)  # flush the FIFO
        self.write(FIFO_DATA, *data)
        self.write(BIT_FRAMING, last_bits & 0x07)
        self.write(COMMAND, TRANSCEIVE)
        self.set_bits(BIT_FRAMING, 0x80)  # StartSend
        irq = self._wait(COM_IRQ, RX_IRQ | IDLE_IRQ, "transceive", fail_mask=TIMER_IRQ)
        self.clear_bits(BIT_FRAMING, 0x80)
        if not irq & (RX_IRQ | IDLE_IRQ):
            return None  # the chip's timer ran out: no card
        error = self.read1(ERROR)
        if error & FRAME_ERRORS:
            raise NfcError(f"MFRC522 reports a garbled answer (ErrorReg {error:#04x})")
        count = self.read1(FIFO_LEVEL) & 0x7F
        return bytes(self.read(FIFO_DATA, count)) if count else b""

    def read_uid(self) -> bytes | None:
        """WUPA, anticollision and SELECT through the cascade levels; the UID (4, 7 or 10 bytes) or None."""
        if not self._ready:
            self.init()
        atqa = self.transceive([WUPA], last_bits=7)
        if atqa is None:
            return None
        if len(atqa) != 2:
            raise NfcError(f"ATQA should be 2 bytes, got {atqa.hex(' ')!r}")
        uid = b""
        for level in CASCADE:
            answer = self.transceive([level, 0x20])
            if answer is None or len(answer) != 5:
                raise NfcError(f"anticollision at level {level:#04x} answered {answer!r}")
            part, bcc = answer[:4], answer[4]
            if part[0] ^ part[1] ^ part[2] ^ part[3] != bcc:
                raise NfcError(f"UID check byte (BCC) wrong in {answer.hex(' ')}")
            frame = [level, 0x70, *answer]
            sak_answer = self.transceive([*frame, *self.calculate_crc(frame)])
            if sak_answer is None or len(sak_answer) != 3:
                raise NfcError(f"SELECT at level {level:#04x} answered {sak_answer!r}")
            if crc_a(sak_answer[:1]) != sak_answer[1:]:
                raise NfcError("SAK frame has a bad CRC")
            if part[0] == CASCADE_TAG:
                uid += part[1:]
            else:
                uid += part
            if not sak_answer[0] & 0x04:  # UID complete
                break
        else:
            raise NfcError("UID still incomplete after three cascade levels")
        self.halt()
        return uid

    def halt(self) -> None:
        """HLTA: the card stays quiet until the next WUPA (it sends no answer, so a timeout is expected)."""
        self.transceive([HLTA, 0x00, *crc_a([HLTA, 0x00])])

    def poll(self) -> str | None:
        uid = self.read_uid()
        return uid.hex().upper() if uid is not None else None
