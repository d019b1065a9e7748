"""Fake PN532 and MFRC522 chips that answer as their datasheets say, with fault injection.

They check what the host sends (a PN532 frame with a wrong checksum is answered with a NACK, as the chip does) and
answer with real frames, register contents and CRCs, so the drivers are tested against the protocol rather than
against themselves. Faults: ``corrupt`` (the next answers have a bad checksum / BCC), ``silent`` (never ready),
``busy_polls`` (not ready for a few status reads). The PN532 counts ``overlapped`` exchanges: a command that
arrives while the previous one's answer is unread, which is what two hosts talking to it at once look like.
"""

from __future__ import annotations

from collections import deque

from controller.nfc import mfrc522 as m
from controller.nfc.pn532 import ACK, NACK, PREAMBLE


def _response_frame(data: bytes) -> bytes:
    body = bytes([0xD5]) + data
    return PREAMBLE + bytes([len(body), (-len(body)) & 0xFF]) + body + bytes([(-sum(body)) & 0xFF, 0x00])


class FakePn532:
    """A PN532 with one card slot. Works as an I2C device (``on_write``/``on_read``) or a serial port."""

    def __init__(self, firmware: tuple[int, int, int, int] = (0x32, 0x01, 0x06, 0x07)) -> None:
        self.firmware = firmware
        self.card: bytes | None = None
        self.ndef_pages: dict[int, bytes] = {}
        self.corrupt = 0  # corrupt this many response frames (bad DCS)
        self.silent = False
        self.busy_polls = 0
        self._busy_left = 0
        self.queue: deque[bytes] = deque()
        self.commands: list[int] = []
        self.woken = False
        self.overlapped = 0  # commands that arrived while an earlier answer was still unread (interleaved hosts)
        self.max_retries_passive: int | None = None
        self._serial_out = bytearray()

    # --- the chip's logic -----------------------------------------------------------------------------
    def receive(self, frame: bytes) -> None:
        start = frame.find(PREAMBLE)
        if start < 0:
            return  # wake-up bytes
        frame = frame[start:]
        length, lcs = frame[3], frame[4]
        body = frame[5 : 5 + length]
        if (length + lcs) & 0xFF or (sum(body) + frame[5 + length]) & 0xFF or body[0] != 0xD4:
            self.queue.append(NACK)
            return
        if self.silent:
            return
        command, params = body[1], body[2:]
        if self.queue:  # the host started a new exchange before reading the last one's answer
            self.overlapped += 1
        self.commands.append(command)
        self.queue.append(ACK)
        answer = self._answer(command, params)
        frame_out = _response_frame(bytes([command + 1]) + answer)
        if self.corrupt:
            self.corrupt -= 1
            frame_out = frame_out[:-2] + bytes([(frame_out[-2] + 1) & 0xFF, 0x00])
        self.queue.append(frame_out)
        self._busy_left = self.busy_polls

    def _answer(self, command: int, params: bytes) -> bytes:
        if command == 0x02:
            return bytes(self.firmware)
        if command == 0x32 and params[:1] == b"\x05":
            self.max_retries_passive = params[3]
            return b""
        if command == 0x4A:
            if self.card is None:
                return b"\x00"
            return bytes([1, 1, 0x00, 0x44, 0x00, len(self.card)]) + self.card
        if command == 0x40 and params[1:2] == b"\x30":
            page = params[2]
            data = b"".join(self.ndef_pages.get(page + i, bytes(4)) for i in range(4))
            return b"\x00" + data
        return b""

    def _ready(self) -> bool:
        if not self.queue:
            return False
        if self._busy_left:
            self._busy_left -= 1
            return False
        return True

    # --- as an I2C device -----------------------------------------------------------------------------
    def on_write(self, data: bytes) -> None:
        self.receive(data)

    def on_read(self, length: int) -> bytes:
        if not self._ready():
            return bytes(length)  # status byte 0x00: not ready
        if length == 1:
            return b"\x01"
        frame = self.queue.popleft()
        return (b"\x01" + frame + bytes(length))[:length]

    # --- as a serial port (HSU) -----------------------------------------------------------------------
    @property
    def in_waiting(self) -> int:
        if not self._serial_out and self._ready():
            self._serial_out += self.queue.popleft()
        return len(self._serial_out)

    def write(self, data: bytes) -> int:
        if data.startswith(b"\x55\x55"):
            self.woken = True
        self.receive(bytes(data))
        return len(data)

    def read(self, size: int = 1) -> bytes:
        while len(self._serial_out) < size and self.queue:
            self._serial_out += self.queue.popleft()
        out = bytes(self._serial_out[:size])
        del self._serial_out[:size]
        return out


class FakeMfrc522:
    """An MFRC522 register file with a FIFO, the Transceive and CalcCRC commands, and one card in the field."""

    def __init__(self, version: int = 0x92) -> None:
        self.regs = [0] * 0x40
        self.regs[m.VERSION] = version
        self.fifo: list[int] = []
        self.card: bytes | None = None
        self.halted = False
        self.corrupt_bcc = 0
        self.frames: list[bytes] = []

    def xfer(self, data: list[int]) -> list[int]:
        address = data[0]
        reg = (address >> 1) & 0x3F
        if address & 0x80:  # read: each following byte is the next address (we only read one register)
            return [0] + [self._read(reg) for _ in data[1:]]
        for value in data[1:]:
            self._write(reg, value)
        return [0] * len(data)

    def _read(self, reg: int) -> int:
        if reg == m.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == m.FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg: int, value: int) -> None:
        if reg == m.FIFO_DATA:
            self.fifo.append(value)
        elif reg == m.FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
        elif reg in (m.COM_IRQ, m.DIV_IRQ):
            mask = value & 0x7F
            self.regs[reg] = self.regs[reg] | mask if value & 0x80 else self.regs[reg] & ~mask
        elif reg == m.COMMAND:
            self.regs[reg] = value & 0x0F
            if value & 0x0F == m.SOFT_RESET:
                self.regs[m.COMMAND] = 0
                self.fifo.clear()
            elif value & 0x0F == m.CALC_CRC:
                crc = m.crc_a(self.fifo)
                self.fifo.clear()
                self.regs[m.CRC_RESULT_L], self.regs[m.CRC_RESULT_H] = crc[0], crc[1]
                self.regs[m.DIV_IRQ] |= m.CRC_IRQ
        elif reg == m.BIT_FRAMING:
            self.regs[reg] = value
            if value & 0x80 and self.regs[m.COMMAND] == m.TRANSCEIVE:
                self._transceive(value & 0x07)
        else:
            self.regs[reg] = value

    def _transceive(self, last_bits: int) -> None:
        frame = bytes(self.fifo)
        self.fifo.clear()
        self.frames.append(frame)
        answer = self._card_answer(frame, last_bits)
        self.regs[m.ERROR] = 0
        if answer is None:
            self.regs[m.COM_IRQ] |= m.TIMER_IRQ
            return
        self.fifo = list(answer)
        self.regs[m.COM_IRQ] |= m.RX_IRQ | m.IDLE_IRQ

    def _card_answer(self, frame: bytes, last_bits: int) -> bytes | None:
        uid = self.card
        if uid is None or not self.regs[m.TX_CONTROL] & 0x03:
            return None
        levels = [uid] if len(uid) == 4 else [bytes([m.CASCADE_TAG]) + uid[:3], uid[3:]]
        if last_bits == 7 and frame == bytes([m.WUPA]):
            self.halted = False
            return b"\x44\x00" if len(uid) == 7 else b"\x04\x00"
        if self.halted:
            return None
        if frame[:1] == bytes([m.HLTA]):
            self.halted = True
            return None
        if len(frame) == 2 and frame[1] == 0x20 and frame[0] in m.CASCADE:
            part = levels[m.CASCADE.index(frame[0])]
            bcc = part[0] ^ part[1] ^ part[2] ^ part[3]
            if self.corrupt_bcc:
                self.corrupt_bcc -= 1
                bcc ^= 0x01
            return part + bytes([bcc])
        if len(frame) == 9 and frame[1] == 0x70:
            if m.crc_a(frame[:7]) != frame[7:]:
                return None  # a card ignores frames with a bad CRC
            level = m.CASCADE.index(frame[0])
            sak = 0x04 if level + 1 < len(levels) else 0x00
            return bytes([sak]) + m.crc_a([sak])
        return None
