# ruff: noqa: F821  (ptr8, ptr32 are viper's own types, known to MicroPython's compiler only)
"""A panel write that goes out while the loop runs on, on the RP2040 only (ssd1306.py uses it when sys.platform is
"rp2"): the bytes go into the I2C block's transmit FIFO a few at a time, and the block sends them by itself.

Why: ``machine.I2C.writeto`` holds the loop for the whole transfer, and the node draws its panel a chunk at a time
between bus frames: a 32-byte chunk and its control byte, 33 bytes at 400 kHz, is 0.74 ms on the wire (0.87 ms
with the call). At the deal on emulated Picos 36 % of the POLL_ALLs arrived while a chunk was going out, and those
were taken 1.13 ms after their end at the median (p90 1.60, up to 3.6 ms) against 0.56 ms between chunks: more
than the POLL_ALL's 1.5 ms lead leaves, so their seats missed their slots (firmware/PROTOCOL.md, "The panel drawn
while the loop runs"). Here a chunk costs the loop the few microseconds of putting bytes in the FIFO.

The RP2040's I2C (a DW_apb_i2c) holds SCL low while its transmit FIFO is empty and the last byte written did not
ask for a STOP (IC_DATA_CMD.STOP: "if the Tx FIFO is empty, the master holds the SCL line low and stalls the bus
until a new command is available"), so a transfer fed a pass of the loop late only pauses; the SSD1306 waits with
it. The STOP goes with the last byte. The pico-sdk's own blocking write (``i2c_write_blocking``, which
``machine.I2C.writeto`` calls) works the same way, a byte at a time.

Registers (RP2040 datasheet, 4.3; pico-sdk 2.1 src/rp2040/hardware_regs/include/hardware/regs/i2c.h), as word
indexes from the block's base (I2C0_BASE 0x40044000, I2C1_BASE 0x40048000):
- IC_TAR 0x04 (word 1): the target's 7-bit address; written only with the block disabled (IC_ENABLE 0x6c, word 27),
  as the sdk does before each of its transfers.
- IC_DATA_CMD 0x10 (word 4): a byte to send, bit 9 STOP after it.
- IC_RAW_INTR_STAT 0x34 (word 13): bit 6 TX_ABRT (the target did not ACK: the FIFO was flushed and a STOP sent),
  bit 9 STOP_DET (the transfer's STOP is on the bus).
- IC_CLR_TX_ABRT 0x54 (word 21), IC_CLR_STOP_DET 0x60 (word 24): read to clear.
- IC_STATUS 0x70 (word 28): bit 1 TFNF (the transmit FIFO has room).
- IC_ENABLE 0x6c (word 27): bit 1 ABORT ends a transfer (a STOP, the FIFO flushed; the block clears the bit).

Between two of these transfers the block is idle, so ``machine.I2C`` may use it as before (the panel's window and
DISPLAY_CMD's commands go that way, after the last chunk has stopped: ssd1306.py).
"""

import micropython

BASES = (0x40044000, 0x40048000)

# The block's words (an array("I") made once: a write allocates nothing). The viper functions below index them by
# number, as rp2send.py does (a module name read in viper is a Python object's lookup); ssd1306.py by these names.
HW = 0  # the I2C block's base
AT = 1  # the next byte of the transfer to go into the FIFO
N = 2  # the transfer's length (0: none going on)
WORDS = 3


@micropython.viper
def begin(p: ptr32, addr: int) -> int:
    """Ready the block for a transfer to ``addr``: the last one's STOP and any abort cleared, the target set
    (with the block disabled for it, as the sdk does). The caller then feeds the bytes (``feed``)."""
    hw = ptr32(p[0])
    # Read to clear: STOP_DET, TX_ABRT (the value is used, ``& 0``, so that the reads stay).
    seen = hw[24] | hw[21]
    if (hw[1] & 0x3FF) != addr:
        hw[27] = 0
        hw[1] = addr
        hw[27] = 1
    return seen & 0


@micropython.viper
def feed(p: ptr32, data: ptr8) -> int:
    """Put the transfer's next bytes in the transmit FIFO while it has room, the STOP with the last; the bytes
    still to go."""
    hw = ptr32(p[0])
    at = p[1]
    n = p[2]
    while at < n and (hw[28] & 2):
        if at == n - 1:
            hw[4] = data[at] | 0x200
        else:
            hw[4] = data[at]
        at += 1
    p[1] = at
    return n - at


@micropython.viper
def state(p: ptr32) -> int:
    """1 while the transfer goes on, 0 once its STOP is on the bus (or none was begun), -1 when the target did not
    answer (the block flushed the FIFO and stopped: what ``machine.I2C.writeto`` raises OSError for). A transfer
    that ended is forgotten: the next call says 0."""
    if p[2] == 0:
        return 0
    hw = ptr32(p[0])
    raw = hw[13]
    if raw & 0x40:
        seen = hw[21]
        p[1] = 0
        p[2] = 0
        return -1 + (seen & 0)
    if p[1] < p[2]:
        return 1
    if raw & 0x200:
        seen = hw[24]
        p[1] = 0
        p[2] = 0
        return seen & 0
    return 1


@micropython.viper
def abort(p: ptr32) -> int:
    """End the transfer now (one that outlived its time: a target holding SCL low); it is forgotten."""
    hw = ptr32(p[0])
    hw[27] = 3
    p[1] = 0
    p[2] = 0
    return 0
