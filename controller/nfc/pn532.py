"""NXP PN532 over I2C or UART (HSU), written against the PN532 User Manual (UM0701-02).

Frames (§6.2.1): ``00 00 FF LEN LCS TFI PD0..PDn DCS 00`` where LEN counts TFI and the data, ``LEN + LCS`` and
``TFI + PD0 + .. + PDn + DCS`` are both 0 modulo 256, TFI is D4 host-to-chip and D5 chip-to-host. The chip first
answers every command with an ACK frame ``00 00 FF 00 FF 00``, then with the response frame whose first data byte
is the command code plus one. Over I2C (§6.2.4) every read starts with a status byte whose bit 0 says the chip is
ready; over UART the chip needs a wake-up preamble after power-save.

Polls stay short: RFConfiguration item 5 (§7.3.1) sets ``MxRtyPassiveActivation`` to one retry, so
InListPassiveTarget (§7.3.5) answers "no target" at once instead of waiting forever (the chip's default), and every
wait for the chip is bounded by the injected clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from controller.gpio.clock import Clock
from controller.nfc.reader import NfcError

PREAMBLE = b"\x00\x00\xff"
ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5

GET_FIRMWARE_VERSION = 0x02
SAM_CONFIGURATION = 0x14
RF_CONFIGURATION = 0x32
IN_DATA_EXCHANGE = 0x40
IN_LIST_PASSIVE_TARGET = 0x4A
IN_RELEASE = 0x52

BRTY_106_TYPE_A = 0x00
I2C_ADDRESS = 0x24
MAX_FRAME = 64


class Pn532FrameError(NfcError):
    """A frame from the PN532 was malformed (preamble, length checksum, data checksum, direction)."""


class Pn532SyntaxError(NfcError):
    """The PN532 answered with its syntax error frame: it does not accept that command or those parameters."""


ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"


def build_frame(data: bytes) -> bytes:
    """An information frame from host to chip (extended past 255 bytes with TFI); ``data`` starts with the
    command code (TFI is added)."""
    body = bytes([HOST_TO_PN532]) + data
    length = len(body)
    if length > 265:
        raise ValueError("the PN532 takes at most 264 data bytes in a frame (UM0701 §6.2.1.2)")
    tail = bytes([(-sum(body)) & 0xFF, 0x00])
    if length <= 255:
        return PREAMBLE + bytes([length, (-length) & 0xFF]) + body + tail
    lenm, lenl = length >> 8, length & 0xFF
    return PREAMBLE + bytes([0xFF, 0xFF, lenm, lenl, (-(lenm + lenl)) & 0xFF]) + body + tail


def parse_frame(raw: bytes, tfi: int = PN532_TO_HOST) -> bytes:
    """Check a frame and return its data (without TFI). Leading zero bytes and trailing garbage are skipped,
    as the chip may pad an I2C read (§6.2.1.6: preamble and postamble may be any number of zero bytes)."""
    start = raw.find(b"\x00\xff")
    if start < 0:
        raise Pn532FrameError(f"no frame start (00 FF) in {raw.hex(' ')!r}")
    header = raw[start + 2 : start + 4]
    if len(header) < 2:
        raise Pn532FrameError(f"frame cut short after the start code: {raw.hex(' ')!r}")
    length, lcs = header
    body_at = start + 4
    if header == b"\xff\xff":  # extended information frame
        ext = raw[start + 4 : start + 7]
        if len(ext) < 3:
            raise Pn532FrameError(f"extended frame cut short: {raw.hex(' ')!r}")
        lenm, lenl, lcs = ext
        if (lenm + lenl + lcs) & 0xFF:
            raise Pn532FrameError(f"length checksum wrong (LENM {lenm:#04x}, LENL {lenl:#04x}, LCS {lcs:#04x})")
        length, body_at = lenm << 8 | lenl, start + 7
    elif (length + lcs) & 0xFF:
        raise Pn532FrameError(f"length checksum wrong (LEN {length:#04x}, LCS {lcs:#04x})")
    body = raw[body_at : body_at + length]
    dcs_at = body_at + length
    if len(body) < length or dcs_at >= len(raw):
        raise Pn532FrameError(f"frame cut short: LEN says {length} bytes, got {len(body)}")
    if length == 0:
        raise Pn532FrameError("ACK frame where a response was expected")
    if (sum(body) + raw[dcs_at]) & 0xFF:
        raise Pn532FrameError(f"data checksum wrong in {raw[start:dcs_at + 2].hex(' ')}")
    if length == 1 and body[0] == 0x7F:
        raise Pn532SyntaxError("the PN532 answered with its syntax error frame (UM0701 §6.2.1.5)")
    if body[0] != tfi:
        raise Pn532FrameError(f"frame identifier {body[0]:#04x}, expected {tfi:#04x}")
    return bytes(body[1:])


def frame_length(header: bytes) -> int:
    """Total length of a frame given its first bytes ``00 00 FF LEN LCS`` (ACK and NACK frames: 6); an extended
    frame (LEN LCS = FF FF) needs the first eight, ``.. LENM LENL LCS``."""
    if header[:3] != PREAMBLE:
        raise Pn532FrameError(f"bad preamble {header.hex(' ')!r}")
    length = header[3]
    if header[3:5] == b"\xff\xff":
        if len(header) < 8:
            raise Pn532FrameError(f"extended frame header cut short: {header.hex(' ')!r}")
        return 8 + (header[5] << 8 | header[6]) + 2
    return 6 if length == 0 or header[3:5] == b"\xff\x00" else 5 + length + 2


class Pn532Transport(Protocol):
    """How bytes reach the chip. ``read`` returns one whole frame's worth of bytes (status byte removed)."""

    def wakeup(self) -> None: ...

    def write(self, data: bytes) -> None: ...

    def ready(self) -> bool: ...

    def read(self, length: int) -> bytes: ...


class Pn532:
    """A PN532 reading ISO 14443-A cards (MIFARE, NTAG) for one seat."""

    def __init__(self, transport: Pn532Transport, clock: Clock, *, timeout: float = 0.02,
                 poll_interval: float = 0.002, retries: int = 2) -> None:
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        self.poll_interval = poll_interval
        self.retries = retries
        self._configured = False

    # --- protocol -------------------------------------------------------------------------------------
    def _wait_ready(self, what: str) -> None:
        deadline = self.clock.monotonic() + self.timeout
        while not self.transport.ready():
            if self.clock.monotonic() >= deadline:
                raise NfcError(f"PN532 did not answer {what} within {self.timeout * 1000:.0f} ms")
            self.clock.sleep(self.poll_interval)

    def call(self, command: int, params: bytes = b"", answer_len: int = MAX_FRAME) -> bytes:
        """Send one command, check the ACK and the response frame; return the response data after the code.
        A missing or garbled ACK sends the command again (§6.2.3); a response with a wrong checksum is asked for
        again with a NACK (§6.2.1.4); each up to ``retries`` times (cheap: the chip is there and answering). A
        chip that does not answer at all is not retried (that would multiply the wait): the next poll tries again.
        The syntax error frame is the chip's answer and raises :class:`Pn532SyntaxError` at once."""
        last: NfcError | None = None
        for _ in range(self.retries + 1):
            try:
                self._send(command, params)
                break
            except Pn532FrameError as exc:
                last = exc
        else:
            assert last is not None
            raise last
        for attempt in range(self.retries + 1):
            self._wait_ready(f"command {command:#04x}")
            try:
                data = parse_frame(self.transport.read(answer_len + 8))
            except Pn532SyntaxError as exc:
                raise Pn532SyntaxError(f"PN532 refused command {command:#04x} with params {params.hex(' ')!r}: "
                                       f"{exc}") from None
            except Pn532FrameError as exc:
                last = exc
                if attempt < self.retries:
                    self.transport.write(NACK)
                continue
            if not data or data[0] != command + 1:
                raise Pn532FrameError(f"answer to {command:#04x} has code {data[:1].hex()!r}")
            return data[1:]
        assert last is not None
        raise last

    def _send(self, command: int, params: bytes) -> None:
        self.transport.write(build_frame(bytes([command]) + params))
        self._wait_ready(f"command {command:#04x}")
        ack = self.transport.read(len(ACK))
        if ack != ACK:
            raise Pn532FrameError(f"expected ACK after command {command:#04x}, got {ack.hex(' ')!r}")

    # --- commands -------------------------------------------------------------------------------------
    def firmware_version(self) -> tuple[int, int, int, int]:
        """(IC, Ver, Rev, Support); IC is 0x32 for a PN532. Over HSU the chip may still be asleep (it starts in
        power-down, AN10609 §"Low battery mode"), so an unconfigured reader is woken first."""
        if not self._configured:
            self.transport.wakeup()
        data = self.call(GET_FIRMWARE_VERSION, answer_len=6)
        if len(data) < 4:
            raise Pn532FrameError("short GetFirmwareVersion answer")
        return data[0], data[1], data[2], data[3]

    def configure(self) -> None:
        """Wake the chip, leave SAM out of the way (normal mode) and make target polls give up quickly."""
        self.transport.wakeup()
        self.call(SAM_CONFIGURATION, bytes([0x01, 0x14, 0x01]), answer_len=2)
        # Item 5 MaxRetries: MxRtyATR, MxRtyPSL, MxRtyPassiveActivation (0xFF would mean "wait forever").
        self.call(RF_CONFIGURATION, bytes([0x05, 0xFF, 0x01, 0x01]), answer_len=2)
        self._configured = True

    def setup(self) -> None:
        self.configure()

    def read_uid(self) -> bytes | None:
        """InListPassiveTarget for one 106 kbps type A target; its NFCID1, or None when the field is empty."""
        if not self._configured:
            self.configure()
        data = self.call(IN_LIST_PASSIVE_TARGET, bytes([0x01, BRTY_106_TYPE_A]), answer_len=32)
        if not data or data[0] == 0:
            return None
        # Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1...
        if len(data) < 6 or len(data) < 6 + data[5]:
            raise Pn532FrameError(f"target data too short: {data.hex(' ')}")
        return bytes(data[6 : 6 + data[5]])

    def poll(self) -> str | None:
        uid = self.read_uid()
        return uid.hex().upper() if uid is not None else None

    def read_pages(self, page: int) -> bytes:
        """NTAG/Ultralight READ (0x30) through InDataExchange: 16 bytes from ``page`` (the listed target)."""
        data = self.call(IN_DATA_EXCHANGE, bytes([0x01, 0x30, page]), answer_len=20)
        if not data or data[0] & 0x3F:
            raise NfcError(f"card read of page {page} failed (status {data[:1].hex()!r})")
        return bytes(data[1:17])


class I2cPn532Transport:
    """PN532 on I2C (address 0x24). ``write``/``read`` are raw I2C transfers (a seat's multiplexed bus)."""

    def __init__(self, write: Callable[[int, bytes], None], read: Callable[[int, int], bytes],
                 address: int = I2C_ADDRESS) -> None:
        self._write = write
        self._read = read
        self.address = address

    def wakeup(self) -> None:
        """I2C needs no preamble: the chip wakes on its address."""

    def write(self, data: bytes) -> None:
        self._write(self.address, data)

    def ready(self) -> bool:
        return bool(self._read(self.address, 1)[0] & 0x01)

    def read(self, length: int) -> bytes:
        raw = self._read(self.address, length + 1)
        if not raw or not raw[0] & 0x01:
            raise NfcError("PN532 said not ready in the middle of a read")
        return bytes(raw[1:])


class SerialPort(Protocol):
    """The part of ``serial.Serial`` the UART transport uses."""

    @property
    def in_waiting(self) -> int: ...

    def write(self, data: bytes) -> int | None: ...

    def read(self, size: int = 1) -> bytes: ...


class UartPn532Transport:
    """PN532 in HSU mode through pyserial (115200 8N1). The serial port should have a short read timeout."""

    WAKEUP = b"\x55\x55" + b"\x00" * 14

    def __init__(self, port: SerialPort) -> None:
        self.port = port

    def wakeup(self) -> None:
        self.port.write(self.WAKEUP)

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def ready(self) -> bool:
        return bool(self.port.in_waiting)

    def read(self, length: int) -> bytes:
        head = self._skip_to_preamble()
        head += self.port.read(2)
        if len(head) < 5:
            raise NfcError("PN532 frame cut short on the serial line")
        if head[3:5] == b"\xff\xff":  # extended frame: LENM LENL LCS follow
            head += self.port.read(3)
            if len(head) < 8:
                raise NfcError("PN532 extended frame cut short on the serial line")
        rest = frame_length(head) - len(head)
        return bytes(head + self.port.read(rest))

    def _skip_to_preamble(self) -> bytes:
        window = b""
        for _ in range(MAX_FRAME):
            byte = self.port.read(1)
            if not byte:
                break
            window = (window + byte)[-3:]
            if window == PREAMBLE:
                return window
        raise NfcError("no PN532 frame on the serial line")
