"""A small SSD1306 (128x64, I2C) driver: initialise, write bytes at (page, column), pass safe commands.

The node never draws; the controller renders with luma and sends only the bytes that changed, addressed by page
and column, which is exactly how the SSD1306's own memory is laid out (horizontal addressing mode).
"""

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


DATA = b"\x40"  # control byte: the rest of the transfer is display data


class SSD1306:
    def __init__(self, i2c, addr=0x3C):
        self.i2c = i2c
        self.addr = addr
        # The column and page window before each write, reused: the node writes the panel between bus frames,
        # and a new bytes object a write would feed the garbage collector on the reply path.
        self._window = bytearray(b"\x00\x21\x00\x7f\x22\x00\x07")
        self._vector = [DATA, b""]
        self._writev = getattr(i2c, "writevto", None)  # machine.I2C has it; a bus without it gets one buffer

    def command(self, cmds):
        self.i2c.writeto(self.addr, b"\x00" + bytes(cmds))

    def init(self):
        self.command(INIT)
        self.clear()
        self.command((0xAF,))

    def write(self, page, col, data):
        window = self._window
        window[2] = col
        window[5] = page
        self.i2c.writeto(self.addr, window)
        if self._writev is None:
            self.i2c.writeto(self.addr, DATA + bytes(data))
            return
        vector = self._vector
        vector[1] = data
        self._writev(self.addr, vector)  # one transfer, control byte then data, without joining them
        vector[1] = b""

    def clear(self):
        blank = bytes(128)
        for page in range(8):
            self.write(page, 0, blank)
