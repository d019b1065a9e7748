# ruff: noqa: F821  (ptr32 is viper's own type, known to MicroPython's compiler only)
"""Every button's pin read at once, on the RP2040 only (buttons.py's Bank imports it when sys.platform is "rp2").

Why: the loop looked at each button through its own ``Debounced.update`` at every pass (a method call, a
``Pin.value`` and half a dozen attribute lookups a button), and the idle pass of 0.29 ms on the emulated chip was
mostly such lookups (``benchmarks/node_reply.py --profile``: a dictionary lookup and the division inside it, a third
of the samples). The SIO's GPIO_IN register holds every pin's level: one load and a compare say whether any button
left the level last reported.

Register (RP2040 datasheet; pico-sdk 2.1 src/rp2040/hardware_regs/include/hardware/regs/): addressmap.h SIO_BASE
0xd0000000, sio.h SIO_GPIO_IN_OFFSET 0x04 (the input levels of GPIO 0-29, read without side effects).
"""

import micropython
from micropython import const

GPIO_IN = 0xD0000004

# The words of a bank (an array("I") made once): the pins' mask, the levels they should read, and GPIO_IN's address
# (kept there: a literal past 2**30 would be a long integer in viper).
MASK = const(0)
EXPECT = const(1)
REG = const(2)
WORDS = const(3)


@micropython.viper
def same(words) -> bool:
    """True when the bank's pins read the levels expected (a mask of 0 and an expectation of 1: never)."""
    b = ptr32(words)
    return (ptr32(b[REG])[0] & b[MASK]) == b[EXPECT]
