"""A small SSD1306 (128x64, I2C) driver: initialise, write bytes at (page, column), pass safe commands.

The node never draws; the controller renders with luma and sends only the bytes that changed, addressed by page
and column, which is exactly how the SSD1306's own memory is laid out (horizontal addressing mode).
"""

import sys
import time
from array import array

from framing import copy
from mpcompat import micropython

if sys.platform == "rp2":
    import rp2i2c  # the chunks go out while the loop runs on
else:
    rp2i2c = None

# Commands the host may pass through DISPLAY_CMD, with their argument counts. Addressing and hardware
# configuration commands are the node's business, so they are not in this list.
PASSTHROUGH = {0x81: 1, 0xAE: 0, 0xAF: 0, 0xA4: 0, 0xA5: 0, 0xA6: 0, 0xA7: 0}

INIT = (
    0xAE,  # display off
    0xD5,
    0x80,  # clock divide
    0xA8,
    0x3F,  # multiplex 64
    0xD3,
    0x00,  # display offset
    0x40,  # start line 0
    0x8D,
    0x14,  # charge pump on
    0x20,
    0x00,  # horizontal addressing
    0xA1,  # segment remap
    0xC8,  # COM scan decrement
    0xDA,
    0x12,  # COM pins
    0x81,
    0xCF,  # contrast
    0xD9,
    0xF1,  # precharge
    0xDB,
    0x40,  # VCOM detect
    0xA4,  # resume from RAM
    0xA6,  # normal (not inverted)
)


def passthrough_ok(cmds):
    """True if cmds is a whole sequence of pass-through commands with their arguments."""
    i = 0
    while i < len(cmds):
        argc = PASSTHROUGH.get(cmds[i])
        if argc is None:
            return False
        i += 1 + argc
    return i == len(cmds)


DATA = 0x40  # control byte: the rest of the transfer is display data
MAX_WRITE = 128  # a page's width: the most one write sends
TIMEOUT_MS = 50  # a background write not over by then is ended with an error, as machine.I2C's timeout does


class SSD1306:
    def __init__(self, i2c, addr=0x3C, i2c_id=None):
        self.i2c = i2c
        self.addr = addr
        # On the RP2040 (its I2C block's number known: config.json's [i2c] id) the data of a write goes out in the
        # background (rp2i2c.py): ``write`` returns at once and ``busy`` feeds the block until the STOP. Elsewhere
        # (the unix port, tests) ``machine.I2C.writeto`` as before.
        self.bg = None
        self._began = 0
        if rp2i2c is not None and i2c_id in (0, 1):
            p = array("I", bytes(4 * rp2i2c.WORDS))
            p[rp2i2c.HW] = rp2i2c.BASES[i2c_id]
            self.bg = p
        # The column and page window, and the control byte with the data, in buffers made at boot: the node
        # writes the panel between bus frames, and a new object per write would feed the garbage collector on
        # the reply path. (The rp2 port's machine.I2C joins the parts of writevto in a new buffer: one buffer it
        # is, the data copied in by framing's viper.) Each length's view of the data buffer is made once.
        self._window = bytearray(b"\x00\x21\x00\x7f\x22\x00\x07")
        self._data = bytearray(1 + MAX_WRITE)
        self._data[0] = DATA
        self._views = [None] * (MAX_WRITE + 1)
        # Where the panel's own pointer is after the last write (page * 128 + column; -1: not known), and the
        # window's first column. In horizontal addressing the pointer moves on by itself, to the window's first
        # column of the next page after its last column (datasheet 10.1.3), so a write that starts there sends
        # no window: the drawing's chunks follow each other, and the window was 8 of each chunk's 42 bytes.
        self._next = -1
        self._col0 = 0

    @micropython.native
    def busy(self):
        """True while a write's data is still going out in the background: each call puts more of it in the
        block's FIFO. A target that did not answer raises OSError, as ``machine.I2C.writeto`` does."""
        p = self.bg
        if p is None:
            return False
        rp2i2c.feed(p, self._data)
        s = rp2i2c.state(p)
        if s < 0:
            self._next = -1
            raise OSError(5)  # EIO
        if s and time.ticks_diff(time.ticks_ms(), self._began) > TIMEOUT_MS:
            rp2i2c.abort(p)
            self._next = -1
            raise OSError(110)  # ETIMEDOUT
        return s > 0

    def _drain(self):
        """Until the last background write has stopped: the block is ``machine.I2C``'s again."""
        while self.busy():
            pass

    def command(self, cmds):
        self._drain()
        self._next = -1  # INIT sets the addressing mode
        self.i2c.writeto(self.addr, b"\x00" + bytes(cmds))

    def init(self):
        self.command(INIT)
        self.clear()
        self.command((0xAF,))

    @micropython.native  # as bytecode its frame was too big for the C stack: a heap block every chunk
    def write(self, page, col, src, lo=0, end=-1):
        """src[lo:end] (all of src by default; at most a page's width) at (page, col)."""
        if end < 0:
            end = len(src)
        n = end - lo
        if self.bg is not None:
            self._drain()  # (the data buffer is the FIFO's source until then)
        at = page * 128 + col
        if at != self._next:
            self._next = -1  # until this write is done: a transfer that fails leaves the pointer unknown
            window = self._window
            window[2] = col
            window[5] = page
            self.i2c.writeto(self.addr, window)
            self._col0 = col
        else:
            self._next = -1
        copy(self._data, 1, src, lo, n)  # after the control byte
        p = self.bg
        if p is not None:
            p[rp2i2c.AT] = 0
            p[rp2i2c.N] = n + 1  # the control byte and the data
            rp2i2c.begin(p, self.addr)
            self._began = time.ticks_ms()
            rp2i2c.feed(p, self._data)
        else:
            view = self._views[n]
            if view is None:
                view = self._views[n] = memoryview(self._data)[: n + 1]
            self.i2c.writeto(self.addr, view)
        at += n
        if at & 127 or self._col0 == 0:  # the last column written wraps to the window's first: known if that is 0
            self._next = at

    def clear(self):
        blank = bytes(MAX_WRITE)
        for page in range(8):
            self.write(page, 0, blank)
