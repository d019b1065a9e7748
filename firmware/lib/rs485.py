"""The bus side of the node: a UART plus the RS-485 transceiver's driver-enable pin.

DE is high only while this node transmits: a node that held the line would silence every other seat. Over USB
or a transparent radio there is no DE pin (``de=None``).
"""

import time

from mpcompat import micropython

IDLE_VALVE_US = 5000  # read anyway after this long without a receive timeout (one the FIFO's reads defeated)


class RS485:
    def __init__(self, uart, de=None, baud=1000000):
        self.uart = uart
        self.de = de
        self.held = b""  # bytes read while waiting for a slot, handed out by the next readinto()
        if de is not None:
            de.value(0)
        # When the line went quiet: the UART's receive timeout (32 bit periods after the last byte, while its
        # FIFO holds any) stamps it in a hard interrupt, whatever the loop is doing (drawing, a card scan, a
        # collection). A slot is timed from there, not from when the loop got round to the frame (up to a loop
        # pass later: milliseconds on the chip, benchmarks/node_slots.py). So the node reads the UART only once
        # the line went quiet: reading its FIFO empty earlier would leave the timeout nothing to time.
        self.idle_at = 0
        self.idles = 0  # counted by the interrupt
        self.seen = 0  # ...and by the reads
        self.more = False  # the last read left bytes behind
        self.got_at = time.ticks_us()
        self.burst_end = self.got_at
        self.idle_us = 32 * 1000000 // baud
        self.stamped = False
        trigger = getattr(uart, "IRQ_RXIDLE", 0)
        if trigger and hasattr(uart, "irq"):
            uart.irq(handler=self._idle, trigger=trigger, hard=True)
            self.stamped = True
        self.slot_timed = self.stamped  # IDENTITY's CAP_SLOT_TIMED: a stock MicroPython before 1.23 has no RXIDLE

    def _idle(self, uart):
        """The receive timeout's interrupt (hard: it must not allocate)."""
        self.idle_at = time.ticks_us()
        self.idles = (self.idles + 1) & 0xFFFF

    @micropython.native
    def readinto(self, buf, most):
        """Put at most ``most`` of the bytes that have arrived at the start of ``buf``; the number of bytes. Only
        what is there: the rp2 port's read() with no size waits for the line to be quiet for its inter-character
        timeout (at least 1 ms, up to 2 with its millisecond clock) on every frame. Nothing is allocated."""
        held = self.held
        if held:
            k = min(len(held), most)
            buf[:k] = held[:k]
            self.held = held[k:]
            return k
        now = time.ticks_us()
        if self.stamped and not self.more:
            if self.idles != self.seen:
                self.seen = self.idles
                self.burst_end = time.ticks_add(self.idle_at, -self.idle_us)
            elif time.ticks_diff(now, self.got_at) < IDLE_VALVE_US:
                return 0  # the line has not gone quiet since the last read
            else:
                self.got_at = now  # a burst the timeout missed (its FIFO read empty at its very end): now, then
                self.burst_end = now
        n = self.uart.any()
        if not n or not most:
            return 0
        k = self.uart.readinto(buf, min(n, most)) or 0
        self.more = n > k
        self.got_at = now
        if not self.stamped:
            self.burst_end = now
        return k

    def read_at(self):
        """When the frame just read ended on the line, as near as this node can tell (see ``__init__``)."""
        return self.burst_end if self.stamped else self.us()

    @micropython.native
    def waiting(self):
        """True when bus bytes are waiting to be read (the node should read them before slow work)."""
        if self.stamped:
            return bool(self.held) or self.more or self.idles != self.seen
        return bool(self.held) or bool(self.uart.any())

    def write(self, data):
        if self.de is not None:
            self.de.value(1)
        self.uart.write(data)
        self.uart.flush()  # returns once the last stop bit is out, so DE drops after the frame, not during it
        if self.de is not None:
            self.de.value(0)

    def us(self):
        """A microsecond timestamp (it wraps: compare with ``since``)."""
        return time.ticks_us()

    def since(self, then):
        return time.ticks_diff(time.ticks_us(), then)

    def write_after(self, delay_us, data, watch=None):
        """Write ``data`` ``delay_us`` from now: an answer in a POLL_ALL or LISTEN slot. The node only answers when
        it has news and a slot is near (at most one round away, a few ms), so blocking for it is rare and short.

        ``watch`` (from_us, to_us): a master slot the wait crosses. Bytes that arrive in it are the host talking,
        which ends the LISTEN window: then nothing is sent and the answer is False (the bytes are kept for
        ``read``)."""
        start = time.ticks_us()
        if watch is not None:
            self._sleep_until(start, watch[0])
            n = self.uart.any()
            if n:
                self.held += self.uart.read(n)  # other nodes' answers, before the master slot
            self._sleep_until(start, watch[1])
            if self.uart.any():
                self.more = True  # the host's frame: read it at once
                return False
        self._sleep_until(start, delay_us)
        self.write(data)
        return True

    @staticmethod
    def _sleep_until(start, offset_us):
        """Busy-wait to ``offset_us`` after ``start``, in pieces under a millisecond: the rp2 port's sleep_us of
        more than 1,000 µs first sleeps whole milliseconds on its millisecond clock, which overshot a slot's start
        by up to a millisecond on the emulated chip (benchmarks/node_slots.py); under it, it spins on the
        microsecond timer."""
        while True:
            left = offset_us - time.ticks_diff(time.ticks_us(), start)
            if left <= 0:
                return
            time.sleep_us(left if left < 1000 else 900)
