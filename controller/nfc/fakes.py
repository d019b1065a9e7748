"""Fake PN532 and MFRC522 chips that answer as their datasheets say, with fault injection.

They check what the host sends and answer with real frames, register contents and CRCs, so the drivers are tested
against the protocol rather than against themselves; a published driver (tests/hardware) talks to them too, and
docs/hardware-truth.md lists where each fake was corrected against the datasheet.

The PN532 follows the User Manual UM0701-02 §6.2: it reads normal and extended information frames; a frame whose
LCS or DCS does not add up is ignored (no ACK: the host resends after 15 ms, §6.2.3); a good frame is answered with
an ACK, then the response, or the syntax error frame ``00 00 FF 01 FF 7F 81 00`` (§6.2.1.5) for a command it does
not implement (:data:`FakePn532.IMPLEMENTED` lists the ones it does); the host's ACK aborts the command in
progress and its NACK asks for the last response again (§6.2.1.3, §6.2.1.4). InListPassiveTarget with the
power-up MxRtyPassiveActivation (0xFF, §7.3.1) waits for a card, as the chip does, instead of answering "none".
ReadRegister and WriteRegister reach the CIU's register file with its reset values (:data:`CIU_REGISTERS`). Over
HSU the chip sleeps until a write wakes it, and loses that write's first :data:`WAKE_BYTES` bytes.
Faults: ``corrupt`` (the next answers have a bad DCS), ``silent`` (never answers), ``busy_polls`` (not ready for a
few status reads). ``overlapped`` counts commands that arrived while the previous answer was unread, which is what
two hosts talking to it at once look like.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import ClassVar

from controller.nfc import mfrc522 as m
from controller.nfc.pn532 import ACK, PREAMBLE

ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"  # UM0701 §6.2.1.5: the syntax error frame
STATUS_OK = 0x00
STATUS_TIMEOUT = 0x01  # UM0701 §7.1 error codes: the target did not answer
STATUS_WRONG_CONTEXT = 0x27  # §7.1: e.g. InDataExchange with no target listed
NTAG_PAGES = 45  # NTAG213: pages 0x00..0x2C
#: HSU wake-up (UM0701 §7.2.11 PowerDown, AN10609 "Low battery mode"): the chip wakes on activity on its RX line
#: and loses what arrives while it wakes, so the host sends a preamble first. UM0701 gives no byte count; the fake
#: loses the first 5 bytes of the write that wakes it, the shortest wake-up a published driver relies on
#: (Adafruit's ``55 55 00 00 00``; nfcpy sends ten ``00``, libnfc and ours ``55 55`` and fourteen ``00``).
WAKE_BYTES = 5

#: The CIU's registers as ReadRegister/WriteRegister address them (UM0701 §7.2.4, §7.2.5: 63xxh; the CIU is the
#: PN512 cell of the PN532 data sheet's register map), with their reset values: 6331h-633Eh are the cell's page 0
#: (Command .. Coll), 6301h-631Dh its pages 1-2 (Mode .. TReloadLo). The timer's counter and the test registers
#: (page 3) are not modelled.
CIU_REGISTERS: dict[int, tuple[str, int]] = {
    0x6331: ("Command", 0x20), 0x6332: ("CommIEn", 0x80), 0x6333: ("DivIEn", 0x00), 0x6334: ("CommIRq", 0x14),
    0x6335: ("DivIRq", 0x00), 0x6336: ("Error", 0x00), 0x6337: ("Status1", 0x21), 0x6338: ("Status2", 0x00),
    0x6339: ("FIFOData", 0x00), 0x633A: ("FIFOLevel", 0x00), 0x633B: ("WaterLevel", 0x08),
    0x633C: ("Control", 0x10), 0x633D: ("BitFraming", 0x00), 0x633E: ("Coll", 0x80),
    0x6301: ("Mode", 0x3B), 0x6302: ("TxMode", 0x00), 0x6303: ("RxMode", 0x00), 0x6304: ("TxControl", 0x80),
    0x6305: ("TxAuto", 0x00), 0x6306: ("TxSel", 0x10), 0x6307: ("RxSel", 0x84), 0x6308: ("RxThreshold", 0x84),
    0x6309: ("Demod", 0x4D), 0x630A: ("FelNFC1", 0x00), 0x630B: ("FelNFC2", 0x00), 0x630C: ("MifNFC", 0x62),
    0x630D: ("ManualRCV", 0x00), 0x630E: ("TypeB", 0x00), 0x630F: ("SerialSpeed", 0xEB),
    0x6311: ("CRCResultMSB", 0xFF), 0x6312: ("CRCResultLSB", 0xFF), 0x6313: ("GsNOff", 0x88),
    0x6314: ("ModWidth", 0x26), 0x6315: ("TxBitPhase", 0x87), 0x6316: ("RFCfg", 0x48), 0x6317: ("GsNOn", 0x88),
    0x6318: ("CWGsP", 0x20), 0x6319: ("ModGsP", 0x20), 0x631A: ("TMode", 0x00), 0x631B: ("TPrescaler", 0x00),
    0x631C: ("TReloadHi", 0x00), 0x631D: ("TReloadLo", 0x00),
}
#: Registers the chip sets itself; a host's write changes nothing (Error, Status1, FIFOLevel's count, CRCResult).
CIU_READ_ONLY = frozenset({0x6336, 0x6337, 0x633A, 0x6311, 0x6312})
CIU_FIFO_DATA, CIU_FIFO_LEVEL = 0x6339, 0x633A


def _response_frame(data: bytes) -> bytes:
    """A frame from the chip: normal up to 255 bytes with TFI, extended past that (§6.2.1.2)."""
    body = bytes([0xD5]) + data
    n = len(body)
    dcs = bytes([(-sum(body)) & 0xFF, 0x00])
    if n <= 255:
        return PREAMBLE + bytes([n, (-n) & 0xFF]) + body + dcs
    return PREAMBLE + bytes([0xFF, 0xFF, n >> 8, n & 0xFF, (-(n >> 8) - n) & 0xFF]) + body + dcs


def cascaded(uid: bytes) -> bytes:
    """The UID as the cascade levels carry it (ISO/IEC 14443-3 §6.4.4): a 7-byte UID as 88h + 7 bytes, a 10-byte
    one as 88h + 3 + 88h + 7 bytes; a 4-byte UID as it is."""
    if len(uid) == 7:
        return b"\x88" + uid
    if len(uid) == 10:
        return b"\x88" + uid[:3] + b"\x88" + uid[3:]
    return uid


def ntag_page(uid: bytes, page: int) -> bytes:
    """Pages 0-3 of an NTAG21x with a 7-byte UID (NTAG213/215/216 datasheet §8.5): UID with its two check bytes
    BCC0 = 0x88 ^ UID0 ^ UID1 ^ UID2 and BCC1 = UID3 ^ UID4 ^ UID5 ^ UID6, the internal byte, the lock bytes,
    then the capability container of an NDEF-formatted NTAG213 (E1 10 12 00); zeros past them."""
    if len(uid) != 7:
        return bytes(4)
    if page == 0:
        return uid[:3] + bytes([0x88 ^ uid[0] ^ uid[1] ^ uid[2]])
    if page == 1:
        return uid[3:7]
    if page == 2:
        return bytes([uid[3] ^ uid[4] ^ uid[5] ^ uid[6], 0x48, 0x00, 0x00])
    if page == 3:
        return b"\xe1\x10\x12\x00"
    return bytes(4)


class FakePn532:
    """A PN532 with one card slot. Works as an I2C device (``on_write``/``on_read``) or a serial port (HSU)."""

    #: Commands this fake answers (UM0701 §7); any other command gets the syntax error frame.
    IMPLEMENTED: ClassVar[dict[int, str]] = {
        0x00: "Diagnose (NumTst 0: communication line test)",
        0x02: "GetFirmwareVersion",
        0x04: "GetGeneralStatus",
        0x06: "ReadRegister (the CIU's register file, 63xxh)",
        0x08: "WriteRegister (the CIU's register file, 63xxh)",
        0x10: "SetSerialBaudRate",
        0x12: "SetParameters",
        0x14: "SAMConfiguration",
        0x16: "PowerDown",
        0x32: "RFConfiguration",
        0x40: "InDataExchange (NTAG READ 0x30)",
        0x42: "InCommunicateThru (NTAG READ 0x30)",
        0x44: "InDeselect",
        0x4A: "InListPassiveTarget (106 kbps type A, by UID too)",
        0x52: "InRelease",
        0x54: "InSelect",
        0x60: "InAutoPoll (106 kbps type A: types 00h and 10h)",
    }
    #: SetSerialBaudRate's BR byte (UM0701 §7.2.8): the HSU speeds the chip can switch to.
    BAUD_RATES: ClassVar[dict[int, int]] = {0x00: 9600, 0x01: 19200, 0x02: 38400, 0x03: 57600, 0x04: 115200,
                                            0x05: 230400, 0x06: 460800, 0x07: 921600, 0x08: 1288000}

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
        self.unknown: list[int] = []  # commands answered with the syntax error frame
        self.ignored = 0  # frames dropped for a wrong LCS/DCS (no ACK)
        self.woken = False
        self.overlapped = 0  # commands that arrived while an earlier answer was still unread (interleaved hosts)
        self.max_retries_passive = 0xFF  # §7.3.1 item 5: MxRtyPassiveActivation after power-up
        self.sam_mode: int | None = None
        self.listed: bytes | None = None  # the target InListPassiveTarget activated (Tg 1)
        self._waiting_for_card = False  # an InListPassiveTarget or InAutoPoll that is still looking
        self._wanted = b""  # the UID it looks for (empty: any card)
        self._found: Callable[[], bytes] = self._listed  # the answer (after the code) once the card comes
        self._waiting_code = 0x4B
        self._last_response: bytes | None = None
        self._serial_out = bytearray()
        self._serial_in = bytearray()  # HSU bytes of a frame still arriving (a frame may come in several writes)
        self.parameters = 0x00  # SetParameters' flags (§7.2.9)
        self.baud = 115200  # the HSU speed (§7.2.8: a new one applies after the host's ACK of the answer)
        self.powered_down = 0  # PowerDown commands taken (§7.2.11)
        self.registers = {address: reset for address, (_name, reset) in CIU_REGISTERS.items()}
        self.fifo: deque[int] = deque()
        self.unmodelled: list[int] = []  # ReadRegister/WriteRegister addresses outside the CIU's register file

    # --- the chip's logic -----------------------------------------------------------------------------
    def receive(self, data: bytes) -> None:
        """Everything the host sent in one transfer: wake-up bytes, then zero or more frames."""
        i = 0
        while True:
            start = data.find(b"\x00\xff", i)
            if start < 0:
                return
            i = self._frame(data, start + 2)

    def _frame(self, data: bytes, at: int) -> int:
        """Handle the frame whose LEN starts at ``at``; return where the next one may start."""
        head = data[at : at + 2]
        if head == b"\x00\xff":  # ACK from the host: abort the command in progress (§6.2.1.3)
            self.queue.clear()
            self._waiting_for_card = False
            return at + 3
        if head == b"\xff\x00":  # NACK: send the last response frame again (§6.2.1.4)
            if self._last_response is not None and not self.silent:
                self._send(self._last_response)
            return at + 3
        if head == b"\xff\xff":  # extended information frame (§6.2.1.2)
            if len(data) < at + 5:
                self.ignored += 1
                return len(data)
            lenm, lenl, lcs = data[at + 2 : at + 5]
            length, body_at, ok = lenm << 8 | lenl, at + 5, (lenm + lenl + lcs) & 0xFF == 0
        elif len(head) == 2:
            length, body_at, ok = head[0], at + 2, (head[0] + head[1]) & 0xFF == 0
        else:
            self.ignored += 1
            return len(data)
        body = data[body_at : body_at + length]
        dcs = data[body_at + length : body_at + length + 1]
        if not ok or length == 0 or len(body) < length or not dcs or (sum(body) + dcs[0]) & 0xFF:
            self.ignored += 1  # a corrupted frame is not acknowledged (§6.2.3: the host resends it)
            return body_at + length + 1
        if self.silent:
            return body_at + length + 1
        if self.queue:  # the host started a new exchange before reading the last one's answer
            self.overlapped += 1
            self.queue.clear()
        self._waiting_for_card = False  # a new command aborts the previous one
        self.queue.append(ACK)
        if body[0] != 0xD4 or length < 2:
            self._send(ERROR_FRAME)
        else:
            self._command(body[1], bytes(body[2:]))
        self._busy_left = self.busy_polls
        return body_at + length + 2

    def _command(self, command: int, params: bytes) -> None:
        self.commands.append(command)
        answer = self._answer(command, params)
        if answer is None:
            return  # still working (InListPassiveTarget waiting for a card)
        if answer is ERROR_FRAME:
            self.unknown.append(command)
            self._send(ERROR_FRAME)
        else:
            self._send(_response_frame(bytes([command + 1]) + answer))

    def _send(self, frame: bytes) -> None:
        self._last_response = frame
        if self.corrupt and frame != ERROR_FRAME:
            self.corrupt -= 1
            frame = frame[:-2] + bytes([(frame[-2] + 1) & 0xFF, 0x00])
        self.queue.append(frame)

    def _answer(self, command: int, params: bytes) -> bytes | None:
        if command == 0x00 and params[:1] == b"\x00":
            return params  # Diagnose, communication line test: the parameters come back (§7.2.1)
        if command == 0x02:
            return bytes(self.firmware)
        if command == 0x04:  # Err, Field, NbTg, [Tg BrRx BrTx Type], SAM status (§7.2.3)
            target = b"\x01\x00\x00\x10" if self.listed is not None else b""
            return bytes([0x00, 0x00, 1 if self.listed is not None else 0]) + target + b"\x00"
        if command == 0x06 and params and len(params) % 2 == 0:  # §7.2.4: ADRH ADRL pairs in, the values out
            return bytes(self._read_register(params[i] << 8 | params[i + 1]) for i in range(0, len(params), 2))
        if command == 0x08 and params and len(params) % 3 == 0:  # §7.2.5: ADRH ADRL VAL triples, nothing out
            for i in range(0, len(params), 3):
                self._write_register(params[i] << 8 | params[i + 1], params[i + 2])
            return b""
        if command == 0x14 and len(params) >= 1 and 0x01 <= params[0] <= 0x04:
            self.sam_mode = params[0]
            return b""
        if command == 0x10 and len(params) == 1 and params[0] in self.BAUD_RATES:
            self.baud = self.BAUD_RATES[params[0]]
            return b""
        if command == 0x12 and len(params) == 1:
            self.parameters = params[0]
            return b""
        if command == 0x16 and len(params) >= 1:
            # §7.2.11: the chip answers, then sleeps; over HSU it hears nothing more until woken (55 55 00 ...).
            self.powered_down += 1
            self.woken = False
            self._serial_in.clear()
            return bytes([STATUS_OK])
        if command == 0x42 and len(params) >= 1:
            return self._communicate_thru(bytes(params))
        if command == 0x32 and len(params) >= 1:
            if params[0] == 0x05:
                if len(params) != 4:
                    return ERROR_FRAME
                self.max_retries_passive = params[3]
            return b""
        if command == 0x40 and len(params) >= 2:
            return self._data_exchange(params)
        if command == 0x54 and len(params) == 1:  # §7.3.12 InSelect: Tg 1 is the one target this fake lists
            return bytes([STATUS_OK if params[0] == 0x01 and self.listed is not None else STATUS_WRONG_CONTEXT])
        if command == 0x60 and 3 <= len(params) <= 17:
            return self._auto_poll(params[0], bytes(params[2:]))
        if command in (0x44, 0x52) and len(params) == 1:
            if command == 0x52:
                self.listed = None
            return bytes([STATUS_OK])
        if command == 0x4A and len(params) >= 2 and params[0] in (1, 2):
            if params[1] != 0x00:
                return b"\x00"  # this fake has only a type A card: no other kind of target answers
            # §7.3.5 InitiatorData at 106 kbps type A: the UID of the one card to select, as the cascade levels
            # select it (ISO/IEC 14443-3 §6.4.4: 88h before each part that has another level after it), which is
            # how libnfc (iso14443_cascade_uid) and nfcpy (sense_tta) send it.
            wanted = params[2:]
            if self.card is not None and wanted and wanted != cascaded(self.card):
                return self._no_target()  # the card in the field has another UID: no target
            if self.card is None:
                if self.max_retries_passive == 0xFF:
                    self._waiting_for_card = True  # the chip keeps looking until a card comes
                    self._wanted = bytes(wanted)
                    self._found, self._waiting_code = self._listed, 0x4B
                    return None
                return self._no_target()
            return self._listed()
        return ERROR_FRAME

    def _read_register(self, address: int) -> int:
        if address == CIU_FIFO_DATA:
            return self.fifo.popleft() if self.fifo else 0x00
        if address == CIU_FIFO_LEVEL:
            return len(self.fifo)
        if address not in self.registers:
            self.unmodelled.append(address)
            return 0x00
        return self.registers[address]

    def _write_register(self, address: int, value: int) -> None:
        if address == CIU_FIFO_DATA:
            if len(self.fifo) < 64:  # the CIU's FIFO holds 64 bytes; more are lost (BufferOvfl)
                self.fifo.append(value)
        elif address == CIU_FIFO_LEVEL:
            if value & 0x80:  # FlushBuffer
                self.fifo.clear()
        elif address not in self.registers:
            self.unmodelled.append(address)
        elif address not in CIU_READ_ONLY:
            self.registers[address] = value

    def _auto_poll(self, polls: int, types: bytes) -> bytes | None:
        """§7.3.13 InAutoPoll (libnfc's nfc_initiator_poll_target on a PN532): ``polls`` rounds (FFh: until a
        target comes) over the listed target types. The one card this fake holds is a 106 kbps type A card
        without ISO/IEC 14443-4, found as type 00h (generic passive 106 kbps) or 10h (MIFARE); each target in the
        answer is Type, its length, then what InListPassiveTarget gives for it."""
        found = next((t for t in types if t in (0x00, 0x10)), None)
        if polls == 0x00:
            return ERROR_FRAME
        if self.card is not None and found is not None:
            return self._polled(found)
        if polls == 0xFF and found is not None:
            self._waiting_for_card, self._wanted = True, b""
            self._found, self._waiting_code = (lambda: self._polled(found)), 0x61
            return None
        return b"\x00"

    def _polled(self, kind: int) -> bytes:
        data = self._listed()[1:]  # Tg, SENS_RES, SEL_RES, NFCIDLength, NFCID
        return bytes([1, kind, len(data)]) + data

    def _no_target(self) -> bytes:
        """NbTg 0. The CIU's FIFO still holds the REQA (26h) that nobody answered: nfcpy reads CIU_FIFOData after
        an empty InListPassiveTarget and takes 26h there for "no tag in the field"."""
        self.fifo.clear()
        self.fifo.append(0x26)
        return b"\x00"

    def _listed(self) -> bytes:
        assert self.card is not None
        # The firmware leaves the CIU framing the activated card: 106 kbps type A with CRC_A on both ways
        # (TxMode/RxMode 80h); nfcpy clears RxMode's CRC bit for a type 2 tag after reading it.
        self.registers[0x6302] = self.registers[0x6303] = 0x80
        self.listed = self.card
        sens_res, sel_res = (b"\x00\x44", 0x00) if len(self.card) == 7 else (b"\x00\x04", 0x08)
        return bytes([1, 1]) + sens_res + bytes([sel_res, len(self.card)]) + self.card

    def _communicate_thru(self, sent: bytes) -> bytes:
        """§7.3.9: raw bytes to the activated target, no Tg byte; the answer is Status then the card's bytes. The
        CIU frames them as TxMode and RxMode say: with TxCRCEn (bit 7) off the host sent the CRC_A itself (a
        wrong one and the card stays silent), with RxCRCEn off the card's CRC_A comes back with its bytes
        (nfcpy switches it off for a type 2 tag, to see the tag's 4-bit ACK, and checks the CRC_A itself)."""
        if not self.registers[0x6302] & 0x80:
            if len(sent) < 3 or crc_with_preset(sent[:-2], 0x6363) != sent[-2:]:
                return bytes([STATUS_TIMEOUT])
            sent = sent[:-2]
        answer = self._data_exchange(b"\x01" + sent)
        if answer[:1] == bytes([STATUS_OK]) and not self.registers[0x6303] & 0x80:
            answer += crc_with_preset(answer[1:], 0x6363)
        return answer

    def _data_exchange(self, params: bytes) -> bytes:
        if params[0] != 0x01 or self.listed is None:
            return bytes([STATUS_WRONG_CONTEXT])
        if self.card != self.listed:
            return bytes([STATUS_TIMEOUT])  # the card left the field
        if params[1] == 0x30 and len(params) == 3:  # NTAG READ: four pages from the one asked for
            page = params[2]
            if page >= NTAG_PAGES:
                return bytes([STATUS_TIMEOUT])  # NTAG answers a NAK, which the PN532 reports as no answer
            pages = [(page + i) % NTAG_PAGES for i in range(4)]  # roll-over past the last page (NTAG21x READ)
            data = b"".join(self.ndef_pages.get(p, ntag_page(self.card, p)) for p in pages)
            return bytes([STATUS_OK]) + data
        return bytes([STATUS_TIMEOUT])

    def _ready(self) -> bool:
        if self._waiting_for_card and self.card is not None and self._wanted in (b"", cascaded(self.card)):
            # the card (the one asked for, if a UID was given) arrived while the chip was looking
            self._waiting_for_card = False
            self._send(_response_frame(bytes([self._waiting_code]) + self._found()))
        if not self.queue:
            return False
        if self._busy_left:
            self._busy_left -= 1
            return False
        return True

    # --- as an I2C device (§6.2.4: every read starts with the status byte, bit 0 = ready) ----------------
    def on_write(self, data: bytes) -> None:
        self.receive(data)

    def on_read(self, length: int) -> bytes:
        if not self._ready():
            return bytes(length)  # status byte 0x00: not ready
        if length == 1:
            return b"\x01"
        frame = self.queue.popleft()
        return (b"\x01" + frame + bytes(length))[:length]

    # --- as a serial port (HSU: a wake-up preamble first, UM0701 §7.2.11 and AN10609) --------------------
    @property
    def in_waiting(self) -> int:
        if not self._serial_out and self._ready():
            self._serial_out += self.queue.popleft()
        return len(self._serial_out)

    def write(self, data: bytes) -> int:
        """Bytes from the host on the serial line. The chip starts in power-down (AN10609 "Low battery mode") and
        sleeps again after PowerDown; a write wakes it, but its first :data:`WAKE_BYTES` bytes arrive while it
        wakes and are lost. So a frame after a wake-up preamble (``55 55 00 ..`` or a long run of ``00``) is
        heard, and a bare frame sent to a sleeping chip is not (it wakes the chip for the next one)."""
        sent = len(data)
        if not self.woken:
            self.woken = True
            heard = data[WAKE_BYTES:]
            if b"\x00\xff" in data and b"\x00\xff" not in heard:
                self.ignored += 1  # the frame's start code arrived while the chip was waking
            data = heard
        self._serial_in += data
        rest = self._complete_frames(bytes(self._serial_in))
        self._serial_in = bytearray(rest)
        return sent

    def _complete_frames(self, data: bytes) -> bytes:
        """Hear the whole frames in ``data`` (the HSU line is a byte stream: a frame the host wrote in two
        parts is one frame to the chip, §6.2.1); return the start of a frame still arriving."""
        i = 0
        while True:
            start = data.find(b"\x00\xff", i)
            if start < 0:
                break
            end = self._frame_end(data, start + 2)
            if end is None:
                self.receive(data[:start])
                return data[start:]
            i = end
        self.receive(data)
        return b""

    @staticmethod
    def _frame_end(data: bytes, at: int) -> int | None:
        """Where the frame whose LEN is at ``at`` ends (its DCS included), or None while bytes are missing."""
        head = data[at : at + 2]
        if len(head) < 2:
            return None
        if head in (b"\x00\xff", b"\xff\x00"):
            end = at + 2  # ACK or NACK
        elif head == b"\xff\xff":
            if len(data) < at + 5:
                return None
            end = at + 5 + (data[at + 2] << 8 | data[at + 3]) + 1
        else:
            end = at + 2 + head[0] + 1
        return end if len(data) >= end else None

    def read(self, size: int = 1) -> bytes:
        while len(self._serial_out) < size and self._ready():
            self._serial_out += self.queue.popleft()
        out = bytes(self._serial_out[:size])
        del self._serial_out[:size]
        return out

    def reset_input_buffer(self) -> None:
        """pyserial's: bytes the chip sent and nobody read are dropped."""
        self._serial_out.clear()


#: Register reset values (MFRC522 data sheet rev. 3.9, §9.3 register tables) that drivers depend on: ModeReg 3Fh
#: means a CRC preset of FFFFh until the driver sets 6363h, TxControlReg 80h means the antenna is off until the
#: driver switches it on, ComIrqReg 14h has IdleIRq set.
RESET_VALUES = {
    m.COMMAND: 0x20, m.COM_IEN: 0x80, m.COM_IRQ: 0x14, 0x07: 0x21, 0x0B: 0x08, m.CONTROL: 0x10, m.MODE: 0x3F,
    m.TX_CONTROL: 0x80, 0x16: 0x10, 0x17: 0x84, 0x18: 0x84, 0x19: 0x4D, 0x1C: 0x62, 0x1F: 0xEB,
    m.CRC_RESULT_H: 0xFF, m.CRC_RESULT_L: 0xFF, 0x24: 0x26, 0x26: 0x48, 0x27: 0x88, 0x28: 0x20, 0x29: 0x20,
    0x33: 0x80, 0x36: 0x40,
}
CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)  # ModeReg CRCPreset[1:0]
TX_IRQ = 0x40


def crc_with_preset(data: bytes | list[int], preset: int) -> bytes:
    """The CRC coprocessor (CalcCRC): the CRC_A polynomial from the preset ModeReg selects, low byte first."""
    crc = preset
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = ((crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)) & 0xFFFF
    return bytes([crc & 0xFF, crc >> 8])


# ISO/IEC 14443-2/-3 at 106 kbit/s: a bit is 128 carrier periods (13.56 MHz), a byte goes out as 9 bits (its parity),
# and a card answers the frame-delay time after the reader's frame ends (1236 / fc for a WUPA's ATQA, n = 9, and at
# least that for the rest: §6.2.1.1). What a stepped scan (firmware/lib/mfrc522.py) waits through.
CARRIER_HZ = 13_560_000
BIT_NS = 128 * 1_000_000_000 // CARRIER_HZ
FDT_NS = 1236 * 1_000_000_000 // CARRIER_HZ


def air_ns(frame: bytes, last_bits: int) -> int:
    """A frame's time on the air: its bits (a short frame's 7, else 9 a byte) and start and end of frame."""
    bits = last_bits if last_bits and len(frame) == 1 else 9 * len(frame)
    return (bits + 2) * BIT_NS


class FakeMfrc522:
    """An MFRC522 register file with a FIFO, the Transceive and CalcCRC commands, and one card in the field.

    SPI as §8.1.2: the address byte is ``(reg << 1)`` with bit 7 set to read; in a read every following MOSI byte
    is the next address to read (the last one 00) and MISO carries the value of the address sent one byte
    earlier; in a write every following byte goes to the same register. The card follows ISO/IEC 14443-3: REQA
    (idle cards) and WUPA (halted ones too), anticollision and SELECT per cascade level in order, HLTA; a frame
    with a bad CRC_A is ignored. :data:`IMPLEMENTED` lists the commands (CommandReg) it carries out.

    With ``now_ns`` kept up to date (the emulated Pico's clock: controller/nodes/emulated_bus.py), a Transceive
    takes its time as on the chip: the answer's RxIRq comes after the frame, the frame-delay time and the answer
    on the air, and with no answer the timer's TimerIRq (TAuto: §8.5, started at the frame's end) after its
    period, (2 * TPrescaler + 1) * (TReload + 1) / 13.56 MHz. Without it (None) every exchange is over at once."""

    IMPLEMENTED: ClassVar[dict[int, str]] = {0x00: "Idle", 0x03: "CalcCRC", 0x0C: "Transceive", 0x0F: "SoftReset"}

    def __init__(self, version: int = 0x92) -> None:
        self.version = version
        self.regs = [0] * 0x40
        self._reset()
        self.card: bytes | None = None
        self.halted = False
        self.selected = 0  # cascade levels selected since the card was woken
        self.corrupt_bcc = 0
        self.frames: list[bytes] = []
        self.unknown: list[int] = []  # CommandReg values it does not implement (it goes idle, as the chip does)
        self.now_ns: int | None = None
        # An exchange still on the air: when it ends, its ComIrqReg bits and the FIFO it leaves.
        self._pending: tuple[int, int, list[int]] | None = None

    def _reset(self) -> None:
        self.regs = [0] * 0x40
        for reg, value in RESET_VALUES.items():
            self.regs[reg] = value
        self.regs[m.VERSION] = self.version
        self.fifo: list[int] = []

    def xfer(self, data: list[int]) -> list[int]:
        address = data[0]
        if address & 0x80:
            return [0] + [self._read((a >> 1) & 0x3F) for a in data[:-1]]
        reg = (address >> 1) & 0x3F
        for value in data[1:]:
            self._write(reg, value)
        return [0] * len(data)

    def _settle(self) -> None:
        """An exchange on the air whose time has come is over: its interrupt bits set, its answer in the FIFO."""
        pending = self._pending
        if pending is not None and (self.now_ns is None or self.now_ns >= pending[0]):
            self._pending = None
            self.regs[m.COM_IRQ] |= pending[1]
            self.fifo = pending[2]

    def _timer_ns(self) -> int | None:
        """The timer's period when it starts by itself at a frame's end (TModeReg's TAuto), else None."""
        if not self.regs[m.T_MODE] & 0x80:
            return None
        prescaler = (self.regs[m.T_MODE] & 0x0F) << 8 | self.regs[m.T_PRESCALER]
        reload = self.regs[m.T_RELOAD_H] << 8 | self.regs[m.T_RELOAD_L]
        return (2 * prescaler + 1) * (reload + 1) * 1_000_000_000 // CARRIER_HZ

    def _read(self, reg: int) -> int:
        self._settle()
        if reg == m.FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == m.FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg: int, value: int) -> None:
        if reg == m.COMMAND and value & 0x0F == 0:
            self._pending = None  # Idle ends an exchange on the air (its answer, if any, is not kept)
        self._settle()
        if reg == m.FIFO_DATA:
            if len(self.fifo) < 64:
                self.fifo.append(value)
            else:
                self.regs[m.ERROR] |= 0x10  # BufferOvfl
        elif reg == m.FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                self.regs[m.ERROR] &= ~0x10
        elif reg in (m.COM_IRQ, m.DIV_IRQ):  # bit 7 (Set1/Set2): 1 sets the marked bits, 0 clears them
            mask = value & 0x7F
            self.regs[reg] = self.regs[reg] | mask if value & 0x80 else self.regs[reg] & ~mask
        elif reg == m.COMMAND:
            self._command(value)
        elif reg == m.BIT_FRAMING:
            self.regs[reg] = value
            if value & 0x80 and self.regs[m.COMMAND] & 0x0F == m.TRANSCEIVE:
                self._transceive(value & 0x07)
        elif reg not in (m.VERSION, m.ERROR, 0x07, 0x08, m.CRC_RESULT_H, m.CRC_RESULT_L):  # read-only ones
            self.regs[reg] = value

    def _command(self, value: int) -> None:
        command = value & 0x0F
        self.regs[m.COMMAND] = value & 0x30 | command
        if command == m.SOFT_RESET:
            self._reset()
        elif command == m.CALC_CRC:
            preset = CRC_PRESETS[self.regs[m.MODE] & 0x03]
            crc = crc_with_preset(self.fifo, preset)
            self.fifo.clear()
            self.regs[m.CRC_RESULT_L], self.regs[m.CRC_RESULT_H] = crc[0], crc[1]
            self.regs[m.DIV_IRQ] |= m.CRC_IRQ
        elif command not in self.IMPLEMENTED:
            self.unknown.append(command)
            self.regs[m.COMMAND] = value & 0x30  # an unknown command: back to Idle with IdleIRq (ComIrqReg, §9.3)
            self.regs[m.COM_IRQ] |= m.IDLE_IRQ

    def _transceive(self, last_bits: int) -> None:
        frame = bytes(self.fifo)
        self.fifo.clear()
        self.frames.append(frame)
        answer = self._card_answer(frame, last_bits)
        self.regs[m.ERROR] = 0
        self.regs[m.CONTROL] = self.regs[m.CONTROL] & ~0x07  # RxLastBits 0: whole bytes received
        if self.now_ns is not None:  # on the air: over later (_settle)
            sent = self.now_ns + air_ns(frame, last_bits)
            if answer is not None:
                self._pending = (sent + FDT_NS + air_ns(answer, 0), TX_IRQ | m.RX_IRQ, list(answer))
                return
            timer = self._timer_ns()
            if timer is not None:
                self._pending = (sent + timer, TX_IRQ | m.TIMER_IRQ, [])
            return  # (no timer: nothing ends the exchange but the next command)
        if answer is None:  # sent, nobody answered: the timer runs out (TAuto)
            self.regs[m.COM_IRQ] |= TX_IRQ | m.TIMER_IRQ
            return
        self.fifo = list(answer)
        self.regs[m.COM_IRQ] |= TX_IRQ | m.RX_IRQ

    def _levels(self, uid: bytes) -> list[bytes]:
        if len(uid) == 4:
            return [uid]
        if len(uid) == 7:
            return [bytes([m.CASCADE_TAG]) + uid[:3], uid[3:]]
        return [bytes([m.CASCADE_TAG]) + uid[:3], bytes([m.CASCADE_TAG]) + uid[3:6], uid[6:]]

    def _card_answer(self, frame: bytes, last_bits: int) -> bytes | None:
        uid = self.card
        if uid is None or not self.regs[m.TX_CONTROL] & 0x03:
            return None  # no card, or the antenna is off
        levels = self._levels(uid)
        if last_bits == 7 and (frame == bytes([m.WUPA]) or (frame == b"\x26" and not self.halted)):
            self.halted = False
            self.selected = 0
            return bytes([(0x04, 0x44, 0x84)[len(levels) - 1], 0x00])  # ATQA: bits 7-6 give the UID size
        if self.halted or not frame:
            return None
        if len(frame) > 2 and m.crc_a(frame[:-2]) != frame[-2:]:
            return None  # a card ignores frames with a bad CRC
        if len(frame) == 4 and frame[0] == m.HLTA:
            self.halted = True
            return None
        if frame[0] not in m.CASCADE:
            return None
        level = m.CASCADE.index(frame[0])
        if level != self.selected or level >= len(levels):
            return None  # not this level's turn: a real card stays silent
        part = levels[level]
        if len(frame) == 2 and frame[1] == 0x20:
            bcc = part[0] ^ part[1] ^ part[2] ^ part[3]
            if self.corrupt_bcc:
                self.corrupt_bcc -= 1
                bcc ^= 0x01
            return part + bytes([bcc])
        if len(frame) == 9 and frame[1] == 0x70 and frame[2:6] == part:
            self.selected += 1
            # UID not complete; else MIFARE Classic 1K (4-byte UID) or NTAG21x
            sak = 0x04 if self.selected < len(levels) else (0x08 if len(uid) == 4 else 0x00)
            return bytes([sak]) + m.crc_a([sak])
        return None
