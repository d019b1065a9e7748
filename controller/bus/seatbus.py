"""The seat bus wire format, shared byte for byte by the Pi and the seat nodes.

This one file runs on CPython 3.11 (the controller) and on MicroPython (the RP2040 seat node), so it keeps to the
subset both have: no dataclasses, no typing at run time, no f-strings with ``=``, only bytes / bytearray /
memoryview, ``struct``, ``binascii.crc32`` and ``hashlib.sha256``. The canonical copy lives inside the controller package (so a
pip-installed ``tianhei`` has it); ``firmware/lib/seatbus.py`` is a symbolic link to it, which ``mpremote cp``
follows when it copies the file onto a node. firmware/PROTOCOL.md is the prose description of what is here.

Frame (all integers big-endian)::

    SYNC 0x7E | LEN | ADDR | SEQ | TYPE | PAYLOAD (LEN bytes) | CRC32 (4 bytes)

CRC32 is the CRC-32 of zlib, Ethernet and PNG (ISO-HDLC: reflected polynomial 0xEDB88320, initial and final xor
0xFFFFFFFF) over LEN..PAYLOAD, as ``binascii.crc32`` computes it on both interpreters. It replaced CRC-16 in
protocol version 2: with no byte stuffing a receiver tries a CRC at every 0x7E in the noise, and CRC-16's
1-in-65536 miss let a fuzzed stream through now and then; CRC-32 makes that 1 in 4 billion for two more bytes.
ADDR is the node address (1..126); bit 0x80 is set on frames a node sends, so the master never mistakes the echo
of its own frame, or another frame, for a reply. 0x7E may also occur inside a frame (there is no byte stuffing);
the decoder checks the header against the message table and the CRC, and on any failure drops only the sync byte
and looks again from the next 0x7E, so one bad byte costs at most the frame it hit.
"""

import hashlib
import struct

try:
    from binascii import crc32 as _binascii_crc32
except ImportError:  # a MicroPython build without binascii.crc32: the table below does the same
    _binascii_crc32 = None  # type: ignore[assignment]

PROTOCOL_VERSION = 2  # 2: CRC-32 instead of CRC-16

SYNC = 0x7E
HEADER_LEN = 5  # SYNC LEN ADDR SEQ TYPE
CRC_LEN = 4
OVERHEAD = HEADER_LEN + CRC_LEN
MAX_PAYLOAD = 240
FROM_NODE = 0x80
BROADCAST = 0x7F
MAX_ADDRESS = 126

# --- message types: host -> node -------------------------------------------------------------------------
IDENTIFY = 0x01  # empty; the node answers IDENTITY and (re)starts its session
POLL = 0x02  # u16 ack: every event with seq <= ack has been applied by the host
POLL_ALL = 0x03  # to BROADCAST: slot_us u16 | roll u8 | n u8 [| lead_us u16] | n addresses | (addr, ack u16)...
LISTEN = 0x04  # to BROADCAST: a long window of rounds of slots (encode_listen)
WINDOW_ACKS = 0x05  # to BROADCAST, in a LISTEN window's master slot, with its SEQ: (addr, ack u16)... (0.9.9)
SET_LED = 0x10  # r g b
DISPLAY = 0x11  # page col data... : write data at (page, col) in SSD1306 horizontal order
DISPLAY_CMD = 0x12  # raw SSD1306 command bytes (contrast, on/off), never addressing commands
RESET = 0x13  # u8 magic 0xA5: the node acks, then resets itself
DISPLAY_RLE = 0x14  # offset u16 | op stream: the changed bytes of the screen, run-length coded (see encode_rle)
STAGE = 0x15  # to BROADCAST: stage u8 | part u8 | parts u8 | n u8 | n addresses | offset u16 | op stream
DISPLAY_STAGED = 0x16  # stage u8 | stage CRC32 u32 | offset u16 | op stream: the stage, changed, is the screen

# --- message types: node -> host -------------------------------------------------------------------------
IDENTITY = 0x81  # proto u8, fw major/minor/patch u8 x3, caps u16, reset cause u8, role u8, boot u16
EVENTS = 0x82  # reply to POLL: count u8, then events (see encode_events)
ACK = 0x83  # a command frame with this SEQ was applied (or had been already)
NAK = 0x84  # code u8: the command was refused
AUTH = 0x85  # authenticated reply of a remote: counter u32 | inner type u8 | inner payload | mac 8

HOST_TYPES = (IDENTIFY, POLL, POLL_ALL, LISTEN, WINDOW_ACKS, SET_LED, DISPLAY, DISPLAY_CMD, RESET, DISPLAY_RLE, STAGE,
              DISPLAY_STAGED)
NODE_TYPES = (IDENTITY, EVENTS, ACK, NAK, AUTH)
BROADCAST_ONLY = (POLL_ALL, LISTEN, WINDOW_ACKS, STAGE)  # to every node or not a frame
COMMAND_TYPES = (SET_LED, DISPLAY, DISPLAY_CMD, RESET, DISPLAY_RLE, DISPLAY_STAGED)
# A command's type with this bit set is a *quiet* command (firmware 0.8, CAP_QUIET): the node applies it as the
# plain one and does not answer it now; it confirms it (an ACK or NAK with the command's SEQ) in its slot of the
# next LISTEN window, so the master sends the commands of a busy moment back to back and every seat keeps its slots
# meanwhile (firmware/PROTOCOL.md, "Quiet commands").
QUIET = 0x40
QUIET_TYPES = (SET_LED, DISPLAY, DISPLAY_CMD, DISPLAY_RLE, DISPLAY_STAGED)

#: Allowed payload lengths (min, max) per type; a header outside them is not a frame.
PAYLOAD_LIMITS = {
    IDENTIFY: (0, 0),
    POLL: (2, 2),
    POLL_ALL: (4, MAX_PAYLOAD),
    LISTEN: (9, MAX_PAYLOAD),
    WINDOW_ACKS: (3, MAX_PAYLOAD),
    SET_LED: (3, 3),
    DISPLAY: (3, 130),
    DISPLAY_CMD: (1, 32),
    RESET: (1, 1),
    DISPLAY_RLE: (3, MAX_PAYLOAD),
    STAGE: (7, MAX_PAYLOAD),
    DISPLAY_STAGED: (7, MAX_PAYLOAD),
    SET_LED | QUIET: (3, 3),
    DISPLAY | QUIET: (3, 130),
    DISPLAY_CMD | QUIET: (1, 32),
    DISPLAY_RLE | QUIET: (3, MAX_PAYLOAD),
    DISPLAY_STAGED | QUIET: (7, MAX_PAYLOAD),
    IDENTITY: (11, 11),
    EVENTS: (1, MAX_PAYLOAD),
    ACK: (0, 0),
    NAK: (1, 1),
    AUTH: (14, MAX_PAYLOAD),
}

RESET_MAGIC = 0xA5

# --- NAK codes ---------------------------------------------------------------------------------------------
NAK_UNSUPPORTED = 1  # this node has no such capability (a display command to a node without a screen)
NAK_BAD_PAYLOAD = 2
NAK_NOT_IDENTIFIED = 3  # a command before IDENTIFY in this session
NAK_POLL_ME = 4  # (in a POLL_ALL slot) I have an event too long for the slot: poll me by name
NAK_NO_STAGE = 5  # DISPLAY_STAGED names a stage this node does not hold whole: send the screen another way

# --- capabilities (IDENTITY caps bit mask) -------------------------------------------------------------
CAP_BUTTONS = 0x0001  # three seat buttons: PREV NEXT OK
CAP_LED = 0x0002  # RGB LED
CAP_DISPLAY = 0x0004  # 128x64 SSD1306
CAP_NFC = 0x0008  # card reader
CAP_KEYS5 = 0x0010  # 5-way switch plus MENU / BACK (remote)
CAP_AUTH = 0x0020  # replies are sealed with AUTH (remote)
CAP_WATCHDOG = 0x0040
CAP_DISPLAY_RLE = 0x0080  # understands DISPLAY_RLE (firmware 0.3)
CAP_POLL_ALL = 0x0100  # answers POLL_ALL in its slot (firmware 0.3)
CAP_LISTEN = 0x0200  # answers in its slot of any round of a LISTEN (firmware 0.4)
CAP_STAGE = 0x0400  # keeps a STAGE picture and shows it with DISPLAY_STAGED (firmware 0.5)
CAP_SLOT_TIMED = 0x0800  # times its slots from the frame's end on the line, not from its loop's read (firmware 0.6)
CAP_SLOT_EXACT = 0x1000  # starts its slotted answer within a few µs of the slot: POLL_ALL_SHORT_GUARD_US (fw 0.7)
CAP_QUIET = 0x2000  # takes quiet commands (QUIET) and confirms them in its LISTEN slot (firmware 0.8)
CAP_POLL_LEAD = 0x4000  # takes a POLL_ALL whose slots begin lead_us after its end (POLL_ALL_LEAD, firmware 0.9)
CAP_WINDOW_ACKS = 0x8000  # keeps its LISTEN window through the host's WINDOW_ACKS in a master slot (firmware 0.9.9)
# The sixteen bits above are all taken: IDENTITY's last byte, reserved (0) until firmware 0.9.11, holds bits 16-23.
# Takes a LISTEN whose window begins after_us after either copy, a lead, and asks for one: it is on its own chip,
# whose interpreted loop needs LISTEN_LEAD_US to take a LISTEN (firmware 0.9.11; it takes a lead without asking too).
CAP_LISTEN_LEAD = 0x10000
# ...and takes one within LISTEN_QUICK_LEAD_US (firmware 0.9.15: its slot path shorter, its card scan stepped).
CAP_QUICK_LEAD = 0x20000

ROLE_SEAT = 1
ROLE_REMOTE = 2

# --- reset causes (IDENTITY), mirroring machine.reset_cause() ------------------------------------------
RESET_POWER_ON = 1
RESET_WATCHDOG = 2
RESET_SOFT = 3  # RESET command or machine.reset()
RESET_OTHER = 4

# --- events ----------------------------------------------------------------------------------------------
EV_PRESS = 1  # data: button/key id u8
EV_RELEASE = 2  # data: button/key id u8
EV_CARD = 3  # data: card UID (4, 7 or 10 bytes)
EV_CARD_GONE = 4  # data: card UID
EV_OVERFLOW = 5  # data: u8 number of events the node had to drop (its queue was full)
EV_AUTH_FAIL = 6  # (host-side only) an AUTH frame failed its MAC or counter check

BTN_PREV = 1
BTN_NEXT = 2
BTN_OK = 3
KEY_UP = 11
KEY_DOWN = 12
KEY_LEFT = 13
KEY_RIGHT = 14
KEY_CENTER = 15
KEY_MENU = 16
KEY_BACK = 17

MAC_LEN = 8  # HMAC-SHA256 truncated to 64 bits
AUTH_BLOCK = 1 << 16  # AUTH counters are reserved (remote) and remembered (host) in blocks of this many


def _make_crc_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC_TABLE = None


def crc32_table(data, crc=0):
    """The same CRC-32 as binascii.crc32, byte by byte; for a firmware build that lacks binascii.crc32."""
    global _CRC_TABLE
    if _CRC_TABLE is None:
        _CRC_TABLE = _make_crc_table()
    table = _CRC_TABLE
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def crc32(data, start=0, end=None):
    """CRC-32 (zlib's) of data[start:end]; the check value of b"123456789" is 0xCBF43926."""
    if end is None:
        end = len(data)
    view = memoryview(data)[start:end]
    if _binascii_crc32 is None:
        return crc32_table(view)
    return _binascii_crc32(view) & 0xFFFFFFFF


class FrameError(ValueError):
    """A frame could not be built, or a payload did not parse; the message says which and why."""


class Frame:
    """One decoded frame. ``addr`` is the node address without the direction bit."""

    def __init__(self, addr, seq, mtype, payload=b"", from_node=False):
        self.addr = addr
        self.seq = seq
        self.mtype = mtype
        self.payload = bytes(payload)
        self.from_node = from_node

    def encode(self):
        return encode_frame(self.addr, self.seq, self.mtype, self.payload, self.from_node)

    def __eq__(self, other):
        return (
            isinstance(other, Frame)
            and self.addr == other.addr
            and self.seq == other.seq
            and self.mtype == other.mtype
            and self.payload == other.payload
            and self.from_node == other.from_node
        )

    def __hash__(self):
        return hash((self.addr, self.seq, self.mtype, self.payload, self.from_node))

    def __repr__(self):
        return (
            f"Frame(addr={self.addr}, seq={self.seq}, type=0x{self.mtype:02x}, "
            f"payload={self.payload!r}, from_node={self.from_node})"
        )


def _header_ok(length, addr_byte, mtype):
    limits = PAYLOAD_LIMITS.get(mtype)
    if limits is None or length < limits[0] or length > limits[1]:
        return False
    from_node = bool(addr_byte & FROM_NODE)
    if from_node != (mtype >= 0x80):
        return False
    addr = addr_byte & 0x7F
    if addr == 0:
        return False
    if mtype in BROADCAST_ONLY:
        return addr == BROADCAST  # it is for every node or it is not a frame
    return not (addr == BROADCAST and (from_node or mtype != IDENTIFY))


def encode_frame(addr, seq, mtype, payload=b"", from_node=False):
    """The bytes of one frame; raises FrameError naming the field that is out of range."""
    if not 1 <= addr <= BROADCAST:
        raise FrameError(f"address {addr!r} is outside 1..127")
    if not 0 <= seq <= 255:
        raise FrameError(f"sequence number {seq!r} is outside 0..255")
    addr_byte = addr | (FROM_NODE if from_node else 0)
    if not _header_ok(len(payload), addr_byte, mtype):
        raise FrameError(
            f"message type 0x{mtype:02x} with a {len(payload)}-byte payload is not allowed "
            f"{'from' if from_node else 'to'} address {addr}"
        )
    out = bytearray(OVERHEAD + len(payload))
    out[0] = SYNC
    out[1] = len(payload)
    out[2] = addr_byte
    out[3] = seq
    out[4] = mtype
    out[5 : 5 + len(payload)] = payload
    end = 5 + len(payload)
    out[end : end + CRC_LEN] = struct.pack(">I", crc32(out, 1, end))
    return bytes(out)


class Decoder:
    """A streaming frame decoder: feed it bytes as they arrive, get back whole, valid frames.

    Garbage, a bad header or a bad CRC costs only the sync byte it started at: the search goes on from the
    next 0x7E, so a good frame right behind garbage is never lost. ``idle()`` tells the decoder that the line
    went quiet, so a candidate frame still waiting for bytes can never complete: it is dropped and the rest of
    the buffer searched again (a stray 0x7E followed by a plausible length must not hide the real frame after
    it). Counters ``frames``, ``crc_errors`` and ``dropped_bytes`` are for the figures.
    """

    def __init__(self):
        self._buf = bytearray()
        self.frames = 0
        self.crc_errors = 0
        self.dropped_bytes = 0

    def pending(self):
        return len(self._buf)

    def feed(self, data):
        if data:
            self._buf.extend(data)
        return self._scan()

    def idle(self):
        """The line went quiet: whatever waits at the front is not a frame. Returns frames found behind it."""
        frames = []
        while self._buf:
            if self._buf[0] == SYNC:
                self._drop(1)
            frames.extend(self._scan())
            if self._buf and self._buf[0] != SYNC:
                self._drop(len(self._buf))
        return frames

    def _drop(self, n):
        self.dropped_bytes += n
        self._buf = self._buf[n:]

    def _scan(self):
        frames = []
        buf = self._buf
        pos = 0
        n = len(buf)
        while True:
            start = buf.find(b"\x7e", pos)
            if start < 0:
                self.dropped_bytes += n - pos
                pos = n
                break
            self.dropped_bytes += start - pos
            pos = start
            if n - start < HEADER_LEN:
                break
            length = buf[start + 1]
            if not _header_ok(length, buf[start + 2], buf[start + 4]):
                self.dropped_bytes += 1
                pos = start + 1
                continue
            end = start + HEADER_LEN + length
            if n < end + CRC_LEN:
                break
            if crc32(buf, start + 1, end) != struct.unpack(">I", buf[end : end + CRC_LEN])[0]:
                self.crc_errors += 1
                self.dropped_bytes += 1
                pos = start + 1
                continue
            addr_byte = buf[start + 2]
            frames.append(
                Frame(
                    addr_byte & 0x7F,
                    buf[start + 3],
                    buf[start + 4],
                    bytes(buf[start + HEADER_LEN : end]),
                    bool(addr_byte & FROM_NODE),
                )
            )
            self.frames += 1
            pos = end + CRC_LEN
        if pos:
            self._buf = buf[pos:]
        return frames


# --- payloads ------------------------------------------------------------------------------------------


def encode_poll(ack):
    return struct.pack(">H", ack & 0xFFFF)


def decode_poll(payload):
    return struct.unpack(">H", payload)[0]


# --- POLL_ALL: one frame polls the whole table -------------------------------------------------------------
# Polling 16 nodes one by one costs the host 16 exchanges a cycle, hundreds of system calls a second while nobody
# presses anything. POLL_ALL goes to every node at once; only a node with news answers, in its own time slot (its
# index in the list times ``slot_us``, counted from when it read the frame), so a quiet table costs one frame and
# one silent wait a cycle. The acks of the events the host applied since the last POLL_ALL ride along. A node
# answers with EVENTS (the POLL_ALL's SEQ), as many events as fit in ``slot_us`` less POLL_ALL_GUARD_US at its
# baud, the oldest first; the rest go in later cycles. The node named ``roll`` answers even with nothing to say
# (an empty EVENTS, or NAK "not identified" if it rebooted and has no session), so the host hears every node now
# and then and notices one that has gone. The host puts that node in the last slot, so that its answer, which
# wakes the host, comes when the window is over anyway.

# The guard is what a slot keeps silent after its longest answer: the spread of the nodes' slot timing and the
# line's turnaround. firmware/PROTOCOL.md, "Slot timing", has the measurement behind the figure (a shorter guard
# garbled neighbours' answers on the emulated chip).
POLL_ALL_GUARD_US = 80  # of each slot left silent: the nodes' slot timing spread and the line's turnaround
# ...while every node in the window says CAP_SLOT_EXACT (its wait and first byte in machine code, firmware 0.7):
POLL_ALL_SHORT_GUARD_US = 40
POLL_ALL_SLOT_BYTES = 17  # a slot holds an EVENTS frame with one press (the next one goes in the next cycle)
# A node on its own chip needs time to take a POLL_ALL before it can answer in a slot: an idle emulated Pico about
# 1.0-1.3 ms after the frame's end (its loop coming round, the frame's search and CRC, the slot's answer stamped),
# so the first slots of a POLL_ALL timed from its end went by unanswered (at 4 seats, every one; firmware/
# PROTOCOL.md, "POLL_ALL's lead"). The n byte's top bit says a lead_us u16 follows it: slot i then begins
# lead_us + i * slot_us after the frame. Sent only while every node in the POLL_ALL says CAP_POLL_LEAD.
POLL_ALL_LEAD = 0x80
POLL_ALL_LEAD_US = 1500


def poll_all_slot_us(baud, guard_us=POLL_ALL_GUARD_US):
    """The slot length the host asks for at ``baud``: POLL_ALL_SLOT_BYTES on the wire plus the guard."""
    return (POLL_ALL_SLOT_BYTES * 10 * 1000000 + baud - 1) // baud + guard_us


def _with_slots(name, head, addresses, acks):
    """A slotted poll's payload (POLL_ALL, LISTEN): ``head`` (which ends with the count of addresses), the
    addresses in slot order, then (address, ack) pairs; it must fit in one frame."""
    out = head + bytes(addresses)
    for addr, ack in acks:
        out += struct.pack(">BH", addr, ack)
    if len(out) > MAX_PAYLOAD:
        raise FrameError(f"{name} for {len(addresses)} nodes and {len(acks)} acks does not fit in one frame")
    return out


def _slots_of(name, payload, start, n, ok=True):
    """(addresses, {address: ack}) of a slotted poll's payload whose head is ``start`` bytes long."""
    if not ok or start + n > len(payload) or (len(payload) - start - n) % 3:
        raise FrameError(f"{name} payload of {len(payload)} bytes does not hold {n} addresses and whole acks")
    acks = {}
    for i in range(start + n, len(payload), 3):
        addr, ack = struct.unpack(">BH", payload[i : i + 3])
        acks[addr] = ack
    return bytes(payload[start : start + n]), acks


def encode_poll_all(slot_us, roll, addresses, acks, lead_us=0):
    """``addresses`` in slot order; ``roll``: the address that must answer (0: none); ``acks``: (address, ack)
    pairs; ``lead_us``: the first slot begins this long after the frame's end (0: at once, as before 0.9)."""
    if lead_us:
        head = struct.pack(">HBBH", slot_us, roll, len(addresses) | POLL_ALL_LEAD, lead_us)
    else:
        head = struct.pack(">HBB", slot_us, roll, len(addresses))
    return _with_slots("POLL_ALL", head, addresses, acks)


def decode_poll_all(payload):
    """(slot_us, roll, addresses, {address: ack}, lead_us)."""
    if len(payload) < 4:
        raise FrameError(f"POLL_ALL payload of {len(payload)} bytes is too short")
    slot_us, roll, n = struct.unpack(">HBB", payload[:4])
    start, lead_us = 4, 0
    if n & POLL_ALL_LEAD:
        if len(payload) < 6:
            raise FrameError("POLL_ALL with a lead has no room for it")
        n ^= POLL_ALL_LEAD
        lead_us = struct.unpack(">H", payload[4:6])[0]
        start = 6
    addresses, acks = _slots_of("POLL_ALL", payload, start, n)
    return slot_us, roll, addresses, acks, lead_us


# --- LISTEN: the whole table listened to for a long window ---------------------------------------------------
# POLL_ALL still wakes the host about a hundred times a second while nobody touches anything, and on a small
# computer every wake-up costs CPU of its own. LISTEN opens a window of ``rounds`` rounds: each round is the
# listed nodes' slots, ``slot_us`` each, then a master slot of ``gap_us``, all counted from when the node read the
# LISTEN. A node with news (or a node that rebooted) answers in its own slot of the next round it can reach, and
# again each round until the host says something; the node named ``roll`` answers in the last round whatever it
# has. The host talks only in a master slot, and any frame from the host (or any byte heard in a master slot)
# ends the window for every node: so the host sleeps in one read until an answer comes or the window is over,
# and still gets a press within one round and a command out within one round. A node that lost the LISTEN to
# noise could say nothing for a whole window, so the host sends it twice, back to back, with the same SEQ: the
# window begins when the second copy ends, which the first says (``after_us``: the second's wire time), and a node
# already in that window ignores the second.
#
# A node on its own chip needs 1.35 ms and more after a LISTEN before it can answer in a slot, so a window's first
# slots went by unanswered: at 16 seats those of the first eleven seats, whose next chance was the second round, a
# round and a master slot later (firmware/PROTOCOL.md, "A LISTEN's lead"). While every node in the window says
# CAP_LISTEN_LEAD (firmware 0.9.11 on its own chip) the window begins LISTEN_LEAD_US after the second copy's end:
# the first copy's ``after_us`` is the second's wire time and the lead, the second's the lead.

LISTEN_GAP_US = 1000  # the master slot at the end of each round (the host's timing, USB latency included)
LISTEN_WATCH_FROM_US = 50  # a node waiting across a master slot listens from here...
LISTEN_WATCH_TO_US = 100  # ...to this long before the master slot ends: any byte in between is the host talking
LISTEN_AIM_US = 300  # the host starts its frame this far into a master slot
LISTEN_SPAN_US = 100000  # how long a LISTEN window lasts, about (a whole number of rounds)
LISTEN_NOISY_SPAN_US = 10000  # ...on a line that garbled or lost a frame lately (a lost LISTEN costs its window)
LISTEN_LEAD_US = 2000  # the window begins this long after the LISTEN's second copy (CAP_LISTEN_LEAD)
LISTEN_QUICK_LEAD_US = 1500  # ...this long while every node says CAP_QUICK_LEAD (firmware 0.9.15)


def listen_gap_us(baud):
    """The master slot at ``baud``: LISTEN_GAP_US, and room for the host's first two bytes at slow speeds."""
    return LISTEN_GAP_US + (20 * 1000000 + baud - 1) // baud


def encode_listen(slot_us, gap_us, rounds, roll, addresses, acks, after_us=0):
    """``addresses`` in slot order; ``rounds`` (1..255) of len(addresses) slots and a master slot; ``roll``: the
    address that answers in the last round whatever it has (0: none); ``acks``: (address, ack) pairs;
    ``after_us``: the window begins this long after this frame ends (the first of a LISTEN's two copies)."""
    if not 1 <= rounds <= 255:
        raise FrameError(f"LISTEN of {rounds} rounds: 1..255")
    head = struct.pack(">HHBBHB", slot_us, gap_us, rounds, roll, after_us, len(addresses))
    return _with_slots("LISTEN", head, addresses, acks)


def decode_listen(payload):
    """(slot_us, gap_us, rounds, roll, after_us, addresses, {address: ack})."""
    if len(payload) < 9:
        raise FrameError(f"LISTEN payload of {len(payload)} bytes is too short")
    slot_us, gap_us, rounds, roll, after_us, n = struct.unpack(">HHBBHB", payload[:9])
    addresses, acks = _slots_of("LISTEN", payload, 9, n, ok=rounds >= 1)
    return slot_us, gap_us, rounds, roll, after_us, addresses, acks


# --- WINDOW_ACKS: news acknowledged without ending the window (firmware 0.9.9) --------------------------------
# A LISTEN window used to end at the first master slot after any news, because the host acks in its next LISTEN:
# with fingers on the table a new window began every 5-6 ms, and a press that came near the end of one waited for
# the new LISTEN, a Pico's 1.2 ms to take it and its 1 ms path to the wait: round 2 of the new window, the quiet
# table's whole tail over 5 ms (firmware/PROTOCOL.md, "Where the quiet table's tail is"). While every node in the
# window says CAP_WINDOW_ACKS (and the master is told to: BusMaster.acks_in_windows, off), the host acks in the
# master slot instead, with the window's SEQ, and the window goes on. A node whose wait heard it lost that round's
# slot (it cannot tell the acks from a new LISTEN until it has read them) and answers in a later round of the same
# window: with every seat pressing that cost more than it saved (PROTOCOL.md, "Acks inside the window").

def encode_window_acks(acks):
    """``acks``: (address, ack) pairs, at least one."""
    if not acks:
        raise FrameError("WINDOW_ACKS with no ack")
    return _with_slots("WINDOW_ACKS", b"", [], acks)


def decode_window_acks(payload):
    """{address: ack}."""
    return _slots_of("WINDOW_ACKS", payload, 0, 0, ok=len(payload) >= 3)[1]


def encode_identity(fw_version, caps, reset_cause, role, boot, proto=PROTOCOL_VERSION):
    """Capabilities 16-23 (CAP_LISTEN_LEAD ...) go in the last byte, which firmware before 0.9.11 sends as 0."""
    return struct.pack(
        ">BBBBHBBHB", proto, fw_version[0], fw_version[1], fw_version[2], caps & 0xFFFF, reset_cause, role, boot,
        caps >> 16 & 0xFF
    )


def decode_identity(payload):
    """A dict with proto, fw (tuple), caps, reset_cause, role, boot."""
    if len(payload) != 11:
        raise FrameError(f"IDENTITY payload has {len(payload)} bytes, expected 11")
    proto, major, minor, patch, caps, cause, role, boot, more_caps = struct.unpack(">BBBBHBBHB", payload)
    return {
        "proto": proto,
        "fw": (major, minor, patch),
        "caps": caps | more_caps << 16,
        "reset_cause": cause,
        "role": role,
        "boot": boot,
    }


def encode_event(seq, kind, age_ms, data):
    """One event: seq u16 | kind u8 | age_ms u16 (how long ago it happened) | len u8 | data."""
    if age_ms > 0xFFFF:
        age_ms = 0xFFFF
    return struct.pack(">HBHB", seq & 0xFFFF, kind, age_ms, len(data)) + bytes(data)


def encode_events(events):
    """EVENTS payload from a list of already encoded events (see encode_event)."""
    out = bytearray([len(events)])
    for ev in events:
        out.extend(ev)
    return bytes(out)


def decode_events(payload):
    """List of (seq, kind, age_ms, data) tuples; FrameError if the payload does not add up."""
    if not payload:
        raise FrameError("EVENTS payload is empty")
    count = payload[0]
    pos = 1
    events = []
    for i in range(count):
        if pos + 6 > len(payload):
            raise FrameError(f"EVENTS payload ends inside event {i + 1} of {count}")
        seq, kind, age, dlen = struct.unpack(">HBHB", payload[pos : pos + 6])
        pos += 6
        if pos + dlen > len(payload):
            raise FrameError(f"EVENTS payload ends inside the data of event {i + 1}")
        events.append((seq, kind, age, bytes(payload[pos : pos + dlen])))
        pos += dlen
    if pos != len(payload):
        raise FrameError(f"EVENTS payload has {len(payload) - pos} bytes left over")
    return events


def encode_display(page, col, data):
    if len(data) > PAYLOAD_LIMITS[DISPLAY][1] - 3:
        raise FrameError(f"display write of {len(data)} bytes: one frame carries at most 127, split it")
    if not 0 <= page < 8 or not 0 <= col < 128 or col + len(data) > 128 or not data:
        raise FrameError(f"display write page {page} col {col} len {len(data)} is off the 128x64 screen")
    return bytes([page, col, 0]) + bytes(data)


def decode_display(payload):
    page, col = payload[0], payload[1]
    data = payload[3:]
    if page >= 8 or col + len(data) > 128:
        raise FrameError(f"display write page {page} col {col} len {len(data)} is off the 128x64 screen")
    return page, col, data


# --- run-length coded screen writes (DISPLAY_RLE) -----------------------------------------------------------
# A 128x64 one-bit screen is 1024 bytes (8 pages of 128 columns, SSD1306 horizontal order, so byte i is page
# i // 128, column i % 128) and most of it is dark: a table-wide change (nightfall, a death) sent byte for byte
# kept the bus busy for a quarter of a second. DISPLAY_RLE carries only what changed, as a stream of ops that
# move a write position through the screen from the frame's ``offset``:
#   0x00..0x7F  literal: the next (op + 1) bytes are written as they are (1..128)
#   0x80..0xBF  repeat:  the next byte is written n times
#   0xC0..0xFF  skip:    n bytes are left as they are
# For repeat and skip, n is (op & 0x3F) + RLE_MIN[kind], or, when op & 0x3F is 0x3F, 0x3F + RLE_MIN + the
# following byte (a long run: up to 318 or 319). Decoding is a handful of slice assignments per op, which
# MicroPython does in C.

SCREEN_BYTES = 1024
RLE_REPEAT_MIN = 2
RLE_SKIP_MIN = 1
RLE_STREAM_MAX = MAX_PAYLOAD - 2


def decode_rle_into(fb, offset, stream):
    """Apply one DISPLAY_RLE stream to the 1024-byte buffer ``fb`` from ``offset``; return the range
    [lo, hi) of bytes it wrote (lo == hi: nothing). Raise FrameError (leaving ``fb`` as it was) if the stream is
    cut short or runs off the screen."""
    ops = _rle_ops(offset, stream)
    lo = hi = -1
    for pos, kind, arg, n in ops:
        if kind == 0:
            fb[pos : pos + n] = stream[arg : arg + n]
        elif kind == 1:
            fb[pos : pos + n] = bytes((arg,)) * n
        else:
            continue
        if lo < 0:
            lo = pos
        hi = pos + n
    if lo < 0:
        return 0, 0
    return lo, hi


def _rle_ops(offset, stream):
    """The ops of a stream as (position, kind 0 literal / 1 repeat / 2 skip, data start or byte, count),
    checked whole before anything is written."""
    if not 0 <= offset < SCREEN_BYTES:
        raise FrameError(f"DISPLAY_RLE offset {offset} is off the screen")
    ops = []
    pos = offset
    i = 0
    end = len(stream)
    while i < end:
        op = stream[i]
        i += 1
        if op < 0x80:
            n = op + 1
            if i + n > end:
                raise FrameError(f"DISPLAY_RLE literal of {n} bytes is cut short")
            ops.append((pos, 0, i, n))
            i += n
        else:
            n = op & 0x3F
            base = RLE_REPEAT_MIN if op < 0xC0 else RLE_SKIP_MIN
            if n == 0x3F:
                if i >= end:
                    raise FrameError("DISPLAY_RLE long run is cut short")
                n += stream[i]
                i += 1
            n += base
            if op < 0xC0:
                if i >= end:
                    raise FrameError("DISPLAY_RLE repeat has no byte")
                ops.append((pos, 1, stream[i], n))
                i += 1
            else:
                ops.append((pos, 2, 0, n))
        pos += n
        if pos > SCREEN_BYTES:
            raise FrameError("DISPLAY_RLE writes past the end of the screen")
    return ops


def encode_display_rle(offset, stream):
    if not 0 <= offset < SCREEN_BYTES or not stream or len(stream) > RLE_STREAM_MAX:
        raise FrameError(f"DISPLAY_RLE offset {offset} with {len(stream)} stream bytes")
    return struct.pack(">H", offset) + bytes(stream)


def decode_display_rle(payload):
    return struct.unpack(">H", payload[:2])[0], payload[2:]


# --- staged screens (STAGE, DISPLAY_STAGED) ---------------------------------------------------------------------
# A screen that many seats show alike (the deal's "tap your card" with only the seat number differing) goes out
# once: STAGE frames, broadcast, draw the bytes every listed seat's new screen has in common onto a blank picture
# the node keeps apart (the stage, not shown); then each seat gets one DISPLAY_STAGED with only its own
# differences from the stage, which makes the stage its screen. A stage is whole when the node holds all of its
# ``parts`` and its CRC-32 is the one the DISPLAY_STAGED names (so a stage left from before, by another master or
# 255 stages ago, is never shown for a new one); else the answer is NAK_NO_STAGE, and the master sends that seat
# its screen as DISPLAY_RLE instead. A node not listed ignores the stage: it only ever keeps bytes of its own
# next screen.

STAGE_PARTS_MAX = 8


def stage_stream_max(nodes):
    """Op stream bytes one STAGE frame carries when it lists ``nodes`` addresses."""
    return MAX_PAYLOAD - 6 - nodes


def encode_stage(stage, part, parts, addresses, offset, stream):
    if not 1 <= stage <= 255 or not 1 <= parts <= STAGE_PARTS_MAX or not 0 <= part < parts:
        raise FrameError(f"STAGE {stage} part {part} of {parts}: a stage is 1..255 in 1..{STAGE_PARTS_MAX} parts")
    if not addresses or not 0 <= offset < SCREEN_BYTES or len(stream) > stage_stream_max(len(addresses)):
        raise FrameError(f"STAGE for {len(addresses)} nodes at offset {offset} with {len(stream)} stream bytes")
    return bytes((stage, part, parts, len(addresses))) + bytes(addresses) + struct.pack(">H", offset) + bytes(stream)


def decode_stage(payload):
    """(stage, part, parts, addresses as bytes, offset, stream); FrameError if the payload does not add up."""
    stage, part, parts, n = payload[0], payload[1], payload[2], payload[3]
    if not stage or not 1 <= parts <= STAGE_PARTS_MAX or part >= parts or not n or len(payload) < 6 + n:
        raise FrameError(f"STAGE {stage} part {part} of {parts} for {n} nodes does not fit {len(payload)} bytes")
    offset = struct.unpack(">H", payload[4 + n : 6 + n])[0]
    return stage, part, parts, bytes(payload[4 : 4 + n]), offset, payload[6 + n :]


STAGED_STREAM_MAX = MAX_PAYLOAD - 7


def encode_display_staged(stage, stage_crc, offset, stream):
    if not 1 <= stage <= 255 or not 0 <= offset < SCREEN_BYTES or len(stream) > STAGED_STREAM_MAX:
        raise FrameError(f"DISPLAY_STAGED of stage {stage} at offset {offset} with {len(stream)} stream bytes")
    return struct.pack(">BIH", stage, stage_crc, offset) + bytes(stream)


def decode_display_staged(payload):
    """(stage, the stage picture's CRC-32, offset, stream)."""
    stage, stage_crc, offset = struct.unpack(">BIH", payload[:7])
    return stage, stage_crc, offset, payload[7:]


# --- authentication (remote role) --------------------------------------------------------------------------


_HMAC_PADS = dict()  # type: dict[bytes, tuple[bytes, bytes]]  # key -> its pads: the remote seals with one key


def _hmac_pads(key):
    """The key XOR ipad and XOR opad blocks of RFC 2104, made once per key: on the remote's Cortex-M0+ the two
    64-byte comprehensions cost more of a sealed answer than the hashing (benchmarks/node_reply.py --remote)."""
    key = bytes(key)
    pads = _HMAC_PADS.get(key)
    if pads is None:
        block = 64
        padded = hashlib.sha256(key).digest() if len(key) > block else key
        padded = padded + bytes(block - len(padded))
        pads = (bytes([b ^ 0x36 for b in padded]), bytes([b ^ 0x5C for b in padded]))
        if len(_HMAC_PADS) < 4:  # a node has one key; the host a few (tests pair many: those are made anew)
            _HMAC_PADS[key] = pads
    return pads


def hmac_sha256(key, msg):
    """RFC 2104 HMAC with SHA-256; written out because MicroPython has no ``hmac`` module."""
    ipad, opad = _hmac_pads(key)
    inner = hashlib.sha256(ipad)
    inner.update(msg)
    outer = hashlib.sha256(opad)
    outer.update(inner.digest())
    return outer.digest()


def _auth_message(addr, seq, counter, inner_type, inner):
    return struct.pack(">BBIB", addr, seq, counter, inner_type) + bytes(inner)


def seal(key, addr, seq, counter, inner_type, inner):
    """AUTH payload: counter u32 | inner type | inner payload | first 8 bytes of HMAC-SHA256 over
    (addr, seq, counter, inner type, inner payload)."""
    mac = hmac_sha256(key, _auth_message(addr, seq, counter, inner_type, inner))[:MAC_LEN]
    return struct.pack(">IB", counter, inner_type) + bytes(inner) + mac


def key_tag(key):
    """A short name for a pairing key that does not reveal it: which key a stored counter belongs to."""
    return "".join(f"{b:02x}" for b in hmac_sha256(key, b"tianhei auth counter")[:4])


def unseal(key, addr, seq, payload):
    """(counter, inner_type, inner) if the MAC is right, else None. Replay (counter) checks are the caller's."""
    if len(payload) < 5 + MAC_LEN:
        return None
    counter, inner_type = struct.unpack(">IB", payload[:5])
    inner = bytes(payload[5 : len(payload) - MAC_LEN])
    mac = bytes(payload[len(payload) - MAC_LEN :])
    good = hmac_sha256(key, _auth_message(addr, seq, counter, inner_type, inner))[:MAC_LEN]
    diff = 0
    for i in range(MAC_LEN):
        diff |= mac[i] ^ good[i]
    if diff:
        return None
    return counter, inner_type, inner


def seq_after(a, b):
    """True if u16 sequence number a comes after b (serial number arithmetic, window of 32768)."""
    d = (a - b) & 0xFFFF
    return 0 < d < 0x8000
