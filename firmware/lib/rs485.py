# ruff: noqa: F821  (ptr32 is viper's own type, known to MicroPython's compiler only)
"""The bus side of the node: a UART plus the RS-485 transceiver's driver-enable pin.

DE is high only while this node transmits: a node that held the line would silence every other seat. Over USB
or a transparent radio there is no DE pin (``de=None``).
"""

import sys
import time
from array import array

from mpcompat import const, micropython

_W_VALVE_US = const(5000)
IDLE_VALVE_US = _W_VALVE_US  # read anyway after this long without a receive timeout (one the FIFO's reads defeated)
_W_NO_MARK = const(0x10000)
NO_MARK = _W_NO_MARK  # a stamp taken in a read or a count: counted when that is over (or by the next read)
DE_LEAD_US = 2  # DE rises this long before the first byte goes into the FIFO (the transceiver's enable time)
MIN_FRAME_BYTES = 9  # the shortest frame: header and CRC (seatbus.py)
RXBUF = 4096  # the UART driver's receive ring (board.py): a stage's parts, back to back, fit in it
# rp2send.py's argument block, its words written per answer by number (rp2send.GO ...): compiled in, where a
# lookup of rp2send's names cost write_at a dozen attribute lookups (tests/firmware/test_fw_compiled_numbers.py).
_GO = const(5)
_WATCH_FROM = const(6)
_WATCH_TO = const(7)
_LATEST = const(8)
_AGAIN = const(12)
_NEXT_FROM = const(13)
_NEXT_TO = const(14)
_FIFO_BYTES = const(32)  # the UART's transmit FIFO: a longer answer goes through the driver (its interrupts stay on)
_ADVANCED = const(0x100000)  # send_at's answer for the next round's slot

# The link's numbers, in one array that the receive interrupt and a viper read share (w[_W_IDLE_AT] ...): kept as
# attributes, a read looked each up in the object's dictionary, some 5 µs apiece on the emulated chip, and a LISTEN's
# burst took 0.23 ms from the loop's read to its bytes in the frame reader (firmware/PROTOCOL.md, "Where a LISTEN
# waits inside a Pico").
_W_IDLE_AT = const(0)  # when the receive timeout's interrupt came
_W_IDLE_MARK = const(1)  # bytes come in all (mod 2**16) when that stamp was taken, or NO_MARK
_W_TAKEN = const(2)  # bytes read (mod 2**16)
_W_READING = const(3)  # 1 while a read or a count empties the UART (a stamp then leaves the count to it)
_W_IDLES = const(4)  # stamps counted by the interrupt...
_W_SEEN = const(5)  # ...and by the reads
_W_MORE = const(6)  # the last read left bytes behind
_W_MARK = const(7)  # the stamp being read: read up to here
_W_GOT_AT = const(8)  # when the last read was
_W_BURST_END = const(9)  # when the bytes just read ended on the line
_W_TIMED = const(10)  # ...and whether that is known
_W_IDLE_US = const(11)  # the receive timeout: 32 bit times
# The last sixteen stamps, (when, mark) each, stamp k at _W_STAMPS + 2 * (k % 16). Four were kept until firmware
# 0.9.15: a seat whose wait for its slot held its loop 1.2 ms through a round of sixteen seats' answers came back to
# more bursts than that, read them untimed (the newest's end known only), the host's new LISTEN among them, and kept
# no window: a press waited for the next one, 14 ms (benchmarks/node_slots.py --seats 16 --seed 3, traced).
_W_STAMPS = const(12)
_W_STAMPS_N = const(16)
_W_STAMPS_MASK = const(15)
_W_ENDS = const(44)  # the bursts of the last read: (mark, end on the line) each, oldest first...
_W_ENDS_N = const(76)  # ...this many
_W_RING = const(77)  # the UART driver's receive ring, read in place (_ring_at): its object's address, or 0
_W_VALVE_PUT = const(78)  # the ring's iput at the valve's last look...
_W_VALVE_LOOK = const(79)  # ...and 1 while it waits for the ring to stand still
_W_WORDS = const(80)
_W_TICKS = const(0x3FFFFFFF)  # time.ticks_us() wraps at 2**30 (rp2send.py)
_W_HALF = const(0x20000000)  # a difference past this is negative (ticks_diff's rule)

# The rp2 port's UART object (ports/rp2/machine_uart.c, MicroPython 1.25 as firmware_build.py builds it, short enums
# as arm-none-eabi lays them out): its id byte, rxbuf length, and receive ring (py/ringbuf.h: buf, size, iget, iput),
# in words (_RING_BUF) and half-words from the object's start. _ring_at checks three of them before trusting any.
_UART_ID_BYTE = const(8)
_RXBUF_HALF = const(15)
_RING_BUF = const(8)
_RING_SIZE = const(18)
_RING_PUT = const(20)

# Viper needs MicroPython with a native code emitter (framing.py asks the same way); without one no read is timed.
_viper = sys.implementation.name == "micropython" and (getattr(sys.implementation, "_mpy", 0) >> 10) != 0

if sys.platform == "rp2":
    import rp2send
    from rp2bytes import ring_take as _ring_take
else:
    rp2send = None
    _ring_take = None

if _viper:

    @micropython.viper
    def _count(w: ptr32, uart) -> int:
        """All the bytes come so far (mod 2**16), counted now. Asking the UART empties its FIFO into the driver's
        ring, and a stamp taken meanwhile would miss the bytes on their way (``_W_READING``: it leaves the count to
        the read that takes it)."""
        w[_W_READING] = 1
        mark = (w[_W_TAKEN] + int(uart.any())) & 0xFFFF
        w[_W_READING] = 0
        if w[_W_IDLE_MARK] == _W_NO_MARK:
            # A stamp taken during the count (or left for it): its burst was whole when it was taken, so this
            # count, microseconds later, holds it and nothing of a later burst's whole frame.
            w[_W_IDLE_MARK] = mark
        k = w[_W_SEEN]
        left = (w[_W_IDLES] - k) & 0xFFFF
        if left > _W_STAMPS_N:
            left = _W_STAMPS_N
        while left > 0:  # (the stamps not read yet, each as the newest's)
            i = _W_STAMPS + 2 * (k & _W_STAMPS_MASK) + 1
            if w[i] == _W_NO_MARK:
                w[i] = mark
            k += 1
            left -= 1
        return mark

    @micropython.viper
    def _read(w: ptr32, uart, buf, most: int, now: int) -> int:
        """RS485.readinto's timed read (see there): the number of bytes read; -1 when nothing was to be read and
        nothing changed, -2 when a stamp was taken with nothing to read. ``now`` is ticks_us (30 bits: differences
        as time.ticks_diff takes them)."""
        if w[_W_MORE] == 0:
            idles = w[_W_IDLES]
            seen = w[_W_SEEN]
            mark = 0
            if idles != seen:
                w[_W_VALVE_LOOK] = 0  # (a stamp: the valve's look, if any, is over)
                # Every stamp not read yet, each burst's end kept with its mark (``_W_ENDS``): the bytes of all are
                # read at once, and a frame is timed by the end of its own burst (``read_at_end``), not by the
                # last one's (a seat held by a collection read the host's LISTEN with another seat's answer after
                # it, put its window 1.7 ms late, and answered in a master slot over the host:
                # benchmarks/node_slots.py, 16 seats).
                timed = 1
                if ((idles - seen) & 0xFFFF) > _W_STAMPS_N:  # stamps written over: the newest, its end known only
                    seen = (idles - 1) & 0xFFFF
                    timed = 0
                first = seen
                ends = 0
                at = 0
                while seen != idles:
                    i = _W_STAMPS + 2 * (seen & _W_STAMPS_MASK)
                    at = w[i]
                    mark = w[i + 1]
                    if mark == _W_NO_MARK:
                        mark = int(_count(w, uart))
                    w[_W_ENDS + 2 * ends] = mark
                    w[_W_ENDS + 2 * ends + 1] = (at - w[_W_IDLE_US]) & _W_TICKS
                    ends += 1
                    seen = (seen + 1) & 0xFFFF
                if ((w[_W_IDLES] - first) & 0xFFFF) > _W_STAMPS_N:
                    return -1  # written over meanwhile: again at the next read
                w[_W_SEEN] = seen
                w[_W_ENDS_N] = ends
                w[_W_BURST_END] = (at - w[_W_IDLE_US]) & _W_TICKS
                w[_W_TIMED] = timed
            elif ((((now - w[_W_GOT_AT]) & _W_TICKS) + _W_HALF) & _W_TICKS) - _W_HALF < _W_VALVE_US:
                return -1  # the line has not gone quiet since the last read
            else:
                # A burst the timeout missed (its FIFO emptied at its very end, or read meanwhile): now, then. But
                # not in the middle of a burst: a valve read half a LISTEN's second copy, the window went untimed,
                # and a press waited a whole window (benchmarks/node_slots.py, 4 seats: 13 ms). Where the ring is
                # known, the valve reads once its iput stood still from one look to the next (a loop pass apart:
                # the receive interrupt moves bytes in every few byte times while a burst comes).
                ring = w[_W_RING]
                if ring:
                    put = int(ptr16(ring)[_RING_PUT])
                    if w[_W_VALVE_LOOK] == 0 or put != w[_W_VALVE_PUT]:
                        w[_W_VALVE_PUT] = put
                        w[_W_VALVE_LOOK] = 1
                        return -1
                    w[_W_VALVE_LOOK] = 0
                mark = int(_count(w, uart))
                w[_W_GOT_AT] = now
                w[_W_BURST_END] = now
                w[_W_TIMED] = 0
                w[_W_ENDS_N] = 0
            w[_W_MARK] = mark
        n = (w[_W_MARK] - w[_W_TAKEN]) & 0xFFFF  # the stamped bytes not read yet: all in the driver's ring
        if n & 0x8000:  # a count behind what was read (it went wrong): count anew
            w[_W_MARK] = int(_count(w, uart))
            w[_W_TIMED] = 0
            n = (w[_W_MARK] - w[_W_TAKEN]) & 0xFFFF
        if n == 0 or most == 0:
            w[_W_MORE] = 0
            return -2  # nothing read, but a stamp was taken (``_W_TIMED``)
        want = n if n < most else most
        w[_W_READING] = 1  # (a stamp taken now cannot count what this read takes: RS485._idle)
        k = 0
        ring = w[_W_RING]
        if ring:
            # Straight out of the driver's ring (_ring_at) in machine code (rp2bytes.py): its read() costs the chip
            # 1.2 µs a byte (a 64-bit division for its millisecond clock at every byte), 0.3 ms for a screen frame
            # that every seat reads. (A poll's 11 bytes take as long this way as in a viper loop.)
            k = int(_ring_take(ring, buf, want))
        else:
            got = uart.readinto(buf, want)
            if got:
                k = int(got)
        w[_W_TAKEN] = (w[_W_TAKEN] + k) & 0xFFFF
        w[_W_READING] = 0
        if k < want:
            w[_W_MARK] = w[_W_TAKEN]  # fewer than counted: never wait on a count gone wrong; the next stamp counts anew
            n = k
        w[_W_MORE] = 1 if n > k else 0
        w[_W_GOT_AT] = now
        return k

    @micropython.viper
    def quiet(w: ptr32) -> bool:
        """Nothing to read: no burst stamped since the last read, that read left nothing behind, and the valve is
        not looking (the node's loop then skips the bus, node.py's step; the valve's due time is the caller's)."""
        return w[_W_IDLES] == w[_W_SEEN] and w[_W_MORE] == 0 and w[_W_VALVE_LOOK] == 0

    @micropython.viper
    def _ring_at(address: int, uart_id: int, rxbuf: int) -> int:
        """``address`` (the UART object's) when the object is laid out as _RING_BUF and the rest say: its id, its
        rxbuf and its ring's size (rxbuf + 1) where they should be, and a ring there; else 0 (read() then)."""
        if ptr8(address)[_UART_ID_BYTE] != uart_id:
            return 0
        half = ptr16(address)
        if half[_RXBUF_HALF] != rxbuf or half[_RING_SIZE] != rxbuf + 1:
            return 0
        if ptr32(address)[_RING_BUF] == 0:
            return 0
        return address

else:
    _read = None
    _ring_at = None
    quiet = None


class RS485:
    def __init__(self, uart, de=None, baud=1000000, uart_id=None, de_gpio=None):
        self.uart = uart
        self.de = de
        # The native answer (rp2send.py) where the chip's registers are known: the UART's number and the DE pin's
        # (config.json's [uart] id and de); elsewhere (the unix port, a board without them) the Python wait.
        self.native = None
        if rp2send is not None and uart_id in (0, 1) and (de is None or isinstance(de_gpio, int)):
            p = array("I", bytes(4 * rp2send.WORDS))
            p[rp2send.TIMER] = rp2send.TIMERAWL
            p[rp2send.UART] = rp2send.UART_BASES[uart_id]
            p[rp2send.SIO] = rp2send.GPIO_OUT_SET
            p[rp2send.DE] = 0 if de is None else 1 << de_gpio
            p[rp2send.DE_LEAD] = DE_LEAD_US
            p[rp2send.NVIC] = rp2send.NVIC_ISER
            p[rp2send.QUIET_LEAD] = rp2send.QUIET_US
            self.native = p
        self.slot_exact = self.native is not None  # IDENTITY's CAP_SLOT_EXACT: answers begun at the slot's µs
        self.held = b""  # bytes read while waiting for a slot, handed out by the next readinto()
        if de is not None:
            de.value(0)
        # When the line went quiet: the UART's receive timeout (32 bit periods after the last byte, while its
        # FIFO holds any) stamps it in a hard interrupt, whatever the loop is doing (drawing, a card scan, a
        # collection). A slot is timed from there, not from when the loop got round to the frame (up to a loop
        # pass later: milliseconds on the chip, benchmarks/node_slots.py). So the node reads the UART only once
        # the line went quiet: reading its FIFO empty earlier would leave the timeout nothing to time.
        # A stamp is the end of the bytes that had come when it was taken, not of any that came after: a node whose
        # loop reached the UART after the host's next frame had come, but before that frame's own timeout, read
        # both under the stamp of the answer before it, counted a LISTEN window hundreds of µs early and answered
        # over its neighbour (firmware/PROTOCOL.md, "The nodes' own time"). So the interrupt notes how many bytes
        # had come in all (``idle_mark``, against ``taken``, the bytes read), and a read under that stamp takes no
        # more. Nor does it ask the UART how many are waiting (``any()``): that empties the receive FIFO, and
        # bytes emptied within 32 bit times of their burst's end never get a timeout (0.9.1 did, and replies by
        # name waited for the valve below).
        self.w = w = array("i", bytes(4 * _W_WORDS))  # (_W_IDLE_AT ...)
        w[_W_GOT_AT] = w[_W_BURST_END] = time.ticks_us()
        w[_W_IDLE_US] = self.idle_us = 32 * 1000000 // baud
        self.stamped = False
        if rp2send is not None and _ring_at is not None and uart_id in (0, 1):
            w[_W_RING] = int(_ring_at(id(uart), uart_id, RXBUF))
        # A stamp taken during a read or a count (NO_MARK) was counted when the next read took it, and by then a
        # later burst may have come whose own timeout had not: a LISTEN read with a seat's answer before it, under
        # the answer's stamp, put the window 684 µs early and the node answered in the host's master slot
        # (benchmarks/node_slots.py, seed 1). So it is counted as soon as the read or count it landed in is over,
        # if that is before a later burst can hold a whole frame (``fresh_us`` after the stamped burst's end; a
        # longer read leaves it to the next, as before: answering in no slot of such a window cost presses 100 ms).
        # Whether the last read's end on the line is known (``read_at``): not for a read the valve let through (a
        # timeout missed), nor after a count gone wrong; the node answers no slot from their frames (a window's
        # second copy, or the next poll, times it again).
        self.timed = True
        self.fresh_us = MIN_FRAME_BYTES * 10 * 1000000 // baud
        trigger = getattr(uart, "IRQ_RXIDLE", 0)
        if trigger and hasattr(uart, "irq") and _read is not None:
            uart.irq(handler=self._idle, trigger=trigger, hard=True)
            self.stamped = True
        self.quiet = quiet if self.stamped else None  # (node.py's step looks before it reads)
        self.slot_timed = self.stamped  # IDENTITY's CAP_SLOT_TIMED: a stock MicroPython before 1.23 has no RXIDLE
        # IDENTITY's CAP_LISTEN_LEAD: the chip takes a LISTEN in 1.35 ms and more, and asks for a window that
        # begins that much later (seatbus.LISTEN_LEAD_US), timed from the frame's end as every slot is.
        self.wants_lead = self.stamped

    @micropython.native
    def _idle(self, uart):
        """The receive timeout's interrupt (hard: it must not allocate)."""
        w = self.w
        at = time.ticks_us()
        w[_W_IDLE_AT] = at
        # (The driver has put the FIFO's bytes in its ring.) While the loop reads or counts, the ring may have
        # given up bytes that ``_W_TAKEN`` does not count yet, or the FIFO may hold some on their way to it: the read
        # that takes this stamp counts them itself (NO_MARK).
        mark = NO_MARK if w[_W_READING] else (w[_W_TAKEN] + uart.any()) & 0xFFFF
        w[_W_IDLE_MARK] = mark
        k = w[_W_IDLES]
        i = _W_STAMPS + 2 * (k & _W_STAMPS_MASK)
        w[i] = at
        w[i + 1] = mark
        w[_W_IDLES] = (k + 1) & 0xFFFF
        p = self.native
        if p is not None:
            p[rp2send.STAMP_AT] = at  # for the machine-code wait's watch (rp2send.send_at)

    @micropython.native
    def readinto(self, buf, most):
        """Put at most ``most`` of the bytes that have arrived at the start of ``buf``; the number of bytes. Only
        what is there: the rp2 port's read() with no size waits for the line to be quiet for its inter-character
        timeout (at least 1 ms, up to 2 with its millisecond clock) on every frame. Nothing is allocated.

        A timed read (``_read``) takes only the bytes that had come when the last receive timeout was stamped, and
        says when they ended on the line (``read_at``); see ``__init__``."""
        held = self.held
        if held:
            k = min(len(held), most)
            buf[:k] = held[:k]
            self.held = held[k:]
            return k
        now = time.ticks_us()
        w = self.w
        if not self.stamped:
            n = self.uart.any()
            if not n or not most:
                return 0
            k = self.uart.readinto(buf, min(n, most)) or 0
            w[_W_MORE] = n > k
            w[_W_GOT_AT] = w[_W_BURST_END] = now
            return k
        k = _read(w, self.uart, buf, most, now)
        if k < 0:
            if k == -2:
                self.timed = w[_W_TIMED] != 0
            return 0
        self.timed = w[_W_TIMED] != 0
        if (w[_W_IDLE_MARK] == NO_MARK
                and time.ticks_diff(time.ticks_us(), time.ticks_add(w[_W_IDLE_AT], -self.idle_us)) <= self.fresh_us):
            # A stamp landed during this read: count for it now (_count), before a later burst can have come
            # whole (``timed``), not when the next read takes it.
            _count(w, self.uart)
        return k

    @micropython.native
    def read_at(self):
        """When the frame just read ended on the line, as near as this node can tell (see ``__init__``; not known
        at all when ``timed`` is False)."""
        return self.w[_W_BURST_END] if self.stamped else self.us()

    @micropython.native
    def read_at_end(self, left):
        """When the frame just read ended on the line, the frame being followed by ``left`` bytes of the same read:
        the end of its own burst (a read takes every burst whose stamp came, ``_read``), or ``read_at``'s."""
        if not self.stamped:
            return self.read_at()
        w = self.w
        count = (w[_W_TAKEN] - left) & 0xFFFF
        i = _W_ENDS
        last = _W_ENDS + 2 * w[_W_ENDS_N]
        while i < last:
            mark = w[i]
            if ((mark - count) & 0xFFFF) < 0x8000:  # this burst's mark is at or past the frame's end
                # A stamp counted late (taken during a read, counted by the read that took it: ``_read``) holds
                # every byte come by then, a later burst's too, whose own stamp has the same mark: a frame that
                # ends right there is that later burst's (a seat's wait crossed the host's LISTEN after such a
                # stamp, and it timed the window from the answer before: firmware/PROTOCOL.md, "A stamp counted
                # late").
                while mark == count and i + 2 < last and w[i + 2] == mark:
                    i += 2
                return w[i + 1]
            i += 2
        return w[_W_BURST_END]

    @micropython.native
    def waiting(self):
        """True when bus bytes are waiting to be read (the node should read them before slow work)."""
        if self.stamped:
            w = self.w
            return bool(self.held) or w[_W_MORE] != 0 or w[_W_IDLES] != w[_W_SEEN]
        return bool(self.held) or bool(self.uart.any())

    @micropython.native
    def write(self, data):
        """Send ``data`` now (an answer by name): on the chip a short one goes out of the machine-code send
        (rp2send.py) as a slot's answer does, where Pin.value, UART.write and UART.flush took the emulated chip
        tens of µs more of the reply's way."""
        p = self.native
        if p is not None and len(data) <= _FIFO_BYTES:
            # (write_at's own setting of the block, inline: through write_at the reply by name came 30-50 µs later,
            # benchmarks/node_path.py poll)
            self.uart.flush()  # the driver's ring empty: the FIFO is ours (rp2send.py)
            now = time.ticks_us()
            p[_GO] = now
            p[_LATEST] = time.ticks_add(now, 1000000)
            p[_WATCH_FROM] = p[_WATCH_TO] = now
            p[_AGAIN] = 0
            rp2send.send_at(p, data, len(data))
            return
        if self.de is not None:
            self.de.value(1)
        self.uart.write(data)
        self.uart.flush()  # returns once the last stop bit is out, so DE drops after the frame, not during it
        if self.de is not None:
            self.de.value(0)

    # The slot path's helpers (us, since, after, read_at, write_at) are native: interpreted, each call set up a
    # bytecode frame, and the path from choosing a LISTEN slot to the machine-code wait took 0.82 ms on the
    # emulated chip; native, with the answer's view made once (node.py's _prepare), 0.64 ms (firmware/PROTOCOL.md,
    # "The slot path").
    @micropython.native
    def us(self):
        """A microsecond timestamp (it wraps: compare with ``since``)."""
        return time.ticks_us()

    @micropython.native
    def since(self, then):
        return time.ticks_diff(time.ticks_us(), then)

    # ``after`` as a mask, for the slot path to add with (a call of ``after`` is some 25 µs on the chip, and a
    # LISTEN slot's wait took six of them: firmware/PROTOCOL.md, "A press's way to its slot"). ticks_us wraps at a
    # power of two, so ``(then + offset_us) & ticks_mask`` is ``time.ticks_add(then, offset_us)``.
    ticks_mask = time.ticks_add(0, -1)

    @micropython.native
    def after(self, then, offset_us):
        """The moment ``offset_us`` after ``then`` on this link's clock (it wraps)."""
        return time.ticks_add(then, offset_us)

    @micropython.native
    def write_at(self, deadline, data, watch=None, latest=None, again=None):
        """Write ``data`` with its first start bit at ``deadline`` (``time.ticks_us``): an answer in a POLL_ALL or
        LISTEN slot, whose start the caller takes from the frame's end on the line. The node only answers when it
        has news and a slot is near (at most one round away, a few ms), so blocking for it is rare and short.

        ``watch`` (from, to): a master slot the wait crosses. Bytes that arrive in it are the host talking,
        which ends the LISTEN window: then nothing is sent and the answer is False (the bytes are kept for
        ``read``). Past ``latest`` (a moment) the native answer is not begun either, and the answer is None: it
        would run into the next node's slot (the Python wait cannot tell, and sends late as before); unless
        ``again`` (round_us, from, to) offers the same slot a round later, watching the master slot (from, to)
        before it: then the native answer goes there, and the answer is 2 (rp2send.py, ``send_at``)."""
        # The host may have spoken in the master slot before this node came round to its wait, and the receive
        # interrupt already taken its bytes out of the FIFO, where the wait looks for them. Answering in the old
        # window then lands in a master slot of the host's new one, and every other node takes it for the host and
        # ends that window too (firmware/PROTOCOL.md, "A stale answer that ended every seat's window"). The stamp
        # says when the bytes not read yet ended: after the master slot began, they were the host.
        w = self.w
        if (watch is not None and w[_W_IDLES] != w[_W_SEEN]
                and time.ticks_diff(time.ticks_add(w[_W_IDLE_AT], -self.idle_us), watch[0]) >= 0):
            return False
        p = self.native
        if p is not None:
            # The chip watches its receive FIFO itself from the watch's start: other nodes' answers, which end a
            # guard before the master slot, were taken out of it by their receive timeout 32 bit times later.
            self.uart.flush()  # the driver's ring empty: the FIFO is ours (rp2send.py)
            p[_GO] = deadline
            p[_LATEST] = time.ticks_add(deadline, 1000000) if latest is None else latest
            if watch is None:
                p[_WATCH_FROM] = p[_WATCH_TO] = deadline
            else:
                p[_WATCH_FROM] = watch[0]
                p[_WATCH_TO] = watch[1]
            if again is None:
                p[_AGAIN] = 0
            else:
                p[_AGAIN] = again[0]
                p[_NEXT_FROM] = again[1]
                p[_NEXT_TO] = again[2]
            late = rp2send.send_at(p, data, len(data))
            if late == -2:
                return None
            if late >= _ADVANCED:  # in the next round's slot
                return 2
            return late >= 0  # False: the host's first byte; its frame is read once it ended (its receive timeout)
        if watch is not None:
            self._sleep_until(watch[0])
            n = self.uart.any()
            if n:
                self.held += self.uart.read(n)  # other nodes' answers, before the master slot
            self._sleep_until(watch[1])
            if self.uart.any():
                w[_W_MORE] = 1  # the host's frame: read it at once
                return False
        self._sleep_until(deadline)
        self.write(data)
        return True

    @staticmethod
    def _sleep_until(deadline):
        """Busy-wait to ``deadline``, in pieces under a millisecond: the rp2 port's sleep_us of more than 1,000 µs
        first sleeps whole milliseconds on its millisecond clock, which overshot a slot's start by up to a
        millisecond on the emulated chip (benchmarks/node_slots.py); under it, it spins on the microsecond
        timer. Interpreted, it overshoots by 100-200 µs (firmware/PROTOCOL.md, "Slot timing"): the rp2 port
        answers with rp2send.py instead."""
        while True:
            left = time.ticks_diff(deadline, time.ticks_us())
            if left <= 0:
                return
            time.sleep_us(left if left < 1000 else 900)
