# ruff: noqa: F821  (ptr32 is viper's own type, known to MicroPython's compiler only)
"""A card reader's register access straight on the SPI block, on the RP2040 only (mfrc522.py uses it when board.py
knows the SPI block's number and the chip-select pin's).

Why: an access through ``machine.SPI`` and ``machine.Pin`` (chip select down, two bytes out and in, chip select
up) cost the emulated chip some 90 µs, four method calls and their lookups, and a scan step is eight of them: each
step of a card scan held the node's loop 0.7 ms, twice a scan, while a press waited for it (firmware/PROTOCOL.md,
"A press's way to its slot"). Here the same bytes go through the PL022's data register in a few microseconds.
``machine.SPI`` still sets the block up (its pins, clock and format); only the transfers bypass it.

Registers (RP2040 datasheet; pico-sdk 2.1 src/rp2040/hardware_regs/include/hardware/regs/): addressmap.h
SPI0_BASE 0x4003c000, SPI1_BASE 0x40040000, SIO_BASE 0xd0000000; spi.h SSPDR 0x008, SSPSR 0x00c (TNF bit 1, RNE
bit 2, BSY bit 4); sio.h GPIO_OUT_SET 0x014, GPIO_OUT_CLR 0x018.
"""

import micropython
from micropython import const

SPI_BASES = (0x4003C000, 0x40040000)
GPIO_OUT_SET = 0xD0000014
GPIO_OUT_CLR = 0xD0000018

# The block's words (an array("I") made once, so an access allocates nothing; the addresses are kept there because
# a literal past 2**30 would be a long integer in viper).
BASE = const(0)  # the SPI block's base
SET = const(1)  # GPIO_OUT_SET's address
CLR = const(2)  # GPIO_OUT_CLR's address
CS = const(3)  # the chip-select pin's bit
WORDS = const(4)

_DR = const(2)  # SSPDR, in words from the base
_SR = const(3)  # SSPSR
_RNE = const(4)
_BSY = const(16)
_SPIN = const(2000)  # a block that never answers (not clocked) gives up after this many looks: no hang, no reset


@micropython.viper
def access(p: ptr32, first: int, second: int) -> int:
    """Chip select down, ``first`` and ``second`` out, chip select up; the byte that came in with ``second`` (a
    register's value in a read: MFRC522 §8.1.2), or -1 if the block never answered."""
    ssp = ptr32(p[BASE])
    while ssp[_SR] & _RNE:  # anything left in the receive FIFO is not this access's
        got = ssp[_DR]
    cs = p[CS]
    ptr32(p[CLR])[0] = cs
    ssp[_DR] = first
    ssp[_DR] = second
    got = -1
    n = 0
    spin = 0
    while n < 2 and spin < _SPIN:
        if ssp[_SR] & _RNE:
            got = ssp[_DR] & 0xFF
            n += 1
        else:
            spin += 1
    while ssp[_SR] & _BSY and spin < _SPIN:
        spin += 1
    ptr32(p[SET])[0] = cs
    return got if n == 2 else -1


@micropython.viper
def writes(p: ptr32, pairs: ptr8, n: int) -> int:
    """Register writes, one access each: ``pairs`` holds n bytes, (address byte, value) after each other (a scan
    step's eight writes in one call: each call from Python is tens of µs on the chip). How many went through."""
    ssp = ptr32(p[BASE])
    cs = p[CS]
    clr = ptr32(p[CLR])
    put = ptr32(p[SET])
    done = 0
    drained = 0  # (what came in is read to empty the FIFO, and not kept)
    i = 0
    while i + 1 < n:
        while ssp[_SR] & _RNE:
            drained ^= ssp[_DR]
        clr[0] = cs
        ssp[_DR] = pairs[i]
        ssp[_DR] = pairs[i + 1]
        k = 0
        spin = 0
        while k < 2 and spin < _SPIN:
            if ssp[_SR] & _RNE:
                drained ^= ssp[_DR]
                k += 1
            else:
                spin += 1
        while ssp[_SR] & _BSY and spin < _SPIN:
            spin += 1
        put[0] = cs
        if k == 2:
            done += 1
        i += 2
    return done
