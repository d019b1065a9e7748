# ruff: noqa: F821  (ptr8, ptr32 are viper's own types, known to MicroPython's compiler only)
"""An answer that leaves at its slot's microsecond, on the RP2040 only (rs485.py imports it when sys.platform is
"rp2"): the wait for the slot and the first byte in machine code, not interpreted MicroPython.

Why: interpreted, the wait (``time.sleep_us`` in a loop) and ``RS485.write`` (``Pin.value``, ``UART.write``)
started an answer 115-206 µs after the slot's start, varying by some 90 µs from one answer to the next
(firmware/PROTOCOL.md, "Slot timing"), more than a short guard between slots can hide. Here one viper function
spins on the chip's own microsecond counter to an absolute deadline, raises DE, and puts the whole frame in the
UART's 32-byte transmit FIFO at once (a slot's answer is 17 bytes), so the first start bit leaves a fixed time
after the deadline; it then waits until the last stop bit is out and drops DE.

Registers (RP2040 datasheet; pico-sdk 2.1 src/rp2040/hardware_regs/include/hardware/regs/):
- addressmap.h: TIMER_BASE 0x40054000, UART0_BASE 0x40034000, UART1_BASE 0x40038000, SIO_BASE 0xd0000000.
- timer.h: TIMER_TIMERAWL_OFFSET 0x28, the low word of the 1 MHz counter read without latching. MicroPython
  1.25's ports/rp2/mphalport.h has ``mp_hal_ticks_us() { return time_us_32(); }`` and time_us_32 reads timerawl,
  and extmod/modtime.c masks it to MICROPY_PY_TIME_TICKS_PERIOD (2**30): so its low 30 bits are
  ``time.ticks_us()``, and a deadline taken from ``time.ticks_add`` is compared with it in 30 bits here.
- sio.h: SIO_GPIO_OUT_SET_OFFSET 0x14, SIO_GPIO_OUT_CLR_OFFSET 0x18 (a write of a pin's bit sets or clears it
  alone, nothing else on the port moves).
- m0plus.h: M0PLUS_NVIC_ISER_OFFSET 0xe100, M0PLUS_NVIC_ICER_OFFSET 0xe180 from PPB_BASE 0xe0000000 (ARMv6-M:
  reading ISER gives the enabled interrupts; a 1 written to ICER disables one, to ISER enables it).
- uart.h: UART_UARTDR_OFFSET 0x00; UART_UARTFR_OFFSET 0x18 with TXFF 0x20 (transmit FIFO full), BUSY 0x08
  (set while the FIFO holds a byte or the shifter sends one, stop bits included), RXFE 0x10 (receive FIFO empty).

MicroPython's UART driver keeps its own transmit ring buffer, which its TX interrupt moves into the FIFO. The
caller flushes it first (``UART.flush``: ring empty and the line idle), so the bytes written to DR here are the
only ones in the FIFO and nothing else writes DR meanwhile; the driver's TX interrupt, raised when the FIFO drains
to half, finds its ring empty and only clears itself (machine_uart.c, uart_service_interrupt), as after any
write of its own.

On a real Pico this code runs from flash through the XIP cache (frozen modules' machine code stays in flash):
the spin warms its own cache lines, but the few instructions after it (DE, the FIFO writes) may miss once, a
microsecond or so each, the same for every node (docs/hardware-truth.md).
"""

import micropython

MASK = 0x3FFFFFFF  # time.ticks_us() wraps at 2**30
HALF = 0x20000000  # a difference with this bit set is negative (ticks_diff's rule)

# The argument block's words (an array("I") made once, so an answer allocates nothing). rs485.py writes the ones
# that change per answer by number (its _GO ... _NEXT_TO consts: a module attribute's lookup costs the emulated
# chip some 5 µs, and write_at made a dozen; tests/firmware/test_fw_compiled_numbers.py holds the two to the same
# numbers).
TIMER = 0  # address of TIMERAWL
UART = 1  # the UART's base (DR; FR is word 6)
SIO = 2  # address of GPIO_OUT_SET (GPIO_OUT_CLR is the next word)
DE = 3  # the DE pin's bit (0: no DE pin)
DE_LEAD = 4  # DE goes up this many µs before the first byte goes into the FIFO (set once)
GO = 5  # ticks_us when the first byte goes into the FIFO
WATCH_FROM = 6  # ticks_us from which a received byte ends the wait (the host talking)...
WATCH_TO = 7  # ...until this; equal to WATCH_FROM: nothing watched
LATEST = 8  # ticks_us after which the answer is not begun (it would run into the next slot)
NVIC = 9  # address of the NVIC's ISER (ICER is 32 words on)
QUIET_LEAD = 10  # interrupts go off this many µs before GO, until DE drops (set once: QUIET_US)
STAMP_AT = 11  # ticks_us of the last receive timeout, written by rs485.py's interrupt handler
AGAIN = 12  # 0, or the µs to the same slot in the next round: a wait that finds LATEST gone by takes that one
NEXT_FROM = 13  # ...watching the master slot before it from here
NEXT_TO = 14  # ...to here
WORDS = 15
# Interrupts go off this long before the slot. An interrupt begun just before that moment must be over before the
# slot's LATE_START_US is: the previous slot's answer ends a guard before this one, and its receive timeout and
# handler land right there. At 60 µs (longer than the longest interrupt seen alone, 46 µs) a seat behind a
# neighbour with news was late round after round and lost every answer of a window (traced on emulated Picos,
# firmware/PROTOCOL.md "The nodes' own time"). The UART's 32-byte receive FIFO holds what arrives meanwhile.
QUIET_US = 150
ADVANCED = 0x100000  # added to send_at's answer when it took the next round's slot (AGAIN)

UART_BASES = (0x40034000, 0x40038000)
TIMERAWL = 0x40054028
GPIO_OUT_SET = 0xD0000014
NVIC_ISER = 0xE000E100


@micropython.viper
def send_at(p: ptr32, data: ptr8, n: int) -> int:
    """Send ``n`` bytes of ``data`` with the first put in the transmit FIFO at ``p[GO]`` and DE raised
    ``p[DE_LEAD]`` µs before; the answer is how many µs after its slot's start the first byte went in (0 or 1 when
    on time), plus ADVANCED when that slot was the next round's (``p[AGAIN]``), -1 when a byte arrived in the
    watch (or the receive timeout stamped a burst that ended there), or -2 when it is past ``p[LATEST]`` (and
    there is no next round to take; in both cases nothing was sent).

    From ``p[QUIET_LEAD]`` µs before the slot until DE drops the interrupts are off (NVIC), so that no handler (the
    UART's receive interrupt and its Python receive-timeout handler, a timer) lands between DE and the first byte
    or between the last stop bit and DE's fall: on the emulated chip one such handler held DE up 155 µs past an
    answer.

    Why the next round here and not in the caller: the interpreted path from choosing a slot to this wait takes
    the emulated chip 0.3-1 ms, and one that found its slot gone by went back round the loop and chose again, which
    took as long and often lost the next round too (a press 7 ms late at 4 seats, firmware/PROTOCOL.md "The slot
    path"). The answer's events' ages are then a round short (1.5 ms at 4 seats): the host's times of presses are
    milliseconds anyway."""
    timer = ptr32(p[0])
    uart = ptr32(p[1])
    sio = ptr32(p[2])
    nvic = ptr32(p[9])
    de = p[3]
    go = p[5]
    wfrom = p[6]
    wto = p[7]
    latest = p[8]
    again = p[12]
    advanced = 0
    enabled = 0
    while True:
        quiet = (go - p[10]) & 0x3FFFFFFF
        # A receive-timeout stamp up to 100 µs after the watch's end (LISTEN_WATCH_TO_US: the master slot's end)
        # is still the master slot's: the host's frame, whose bytes the driver's interrupt took out of the FIFO
        # before this wait could see them. A seat's answer in the next round's first slot is stamped about 100 µs
        # later.
        stamps = ((wto - wfrom) & 0x3FFFFFFF) + 100
        if wto == wfrom:
            stamps = 0
        while True:  # to the quiet moment, watching the line in the master slot
            now = timer[0]
            if ((now - wto) & 0x3FFFFFFF) & 0x20000000 and not (((now - wfrom) & 0x3FFFFFFF) & 0x20000000):  # noqa: SIM102
                if not (uart[6] & 0x10):  # (viper has no "not" of a value, only in a condition)
                    return -1  # a byte in the receive FIFO while no node talks: the host
            if ((p[11] - wfrom) & 0x3FFFFFFF) < stamps:
                # A burst that ended in the master slot, its bytes already taken from the FIFO by the driver's
                # interrupt (they came before this wait began, after the caller's look at the stamp): the host.
                return -1
            if not (((now - quiet) & 0x3FFFFFFF) & 0x20000000):
                break
        enabled = nvic[0]
        nvic[32] = enabled  # ICER: every enabled interrupt off
        if ((timer[0] - latest) & 0x3FFFFFFF) & 0x20000000:
            break  # on time
        nvic[0] = enabled
        if again == 0 or advanced != 0:
            return -2  # the slot went by while the node was busy: talking now would run into the next one
        advanced = 0x100000  # ADVANCED: the same slot in the next round, watching the master slot before it
        go = (go + again) & 0x3FFFFFFF
        latest = (latest + again) & 0x3FFFFFFF
        wfrom = p[13]
        wto = p[14]
    rise = (go - p[4]) & 0x3FFFFFFF
    while ((timer[0] - rise) & 0x3FFFFFFF) & 0x20000000:
        pass
    if de:
        sio[0] = de
    while ((timer[0] - go) & 0x3FFFFFFF) & 0x20000000:
        pass
    i = 0
    while i < n:
        while uart[6] & 0x20:
            pass
        uart[0] = data[i]
        i += 1
    late = (timer[0] - go) & 0x3FFFFFFF
    while uart[6] & 0x08:
        pass
    if de:
        sio[1] = de
    nvic[0] = enabled  # ISER: back on; what came meanwhile is handled now
    return late + advanced
