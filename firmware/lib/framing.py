# ruff: noqa: F821  (ptr8, ptr32 and uint are viper's own types, known to MicroPython's compiler only)
"""The node's side of the wire without allocating: frames found in place in one receive buffer made at boot, the
replies that come many times a second built in buffers made at boot, and CRC-32 and the screen's run-length code
run as viper (machine code, no Python objects).

Why: profiled on the emulated chip (benchmarks/node_reply.py --profile), most of the node's time went to
MicroPython's allocator, which searches a fragmented heap for free blocks, and the garbage collections it caused
stopped the node for milliseconds in the middle of a request. seatbus.py stays the reference (the host uses it, and
the node for everything rare); this module does the same work for the frames of every poll and every screen, and
tests/firmware/vector_runner.py holds both to the same vectors. Off the chip (CPython, or a MicroPython without
a native code emitter) seatbus's own code stands in for the viper.
"""

import struct
import sys
from array import array

import seatbus as sb
from mpcompat import const, micropython

# Viper needs MicroPython with a native code emitter: its .mpy format names the machine (0: none). The decorator
# itself is the compiler's, not an attribute to look for at run time.
_viper = sys.implementation.name == "micropython" and (getattr(sys.implementation, "_mpy", 0) >> 10) != 0

if sys.platform == "rp2":
    from rp2bytes import crc_ok as _crc_ok  # a long frame's CRC and a screen's code in Thumb machine code
    from rp2bytes import rle_apply as _rle_thumb
else:
    _crc_ok = None
    _rle_thumb = None

RX_BYTES = 512  # two of the longest frames: one being read while the one before is handled

# The header check of seatbus._header_ok as three tables indexed by message type (no tuple, no dict lookup):
# the payload lengths allowed (an unknown type allows none), and which types go only to BROADCAST.
_LO = bytearray(b"\xff" * 256)
_HI = bytearray(256)
_BROADCAST_ONLY = bytearray(256)
for _t, (_lo, _hi) in sb.PAYLOAD_LIMITS.items():
    _LO[_t] = _lo
    _HI[_t] = _hi
for _t in sb.BROADCAST_ONLY:
    _BROADCAST_ONLY[_t] = 1


def header_ok(length, addr_byte, mtype):
    """seatbus._header_ok, allocating nothing."""
    if length < _LO[mtype] or length > _HI[mtype]:
        return False
    from_node = addr_byte & 0x80
    if (from_node != 0) != (mtype >= 0x80):
        return False
    addr = addr_byte & 0x7F
    if addr == 0:
        return False
    if _BROADCAST_ONLY[mtype]:
        return addr == 0x7F
    return not (addr == 0x7F and (from_node or mtype != sb.IDENTIFY))


# --- off the chip: seatbus's own code (the reference the viper below is held to) ----------------------------
_TABLE = bytearray(1024)  # 256 little-endian u32: the byte-at-a-time CRC table the viper code reads


def crc_matches_py(buf, start, end, ref, at):
    """True when the CRC-32 of buf[start:end] is the big-endian u32 at ref[at:at + 4]."""
    return bytes(ref[at : at + 4]) == struct.pack(">I", sb.crc32(buf, start, end))


def crc_put_py(buf, start, end):
    """Write the CRC-32 of buf[start:end] big-endian at buf[end:end + 4]."""
    buf[end : end + 4] = struct.pack(">I", sb.crc32(buf, start, end))


def rle_apply_py(fb, buf, i, end, offset):
    """Apply the op stream buf[i:end] (DISPLAY_RLE's) to the 1024-byte fb from ``offset``: -1 (fb untouched) if
    the stream is cut short or runs off the screen, else lo * 2048 + hi, the range [lo, hi) it wrote (0:
    nothing)."""
    try:
        lo, hi = sb.decode_rle_into(fb, offset, bytes(buf[i:end]))
    except sb.FrameError:
        return -1
    return lo * 2048 + hi


def copy_py(dst, at, src, frm, n):
    """dst[at:at + n] = src[frm:frm + n] (forward, byte by byte: a move to a lower place in one buffer is safe)."""
    for i in range(n):
        dst[at + i] = src[frm + i]


def clear_py(buf, n):
    """Zero buf[:n]."""
    for i in range(n):
        buf[i] = 0


def index_of_py(buf, start, n, value):
    """Where ``value`` is among the ``n`` bytes at buf[start:], or -1 (a node's place in a slotted poll's list)."""
    for i in range(n):
        if buf[start + i] == value:
            return i
    return -1


def differ_py(a, b, n):
    """Where a[:n] and b[:n] differ, as ``lo * 2048 + hi`` (the first differing byte and one past the last; as
    rle_apply says a span), or 0 when they hold the same bytes."""
    lo = 0
    while lo < n and a[lo] == b[lo]:
        lo += 1
    if lo == n:
        return 0
    hi = n
    while a[hi - 1] == b[hi - 1]:
        hi -= 1
    return lo * 2048 + hi


if _viper:

    @micropython.viper
    def _fill_table(table: ptr32):
        for byte in range(256):
            crc = uint(byte)
            for _ in range(8):
                crc = (crc >> 1) ^ uint(0xEDB88320) if crc & 1 else crc >> 1
            table[byte] = crc

    # Two functions with the same CRC loop, not one: a viper function cannot hand a 32-bit CRC back without
    # allocating (over 2^30 it is a big integer), and a call from one to the other, or through a wrapper, cost
    # every frame a Python call (measured: replies 0.05 ms slower at the median, benchmarks/node_reply.py).
    @micropython.viper
    def crc_matches(buf: ptr8, start: int, end: int, ref: ptr8, at: int) -> bool:
        table = ptr32(_TABLE)
        crc = uint(0xFFFFFFFF)
        i = start
        while i < end:
            crc = uint(table[(crc ^ uint(buf[i])) & 0xFF]) ^ (crc >> 8)
            i += 1
        crc = crc ^ uint(0xFFFFFFFF)
        return (uint(ref[at]) == crc >> 24 and uint(ref[at + 1]) == (crc >> 16) & 0xFF
                and uint(ref[at + 2]) == (crc >> 8) & 0xFF and uint(ref[at + 3]) == crc & 0xFF)

    @micropython.viper
    def crc_put(buf: ptr8, start: int, end: int):
        table = ptr32(_TABLE)
        crc = uint(0xFFFFFFFF)
        i = start
        while i < end:
            crc = uint(table[(crc ^ uint(buf[i])) & 0xFF]) ^ (crc >> 8)
            i += 1
        crc = crc ^ uint(0xFFFFFFFF)
        buf[end] = crc >> 24
        buf[end + 1] = (crc >> 16) & 0xFF
        buf[end + 2] = (crc >> 8) & 0xFF
        buf[end + 3] = crc & 0xFF

    @micropython.viper
    def rle_apply(fb: ptr8, buf: ptr8, i: int, end: int, offset: int) -> int:
        if offset < 0 or offset >= 1024:
            return -1
        write = 0
        lo = -1
        hi = 0
        while write < 2:
            pos = offset
            k = i
            lo = -1
            hi = 0
            while k < end:
                op = buf[k]
                k += 1
                n = 0
                if op < 0x80:
                    n = op + 1
                    if k + n > end or pos + n > 1024:
                        return -1
                    if write:
                        j = 0
                        while j < n:
                            fb[pos + j] = buf[k + j]
                            j += 1
                    k += n
                else:
                    n = op & 0x3F
                    if n == 0x3F:
                        if k >= end:
                            return -1
                        n += buf[k]
                        k += 1
                    if op < 0xC0:
                        n += 2
                        if k >= end or pos + n > 1024:
                            return -1
                        if write:
                            value = buf[k]
                            j = 0
                            while j < n:
                                fb[pos + j] = value
                                j += 1
                        k += 1
                    else:
                        n += 1
                        if pos + n > 1024:
                            return -1
                        pos += n
                        continue
                if lo < 0:
                    lo = pos
                pos += n
                hi = pos
            write += 1
        if lo < 0:
            return 0
        return lo * 2048 + hi

    @micropython.viper
    def differ(a: ptr8, b: ptr8, n: int) -> int:
        lo = 0
        while lo < n and a[lo] == b[lo]:
            lo += 1
        if lo == n:
            return 0
        hi = n
        while a[hi - 1] == b[hi - 1]:
            hi -= 1
        return lo * 2048 + hi

    @micropython.viper
    def index_of(buf: ptr8, start: int, n: int, value: int) -> int:
        i = 0
        while i < n:
            if buf[start + i] == value:
                return i
            i += 1
        return -1

    @micropython.viper
    def copy(dst: ptr8, at: int, src: ptr8, frm: int, n: int):
        i = 0
        while i < n:
            dst[at + i] = src[frm + i]
            i += 1

    @micropython.viper
    def clear(buf: ptr8, n: int):
        i = 0
        while i < n:
            buf[i] = 0
            i += 1

    @micropython.viper
    def _next(buf: ptr8, st: ptr32, lo: ptr8, hi: ptr8, bonly: ptr8) -> int:
        """next_py's search in machine code: the same steps, the reader's numbers in ``st`` (_N ...)."""
        table = ptr32(_TABLE)
        n = st[0]
        pos = st[1]
        quiet = st[2]
        dropped = st[5]
        while True:
            start = pos
            while start < n and buf[start] != 0x7E:
                start += 1
            if start >= n:
                dropped += n - pos
                pos = n
                break
            dropped += start - pos
            pos = start
            if n - start < 5:
                if quiet:
                    dropped += 1
                    pos = start + 1
                    continue
                break
            length = buf[start + 1]
            a = buf[start + 2]
            t = buf[start + 4]
            ok = 1
            if length < lo[t] or length > hi[t]:
                ok = 0
            if a & 0x80:
                if t < 0x80:
                    ok = 0
            elif t >= 0x80:
                ok = 0
            addr = a & 0x7F
            if addr == 0:
                ok = 0
            elif bonly[t]:
                if addr != 0x7F:
                    ok = 0
            elif addr == 0x7F and (a & 0x80 or t != 0x01):  # IDENTIFY: the one frame to every node not a broadcast
                ok = 0
            if ok == 0:
                dropped += 1
                pos = start + 1
                continue
            end = start + 5 + length
            if n < end + 4:
                if quiet:
                    dropped += 1
                    pos = start + 1
                    continue
                break
            good = 1
            if _crc_ok:
                # On the chip: in machine code (rp2bytes.py), where this loop takes 0.8 µs a byte (a screen's frame:
                # 0.16 ms; a poll's is as quick either way).
                good = int(_crc_ok(buf, start + 1, end, table))
            else:
                crc = uint(0xFFFFFFFF)
                i = start + 1
                while i < end:
                    crc = uint(table[(crc ^ uint(buf[i])) & 0xFF]) ^ (crc >> 8)
                    i += 1
                crc = crc ^ uint(0xFFFFFFFF)
                if (uint(buf[end]) != crc >> 24 or uint(buf[end + 1]) != (crc >> 16) & 0xFF
                        or uint(buf[end + 2]) != (crc >> 8) & 0xFF or uint(buf[end + 3]) != crc & 0xFF):
                    good = 0
            if good == 0:
                st[4] += 1
                dropped += 1
                pos = start + 1
                continue
            st[3] += 1
            if a & 0x80 and st[6]:  # another node's answer, and the reader passes those over (_PASS_NODES)
                pos = end + 4
                continue
            st[1] = end + 4
            st[5] = dropped
            return start
        st[2] = 0
        if pos >= n:
            pos = 0
            n = 0
        st[1] = pos
        st[0] = n
        st[5] = dropped
        return -1

    _fill_table(_TABLE)
else:
    copy = copy_py
    clear = clear_py
    index_of = index_of_py
    crc_matches = crc_matches_py
    crc_put = crc_put_py
    rle_apply = rle_apply_py
    differ = differ_py


@micropython.native
def crc_behind(buf, n, ref, at):
    """True when the CRC-32 of buf[:n] is the big-endian word at ref[at] (a stage's picture against the one the
    host staged, DISPLAY_STAGED). ``buf`` has four bytes to spare after ``n``: on the chip the word is copied there
    and the frames' check in machine code (rp2bytes.crc_ok) runs over the picture, about 0.1 µs a byte where
    viper's loop takes 0.8 (a kilobyte: 0.7 ms of a DISPLAY_STAGED's way to its ACK)."""
    if _crc_ok is None:
        return crc_matches(buf, 0, n, ref, at)
    buf[n] = ref[at]
    buf[n + 1] = ref[at + 1]
    buf[n + 2] = ref[at + 2]
    buf[n + 3] = ref[at + 3]
    return _crc_ok(buf, 0, n, _TABLE) == 1


if _rle_thumb is not None:
    rle_into = _rle_thumb
else:

    def rle_into(fb, buf, span, offset):
        """rle_apply with the code's bounds in one number (``i | end << 16``): the machine code's way in (it takes
        four arguments at most, rp2bytes.py)."""
        return rle_apply(fb, buf, span & 0xFFFF, span >> 16, offset)


# The reader's numbers, in one array a viper function reads and writes (st[_N] ...): kept as attributes, the search
# looked each up in the object's dictionary, some 5 µs apiece on the emulated chip, on the way from a LISTEN's last
# byte to a seat's slot (firmware/PROTOCOL.md, "Where a LISTEN waits inside a Pico").
_N = const(0)  # bytes held
_POS = const(1)  # where the search goes on: buf[pos:n] is undecided
_QUIET = const(2)  # the line went quiet: what waits for more bytes is dropped
_FRAMES = const(3)
_CRC_ERRORS = const(4)
_DROPPED = const(5)
# Frames from nodes are counted and passed over, not returned: a seat has nothing to do with another's answer, and
# one whose wait crossed a round of sixteen seats' answers found, read and handed on each (some 50 µs apiece on the
# emulated chip) before it came to the host's new LISTEN (firmware/PROTOCOL.md, "The other seats' answers passed over").
_PASS_NODES = const(6)


def next_py(buf, st, lo, hi, bonly):
    """The next whole, valid frame's start in buf[st[_POS]:st[_N]], or -1 (seatbus.Decoder's search); the viper
    ``_next`` is held to it (tests/firmware/test_fw_framing.py)."""
    n = st[_N]
    pos = st[_POS]
    while True:
        start = buf.find(b"\x7e", pos, n)
        if start < 0:
            st[_DROPPED] += n - pos
            pos = n
            break
        st[_DROPPED] += start - pos
        pos = start
        if n - start < sb.HEADER_LEN:
            if st[_QUIET]:
                st[_DROPPED] += 1
                pos = start + 1
                continue
            break
        length = buf[start + 1]
        if not header_ok(length, buf[start + 2], buf[start + 4]):
            st[_DROPPED] += 1
            pos = start + 1
            continue
        end = start + sb.HEADER_LEN + length
        if n < end + sb.CRC_LEN:
            if st[_QUIET]:
                st[_DROPPED] += 1
                pos = start + 1
                continue
            break
        if not crc_matches_py(buf, start + 1, end, buf, end):
            st[_CRC_ERRORS] += 1
            st[_DROPPED] += 1
            pos = start + 1
            continue
        st[_FRAMES] += 1
        if buf[start + 2] & sb.FROM_NODE and st[_PASS_NODES]:
            pos = end + sb.CRC_LEN
            continue
        st[_POS] = end + sb.CRC_LEN
        return start
    st[_QUIET] = 0
    if pos >= n:
        pos = n = 0
    st[_POS] = pos
    st[_N] = n
    return -1


if not _viper:
    _next = next_py


class FrameReader:
    """seatbus.Decoder's search, in place: bytes go into one buffer made at boot, ``next()`` gives the start of
    the next whole, valid frame in ``buf`` (its fields are read from there; nothing is copied) or -1. A frame's
    bytes stay put until the next call of ``next()`` or ``fill()``. Garbage, a bad header or a bad CRC costs only
    the sync byte it started at, as in seatbus.Decoder; ``idle()`` says the line went quiet, so whatever waits for
    more bytes is dropped and the search goes on behind it."""

    def __init__(self):
        self.buf = bytearray(RX_BYTES)
        self.scratch = bytearray(RX_BYTES)  # what the link gives, copied on behind what is held
        self.st = array("i", bytes(4 * 7))  # n, pos, quiet, frames, crc_errors, dropped_bytes, pass_nodes (_N ...)

    @micropython.native
    def pending(self):
        st = self.st
        return st[_N] - st[_POS]

    @micropython.native
    def fill(self, link):
        """Read what the link has into the buffer; the number of bytes read."""
        st = self.st
        if st[_N] == 0:
            # Nothing held (most reads): straight into the buffer, not through the scratch and a copy of every byte
            # (a screen frame's 0.15 ms on the emulated chip).
            got = link.readinto(self.buf, RX_BYTES)
            st[_N] = got
            return got
        pos = st[_POS]
        if pos:
            rest = st[_N] - pos
            if rest:
                copy(self.buf, 0, self.buf, pos, rest)  # rare: a frame and a part
            st[_N] = rest
            st[_POS] = 0
        got = link.readinto(self.scratch, RX_BYTES - st[_N])
        if got:
            copy(self.buf, st[_N], self.scratch, 0, got)
            st[_N] += got
        return got

    def feed(self, data):
        """Put bytes in as if read (the tests' and a host-side check's way in)."""
        st = self.st
        if st[_POS]:
            self.fill(_Nothing)
        n = st[_N]
        self.buf[n : n + len(data)] = data
        st[_N] = n + len(data)

    def idle(self):
        self.st[_QUIET] = 1

    def pass_nodes(self):
        """From now on frames from nodes are counted and passed over (_PASS_NODES): a seat's reader."""
        self.st[_PASS_NODES] = 1

    @micropython.native
    def next(self):
        return _next(self.buf, self.st, _LO, _HI, _BROADCAST_ONLY)

    def frame(self, at):
        """The frame at ``at`` as a seatbus.Frame (allocates: for the rare frames that take the long way)."""
        buf = self.buf
        addr_byte = buf[at + 2]
        return sb.Frame(addr_byte & 0x7F, buf[at + 3], buf[at + 4],
                        buf[at + sb.HEADER_LEN : at + sb.HEADER_LEN + buf[at + 1]], bool(addr_byte & 0x80))


class _Nothing:
    @staticmethod
    def readinto(buf, at):
        return 0


class Reply:
    """One fixed-size answer (ACK, NAK, an EVENTS with no events) made once: only its SEQ (and NAK code) and CRC
    are written per use."""

    def __init__(self, addr, mtype, payload=b""):
        self.buf = bytearray(sb.encode_frame(addr, 0, mtype, payload, True))
        self.end = len(self.buf) - sb.CRC_LEN

    @micropython.native
    def ready(self, seq, code=-1):
        buf = self.buf
        buf[3] = seq
        if code >= 0:
            buf[sb.HEADER_LEN] = code
        crc_put(buf, 1, self.end)
        return buf
