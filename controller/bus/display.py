"""A luma serial interface that sends an SSD1306's writes over the seat bus instead of I2C.

The controller draws every screen with luma and Pillow whatever the transport; luma's ``ssd1306`` device hands
this interface its commands and its whole 1024-byte frame buffer on every ``display()``. Sending that would cost
~1 KB per screen per update, so this interface keeps a shadow of what the node's screen holds and sends only the
runs of bytes that differ, one DISPLAY frame per run (page, column, bytes). Runs separated by fewer than
``MERGE_GAP`` unchanged bytes go as one frame, because a new frame costs 10 bytes of header and CRC. luma's
``diff_to_previous`` framebuffer would narrow this to one bounding box; a byte-exact diff is never larger.

luma's hardware set-up commands (multiplex, charge pump, ...) are dropped: the node initialises its own panel.
Contrast, on/off and invert pass through as DISPLAY_CMD.
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image

from . import seatbus as sb

WIDTH = 128
PAGES = 8
MERGE_GAP = 10
# SSD1306 commands with their argument counts, as luma sends them.
ARGC = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
PASSTHROUGH = {0x81, 0xAE, 0xAF, 0xA4, 0xA5, 0xA6, 0xA7}
PAIRED = {0xAF: 0xAE, 0xA5: 0xA4, 0xA7: 0xA6}  # on/off, all-on, invert: one setting each

Send = Callable[[int, bytes], None]


class BusSerialInterface:
    """luma's ``serial_interface`` duck type: ``command(*cmd)``, ``data(data)``, ``cleanup()``.

    ``rle()`` says whether the node takes DISPLAY_RLE (its IDENTITY's capabilities); until it says so, or for
    an older node, the changed runs go as plain DISPLAY frames. ``offer(old, new)`` hands a whole new picture to
    the master instead (stage.py: it may go partly as one broadcast with the other seats' pictures); it returns
    False when the node cannot take a stage, and the changes go as frames of this node's own."""

    def __init__(self, send: Send, rle: Callable[[], bool] = lambda: False,
                 offer: Callable[[bytes, bytes], bool] | None = None) -> None:
        self._send = send
        self._rle = rle
        self._offer = offer
        self.shadow = bytearray(WIDTH * PAGES)  # what the node's panel holds, as far as we have sent
        self._cols = (0, WIDTH - 1)
        self._pages = (0, PAGES - 1)
        self._passthrough: dict[int, bytes] = {}
        self.bytes_sent = 0

    def command(self, *cmd: int) -> None:
        i = 0
        while i < len(cmd):
            op = cmd[i]
            argc = ARGC.get(op, 0)
            args = cmd[i + 1 : i + 1 + argc]
            if op == 0x21 and len(args) == 2:
                self._cols = (args[0], args[1])
            elif op == 0x22 and len(args) == 2:
                self._pages = (args[0], args[1])
            elif op in PASSTHROUGH:
                chunk = bytes((op, *args))
                self._passthrough[PAIRED.get(op, op)] = chunk  # the latest of each kind, for a restore
                self._emit(sb.DISPLAY_CMD, chunk)
            i += 1 + argc

    def data(self, data: bytes | bytearray | list[int]) -> None:
        if self._cols == (0, WIDTH - 1) and self._pages == (0, PAGES - 1) and len(data) == WIDTH * PAGES:
            self._change(bytearray(data))  # the whole screen, as luma and show() send it: no byte-by-byte walk
            return
        new = bytearray(self.shadow)
        c0, c1 = self._cols
        p0, p1 = self._pages
        page, col = p0, c0
        for b in data:
            new[page * WIDTH + col] = b
            col += 1
            if col > c1:
                col = c0
                page = page + 1 if page < p1 else p0
        self._change(new)

    def _change(self, new: bytearray) -> None:
        if new == self.shadow:
            return
        if self._offer is None or not self._offer(bytes(self.shadow), bytes(new)):
            for mtype, payload in self._writes(self.shadow, new):
                self._emit(mtype, payload)
        self.shadow = new

    def _writes(self, old: bytes | bytearray, new: bytes | bytearray) -> list[tuple[int, bytes]]:
        if self._rle():
            return [(sb.DISPLAY_RLE, payload) for payload in rle_payloads(old, new)]
        writes: list[tuple[int, bytes]] = []
        for page in range(PAGES):
            for start, end in changed_runs(old, new, page):
                row = new[page * WIDTH + start : page * WIDTH + end]
                writes.extend((sb.DISPLAY, payload) for payload in display_payloads(page, start, row))
        return writes

    def show(self, frame: bytes) -> None:
        """The whole screen in SSD1306 order (``ssd1306_bytes``), as luma's ``display`` would hand it over."""
        self.command(0x21, 0, WIDTH - 1, 0x22, 0, PAGES - 1)
        self.data(frame)

    def cleanup(self) -> None:
        """Nothing to release: the bus belongs to the master."""

    def restore_frames(self, whole: bool = False) -> list[tuple[int, bytes]]:
        """What repaints a node to match the shadow: the display settings in one DISPLAY_CMD frame (the node
        takes a sequence of them), then the picture. A freshly booted node's panel is blank, so only what differs
        from blank is sent; ``whole``: the panel may show anything (a node that kept its power while the table
        restarted, or was out of reach while screens changed), so every byte is written, the dark ones too —
        else what it showed before (another screen, a role) stays lit between the new picture's pixels."""
        settings = b"".join(self._passthrough.values())
        frames = [(sb.DISPLAY_CMD, settings)] if settings else []
        unknown = bytes(b ^ 0xFF for b in self.shadow) if whole else bytearray(WIDTH * PAGES)
        return frames + self._writes(unknown, self.shadow)

    def _emit(self, mtype: int, payload: bytes) -> None:
        self.bytes_sent += len(payload) + sb.OVERHEAD
        self._send(mtype, payload)


#: Bytes of screen data one DISPLAY frame carries (its payload limit less page, column and the reserved byte).
MAX_RUN = sb.PAYLOAD_LIMITS[sb.DISPLAY][1] - 3


def display_payloads(page: int, col: int, data: bytes | bytearray) -> list[bytes]:
    """DISPLAY payloads for ``data`` at (page, col): a whole changed page row (128 bytes) takes two frames."""
    return [
        sb.encode_display(page, col + i, data[i : i + MAX_RUN]) for i in range(0, len(data), MAX_RUN)
    ]


def changed_runs(old: bytes | bytearray, new: bytes | bytearray, page: int) -> list[tuple[int, int]]:
    """Column ranges [start, end) of page where old and new differ, with gaps under MERGE_GAP merged."""
    base = page * WIDTH
    runs: list[tuple[int, int]] = []
    col = 0
    while col < WIDTH:
        if old[base + col] == new[base + col]:
            col += 1
            continue
        start = col
        end = col + 1
        col += 1
        while col < WIDTH:
            if old[base + col] != new[base + col]:
                end = col + 1
            elif col - end >= MERGE_GAP:
                break
            col += 1
        runs.append((start, end))
    return runs


_REVERSED_BITS = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def ssd1306_bytes(image: Image.Image) -> bytes:
    """A 128x64 mode "1" image as the SSD1306 holds it: page by page, each byte a column of 8 pixels with the
    top one in bit 0; the same bytes luma's ``ssd1306.display`` computes pixel by pixel in Python (about a
    millisecond a screen), done here by Pillow and ``bytes.translate`` in C. Transposed, the image's columns
    become rows, which Pillow packs 8 pixels a byte (first pixel in the top bit), so each byte needs its bits
    reversed, and the 8 bytes of a column are spread over the 8 pages."""
    columns = image.transpose(Image.Transpose.TRANSPOSE).tobytes().translate(_REVERSED_BITS)
    return b"".join(columns[page::PAGES] for page in range(PAGES))


def rle_ops(old: bytes | bytearray, new: bytes | bytearray) -> list[tuple[int, bytes]]:
    """The DISPLAY_RLE ops (see seatbus) that turn ``old`` into ``new``, each with the screen position it starts
    at: unchanged stretches are skipped, runs of one byte value repeated, the rest written literally. A short
    unchanged stretch inside a literal costs less carried along (1 byte a byte) than skipped (2 bytes)."""
    ops: list[tuple[int, bytes]] = []
    n = len(new)
    lit_at = 0
    lit = bytearray()

    def flush() -> None:
        for k in range(0, len(lit), 128):
            chunk = lit[k : k + 128]
            ops.append((lit_at + k, bytes((len(chunk) - 1,)) + chunk))
        lit.clear()

    i = 0
    while i < n:
        if old[i] == new[i] and i % WIDTH == 0 and old[i : i + WIDTH] == new[i : i + WIDTH]:
            j = i + WIDTH  # a whole unchanged page row, found in C: most of a countdown tick's screen
            while j < n and old[j : j + WIDTH] == new[j : j + WIDTH]:
                j += WIDTH
            if j >= n:
                break
            flush()
            ops.extend(_counted(i, 0xC0, sb.RLE_SKIP_MIN, j - i, b""))
            i = j
            continue
        if old[i] == new[i]:
            j = i + 1
            while j < n and old[j] == new[j]:
                j += 1
            if j == n:
                break  # nothing changes after here
            if lit and j - i <= 2:
                lit += new[i:j]
            else:
                flush()
                ops.extend(_counted(i, 0xC0, sb.RLE_SKIP_MIN, j - i, b""))
            i = j
            continue
        v = new[i]
        j = i + 1
        while j < n and new[j] == v:
            j += 1
        if j - i >= 3:
            flush()
            ops.extend(_counted(i, 0x80, sb.RLE_REPEAT_MIN, j - i, bytes((v,))))
            i = j
            continue
        if not lit:
            lit_at = i
        lit.append(v)
        i += 1
    flush()
    return ops


def _counted(at: int, kind: int, least: int, count: int, tail: bytes) -> list[tuple[int, bytes]]:
    """Repeat (kind 0x80) or skip (0xC0) ops for ``count`` bytes, split where one op's count runs out."""
    longest = 0x3F + 0xFF + least
    out: list[tuple[int, bytes]] = []
    while count > 0:
        n = min(count, longest)
        if n < least:  # a remainder too short for a repeat: write it literally
            out.append((at, bytes((n - 1,)) + tail * n))
            break
        extra = n - least
        code = bytes((kind | extra,)) if extra < 0x3F else bytes((kind | 0x3F, extra - 0x3F))
        out.append((at, code + tail))
        at += n
        count -= n
    return out


def rle_payloads(old: bytes | bytearray, new: bytes | bytearray, limit: int = sb.RLE_STREAM_MAX) -> list[bytes]:
    """DISPLAY_RLE payloads for the change from ``old`` to ``new``: the ops packed into as few frames as fit
    (``limit`` stream bytes each), each frame starting at its first write's position (a skip is never a frame's
    first op)."""
    payloads: list[bytes] = []
    start = -1
    stream = bytearray()
    for at, op in rle_ops(old, new):
        if start >= 0 and len(stream) + len(op) > limit:
            payloads.append(sb.encode_display_rle(start, stream))
            start, stream = -1, bytearray()
        if start < 0:
            if op[0] >= 0xC0:
                continue  # the frame's offset says where its first write goes
            start = at
        stream += op
    if start >= 0:
        payloads.append(sb.encode_display_rle(start, stream))
    return payloads
