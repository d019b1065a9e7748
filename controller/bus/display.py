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
    """luma's ``serial_interface`` duck type: ``command(*cmd)``, ``data(data)``, ``cleanup()``."""

    def __init__(self, send: Send) -> None:
        self._send = send
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
        for page in range(PAGES):
            for start, end in changed_runs(self.shadow, new, page):
                for payload in display_payloads(page, start, new[page * WIDTH + start : page * WIDTH + end]):
                    self._emit(sb.DISPLAY, payload)
        self.shadow = new

    def cleanup(self) -> None:
        """Nothing to release: the bus belongs to the master."""

    def restore_frames(self) -> list[tuple[int, bytes]]:
        """What repaints a freshly booted node (blank panel) to match the shadow."""
        frames = [(sb.DISPLAY_CMD, chunk) for chunk in self._passthrough.values()]
        blank = bytearray(WIDTH * PAGES)
        for page in range(PAGES):
            for start, end in changed_runs(blank, self.shadow, page):
                row = self.shadow[page * WIDTH + start : page * WIDTH + end]
                frames.extend((sb.DISPLAY, payload) for payload in display_payloads(page, start, row))
        return frames

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
