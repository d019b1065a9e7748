"""The seat node's behaviour, free of any pin: ``Node.step(now_ms)`` does one pass of the main loop.

Keeping the loop a method with the time passed in is what lets the very same code run on the Pico (``main.py``
calls it forever) and in tests and the bus simulator under the unix ``micropython`` binary with fake ``machine``
modules, stepped with a simulated clock.

What one step does, in order: feed the watchdog; read the buttons (a settled press is queued as an event and
lights the LED at once, the "local echo"); scan the card reader every ``nfc_period_ms``; read the bus and answer
frames addressed to this node. Events stay queued, oldest first, until a POLL acknowledges them, so a lost reply
only means they are sent again; the host drops repeats by their sequence number.
"""

from array import array

import framing
import seatbus as sb
from framing import index_of
from mpcompat import const, micropython
from roomy import roomy

# The protocol's numbers the loop reads at every frame and answer, compiled in (seatbus's names with a _ before):
# in native code each ``sb.NAME`` is two dictionary lookups at run time, some 10 µs on the emulated chip, and the
# path from a press to its slot made some twenty (firmware/PROTOCOL.md, "The slot path"). The numbers are
# seatbus's: tests/firmware/test_fw_compiled_numbers.py holds them to it.
_SYNC = const(0x7e)
_HEADER_LEN = const(5)
_CRC_LEN = const(4)
_OVERHEAD = const(9)
_FROM_NODE = const(0x80)
_BROADCAST = const(0x7f)
_POLL = const(0x2)
_POLL_ALL = const(0x3)
_LISTEN = const(0x4)
_WINDOW_ACKS = const(0x5)
_SET_LED = const(0x10)
_DISPLAY_RLE = const(0x14)
_STAGE = const(0x15)
_DISPLAY_STAGED = const(0x16)
_EVENTS = const(0x82)
_EV_PRESS = const(0x1)
_EV_RELEASE = const(0x2)
_QUIET = const(0x40)
_NAK_POLL_ME = const(4)
_ROLE_SEAT = const(1)
_POLL_ALL_LEAD = const(0x80)
_LISTEN_WATCH_FROM_US = const(50)
_LISTEN_WATCH_TO_US = const(100)
# framing.FrameReader's numbers, read from its array (framing.py's _N ...)
_WIRE_N = const(0)
_WIRE_POS = const(1)
_WIRE_FRAMES = const(3)
_WIRE_CRC_ERRORS = const(4)

FIRMWARE_VERSION = (0, 9, 16)  # 0.2: seat bus protocol 2 (CRC-32); 0.3: DISPLAY_RLE, POLL_ALL, eager debouncing, AUTH
# counters reserved in blocks (remote); 0.4: LISTEN; 0.5: STAGE and DISPLAY_STAGED; 0.6: slots timed from the frame's
# end on the line (CAP_SLOT_TIMED); 0.7: answers begun at the slot's microsecond in machine code (CAP_SLOT_EXACT);
# 0.8: quiet commands, confirmed in a LISTEN slot (CAP_QUIET); 0.9: POLL_ALL's lead (CAP_POLL_LEAD), no drawing while
# news waits to be heard; 0.9.1: a frame timed by its own stamp (rs485.py);
# 0.9.2: 0.9.1's stamp rule taken out (replies by name waited up to 5 ms); 0.9.3: the stamp rule again, without
# emptying the FIFO, and no answer in a window the host ended before the node came round to its wait (rs485.py);
# 0.9.4: a press stops the drawing of the panel (buttons.py's changed); 0.9.5: a node that skipped rounds of a LISTEN
# window reads what waits before it answers again, the machine-code wait takes a receive-timeout stamp in the
# master slot it watches for the host (rp2send.py), and its native code is built 4-byte aligned; 0.9.6: the panel's
# and the reader's drivers allocate nothing, and the heap is collected every 2 s, not every 32 replies (heap.py);
# 0.9.7: the roll call that came late to its last slot still answers, before the window's end (_span_target), and
# the slot path is quicker (0.82 ms to 0.64 from choosing a slot to the machine-code wait: rs485.py's helpers native)
# 0.9.8: a wait that finds its LISTEN slot gone by takes the same slot a round on (rp2send.py's AGAIN), the local
# echo is lit after the bus's work of the step, and the hot path's protocol numbers are compiled in; 0.9.9: the
# window goes on through the host's WINDOW_ACKS (CAP_WINDOW_ACKS); 0.9.10: a LISTEN's way to the slot quicker (the
# frame search in viper, the second copy taken with the first, a shorter loop pass), each frame timed by its own
# burst's end (rs485.py's read_at_end), and no card scan or heap collection while news waits; 0.9.11: the other
# nodes' answers passed over in the frame search (framing.py's _PASS_NODES); a LISTEN's lead (CAP_LISTEN_LEAD);
# 0.9.12: a press that comes after a POLL_ALL was taken, before this node's slot, is answered in that slot (Span.poll)
# 0.9.13: the panel's chunks go out of the I2C block's FIFO while the loop runs on (rp2i2c.py), not in a blocking write
# 0.9.14: a long frame's read, CRC and screen code in Thumb machine code (rp2bytes.py), the buttons read at once
# (rp2pins.py), the bus skipped while nothing came, a press after the POLL_ALL answered without the window's rounds
# 0.9.15: a press steps to its slot from the buttons, a LISTEN's slot path inline (_news_step), the card scan stepped
# by the loop (mfrc522.py), its register writes in one viper call (rp2spi.py), 16 stamps kept (rs485.py), QUICK_LEAD
# 0.9.16: a DISPLAY_STAGED's stage checked in machine code (framing.crc_behind) and its changes looked for after the
# ACK (_staged_dirty); no heap collection while a press waits unread; a WUPA no card answered looked at again when
# the chip's timer runs out, not every millisecond (mfrc522.unanswered); attribute tables with room (roomy.py)
QUEUE_MAX = 32
# A native answer (rs485.py) not begun by this long after its slot's start is not begun at all: it waits for the
# next round's slot (or cycle's) instead of eating into the guard, which must hold the nodes' stamps' spread.
LATE_START_US = 8
# The panel is drawn in chunks (about 0.74 ms each over I2C on the Pico) only while this node's next LISTEN slot is
# further off than this: a quiet command's whole new screen (up to 23 ms of drawing) must not run over its slot.
FLUSH_MARGIN_US = 1500
# Nor is it drawn while an event younger than this waits to be heard: a chunk on the I2C holds the loop 0.74 ms, and
# a POLL_ALL read that much later has had its slot go by; the press then waited for the screens to be over (20-28
# ms at 4 seats, about 100 at 16: firmware/PROTOCOL.md, "The nodes' own time"). Older news (a host that does not
# ask) no longer holds the panel.
HOLD_DRAWING_MS = 30
PANEL_CHUNK_BLOCKING = 32  # bytes of the panel a write of machine.I2C sends (0.74 ms holding the loop)
PANEL_CHUNK_BACKGROUND = 128  # ...and one in the background (a page row: ssd1306.MAX_WRITE)
ECHO_RGB = (40, 40, 40)
# A stepped card scan (mfrc522.py) the chip has not ended after this long is over: no card this time (its timer
# ends a try after 15.5 ms, and a scan is two tries and a few exchanges).
SCAN_MS = 50
WUPA_TIMER_MS = 15  # a WUPA nobody answered at the look 1 ms after it: its timer runs out 15.5 ms after it began
# The bus is read at least this often even with no burst stamped (rs485.py's valve: a burst whose receive timeout
# was missed).
TAKE_VALVE_MS = 5



class Span:
    """A LISTEN window as this node keeps it: when it began (the link's microseconds), where this node's slot is
    in each round, and the next round it may still answer in (one answer a round)."""

    def __init__(self):
        self.fill(0, 0, 0, 0, 0, 0, 0, False, 0, 0, False)

    def fill(self, t0, skew_us, offset_us, slot_us, gap_us, round_us, rounds, roll, seq, copy_us, poll):
        """A new window in this one object (made at boot: taking a frame allocates nothing)."""
        self.t0 = t0
        self.skew_us = skew_us  # t0 is this long after the window began (negative: from the LISTEN's first copy)
        self.copy_us = copy_us  # until then the LISTEN's second copy may still be arriving
        self.offset_us = offset_us
        self.slot_us = slot_us
        self.gap_us = gap_us
        self.round_us = round_us
        self.rounds = rounds
        self.roll = roll
        self.seq = seq
        self.next_round = 0
        self.clear_to = 0  # the host was silent up to this round's start: the master slots this node has watched
        # The host spoke in a master slot this node's wait watched: acks (WINDOW_ACKS), and the window goes on, or
        # a new window or a command, which end it. Nothing is said until the frame is read and tells which.
        self.held = False
        # Not a LISTEN but a POLL_ALL this node had nothing to say to when it took it: one round, no master slot,
        # kept so that a press before its slot is heard there (_poll_all_fast). Any frame of the host ends it.
        self.poll = poll


class Node:
    def __init__(self, cfg, io, now_ms, reset_cause=sb.RESET_POWER_ON, boot=0, counter=None):
        """io: an object with ``link`` (read()/write()), ``buttons`` (list of Debounced), ``led`` (RGBLed or
        None), ``screen`` (SSD1306 or None), ``reader`` (MFRC522 or None), ``wdt`` (or None), ``reset``
        (callable that restarts the board). ``counter``: the remote's
        :class:`authcounter.Reservation` (its AUTH counter survives reboots in blocks)."""
        self.cfg = cfg
        self.io = io
        self.address = cfg["address"]
        self.role = sb.ROLE_REMOTE if cfg["role"] == "remote" else sb.ROLE_SEAT
        self.key = None
        if self.role == sb.ROLE_REMOTE:
            from binascii import unhexlify

            self.key = unhexlify(cfg["key"])
        self.reset_cause = reset_cause
        self.boot = boot & 0xFFFF
        self.reservation = counter
        self.counter = counter.boot() if counter is not None else 0  # the last AUTH counter used
        self.wire = framing.FrameReader()  # the bus's bytes, searched for frames in place (no allocation)
        self.wire.pass_nodes()  # another node's answer is nothing to this one
        self.read_at_end = getattr(io.link, "read_at_end", None)  # (rs485.RS485's: each burst's own end)
        # What this node leaves of a slot after its answer, for its own lateness: a link that starts answers at the
        # slot's microsecond (rs485.py's machine code on the rp2 port; the simulator's driver) needs the short
        # guard only.
        exact = getattr(io.link, "slot_exact", False)
        self.guard_us = sb.POLL_ALL_SHORT_GUARD_US if exact else sb.POLL_ALL_GUARD_US
        # The answers of every poll and every command, made once: a reply writes only its SEQ and CRC.
        self.ack = framing.Reply(self.address, sb.ACK)
        self.nak = framing.Reply(self.address, sb.NAK, b"\x00")
        self.no_events = framing.Reply(self.address, sb.EVENTS, b"\x00")
        # The answer in a slot (EVENTS with as many queued events as fit), kept ready as the queue changes
        # (_prepare): made when the slot is near, in interpreted code, it took the emulated Pico a millisecond, often
        # twice (its slot had gone by meanwhile), and the press missed slot after slot. At the slot only the ages,
        # the SEQ and the CRC are written (_stamp).
        self.prep = bytearray(sb.OVERHEAD + sb.MAX_PAYLOAD)
        self.prep_fits = -1  # the events' room it was made for (-1: to be made again)
        self.prep_last = 0  # ...and the room of the last slot answered (what the next slot will most likely have)
        self.prep_len = 0
        self.prep_view = None
        self.prep_views = [None] * (sb.OVERHEAD + sb.MAX_PAYLOAD + 1)
        self.prep_n = 0
        self.prep_off = array("H", bytes(2 * QUEUE_MAX))  # where each event's age is in it
        self.prep_at = array("i", bytes(4 * QUEUE_MAX))  # ...and when the event happened (ms)
        self.identified = False
        self.last_cmd_seq = None
        # A quiet command's answer, kept for this node's slot in the next LISTEN window (None: nothing to confirm).
        self.confirm_seq = None
        self.confirm_code = 0
        self.queue = []  # (seq, kind, at_ms, data)
        self.next_event_seq = 1
        self.dropped_events = 0
        self.host_rgb = (0, 0, 0)
        self.echo_until = None
        # The echo is lit at the end of the step that read the press, after the bus: three PWM writes from Python
        # (0.15-0.25 ms on the emulated chip) stood between the press and its answer in a slot, where a
        # millisecond later is nothing to the player's eye.
        self.echo_due = False
        self.card = None
        self.card_misses = 0
        self.nfc_period_ms = cfg.get("nfc_period_ms", 100)
        self.card_gone_after = cfg.get("card_gone_scans", 2)
        self.next_scan = now_ms
        self.stepped = hasattr(io.reader, "begin")  # a scan the loop steps through (mfrc522.py), or one waited for
        self.scanning = False
        self.scan_since = self.scan_due = now_ms
        self.echo_ms = cfg.get("echo_ms", 200)
        self.gap_ms = cfg.get("frame_gap_ms", 5)
        self.baud = cfg.get("uart", {}).get("baud", 1000000)
        self.last_rx = now_ms
        self.span = None  # the LISTEN window this node is answering in (Span), if any
        self.rereading = False  # _span_step is reading what waited before it answers (it does so once)
        # The one Span every LISTEN fills in (_listen_fast): made now, so that taking a LISTEN allocates nothing.
        self.spare_span = Span()
        self.baud_10k = max(1, self.baud // 10000)  # for a frame's wire time in µs without a long integer
        self.pending_reset = False
        self.bank = getattr(io, "bank", None)
        self.wdt = io.wdt
        # The link's and the frame reader's counts, looked at before the bus is read at all: a pass with no new
        # burst stamped, nothing left over and no frame half read skips the read (rs485.quiet), but for the valve's
        # (a burst the receive timeout missed is read within TAKE_VALVE_MS). Only where the link stamps its bursts.
        self.link_quiet = getattr(io.link, "quiet", None)
        self.ticks_mask = getattr(io.link, "ticks_mask", -1)  # (a link whose clock does not wrap: -1, all bits)
        self.link_w = getattr(io.link, "w", None)
        self.wire_st = self.wire.st
        self.last_take = now_ms
        self.caps = self._caps()
        self.stats = {"frames": 0, "crc_errors": 0, "replies": 0, "missed_slots": 0, "untimed": 0}
        self.crc_errors = 0  # the reader's count when the bus was last read (stats' copy is for the host)
        # What the panel shows, byte for byte: DISPLAY_RLE skips over what it leaves as it is, so the node must
        # know it. The panel is cleared at boot, and so is this.
        # (four bytes more than the screen, here and in the stage: room for the CRC that framing.crc_behind checks
        # a stage against, as the two buffers swap at each DISPLAY_STAGED)
        self.fb = bytearray(sb.SCREEN_BYTES + 4) if io.screen is not None else None
        # The part of fb the panel does not show yet ([dirty_lo, dirty_hi)): a screen command is answered first
        # and drawn after, in chunks between bus reads (_flush), because on the Pico the panel's I2C takes 23 µs a
        # byte: a 240-byte DISPLAY_RLE drawn before its ACK kept the host waiting past its 10 ms reply timeout.
        self.dirty_lo = sb.SCREEN_BYTES
        self.dirty_hi = 0
        # A chunk goes out while the loop runs on where the chip allows (rp2i2c.py), and each costs the loop its start
        # (some 0.2 ms on the emulated chip): a page row at a time there. Blocking writes elsewhere: 32 bytes.
        background = getattr(io.screen, "bg", None) is not None
        self.panel_chunk = cfg.get("panel_chunk", PANEL_CHUNK_BACKGROUND if background else PANEL_CHUNK_BLOCKING)
        self.drawing = False  # a chunk is going out in the background (rp2i2c.py): the loop feeds it
        # The stage (STAGE): a picture kept apart, not shown, until a DISPLAY_STAGED makes it the screen. Its
        # buffer is made now, beside the screen's, not at the first STAGE: a buffer made in the middle of a game
        # lands high in a fragmented heap, and every garbage collection's sweep runs up to the highest block.
        self.stage = bytearray(sb.SCREEN_BYTES + 4) if io.screen is not None else None
        # The stage's number (0: none). -1: a DISPLAY_STAGED was taken and what it changed is not marked yet
        # (_staged_dirty). (Not an attribute of its own: two more filled this object's attribute table before
        # roomy.py, and the way from a screen frame to its ACK took 20 % longer.)
        self.stage_id = 0
        self.stage_parts = 0  # which parts arrived (bit i: part i)
        self.stage_whole = 0  # the mask of all its parts
        # Last: a quarter of each attribute table empty, this object's and those the loop calls into every pass
        # (a method's name is looked for in its object's own table first, and missed: roomy.py).
        for obj in (self, self.spare_span, self.wire, self.ack, self.nak, self.no_events, io.link, io.screen,
                    io.reader, self.bank):
            if obj is not None:
                roomy(obj)
        for b in io.buttons:
            roomy(b)

    def _caps(self):
        io = self.io
        caps = sb.CAP_LISTEN | sb.CAP_QUIET | sb.CAP_WINDOW_ACKS
        if getattr(io.link, "slot_timed", False):  # its slots are timed from the frame's end (rs485.py)
            caps |= sb.CAP_SLOT_TIMED
        if getattr(io.link, "wants_lead", False):  # ...and it needs time to take a LISTEN (every node takes a lead)
            caps |= sb.CAP_LISTEN_LEAD | sb.CAP_QUICK_LEAD  # (0.9.15: within LISTEN_QUICK_LEAD_US)
        if self.guard_us == sb.POLL_ALL_SHORT_GUARD_US:  # ...and its answers start at the slot's microsecond
            caps |= sb.CAP_SLOT_EXACT
        caps |= sb.CAP_BUTTONS | sb.CAP_POLL_ALL | sb.CAP_POLL_LEAD if self.role == sb.ROLE_SEAT else (sb.CAP_KEYS5 | sb.CAP_AUTH)
        if io.led is not None:
            caps |= sb.CAP_LED
        if io.screen is not None:
            caps |= sb.CAP_DISPLAY | sb.CAP_DISPLAY_RLE | sb.CAP_STAGE
        if io.reader is not None:
            caps |= sb.CAP_NFC
        if io.wdt is not None:
            caps |= sb.CAP_WATCHDOG
        return caps

    # --- inputs -----------------------------------------------------------------------------------------
    @micropython.native
    def _queue(self, kind, now, data):
        self.prep_fits = -1
        if len(self.queue) >= QUEUE_MAX:
            self.queue.pop(0)
            self.dropped_events += 1
        self.queue.append((self.next_event_seq, kind, now, bytes(data)))
        self.next_event_seq = (self.next_event_seq + 1) & 0xFFFF or 1
        if self.span is None and self.prep_last:
            # Made now, while no slot is open: the next POLL_ALL or LISTEN finds the answer ready and only stamps
            # it (0.13 ms less on its way from the frame to the slot: benchmarks/node_path.py take).
            self._prepare(self.prep_last)

    @micropython.native
    def _buttons(self, now):
        bank = self.bank
        if bank is not None and bank.calm(now):
            return  # (one read of the port: buttons.Bank)
        for b in self.io.buttons:
            edge = b.update(now)
            if edge is None:
                continue
            self._queue(_EV_PRESS if edge else _EV_RELEASE, now, bytes((b.button_id,)))
            if edge and self.io.led is not None:
                self.echo_due = True  # local echo: the player sees the press before the Pi answers (step)
                self.echo_until = now + self.echo_ms
            if self.span is not None:
                # Straight to the slot: the other buttons, the bank's settling and the rest of the pass (the echo's
                # clock, the reader's, the panel) cost a press 0.3 ms on its way to a LISTEN slot (benchmarks/
                # node_path.py listen). What the line brought first: the host's frame may have ended the window.
                # The echo is lit after the answer's wait, a round at most (firmware/PROTOCOL.md, "A press's way
                # to its slot").
                quiet = self.link_quiet
                st = self.wire_st
                if quiet is None or not quiet(self.link_w) or st[0] != st[1]:
                    self.last_take = now
                    self._take_frames(now)
                if self.span is not None:
                    self._span_step(now)
        if bank is not None:
            bank.settle()

    @micropython.native
    def _reader(self, now):
        reader = self.io.reader
        if reader is None or (now - self.next_scan) < 0:
            return
        if self.scanning:
            # (looked at once a millisecond: each look is an SPI exchange, and the air takes that long anyway; the
            # step's one clock, next_scan, says when)
            self.next_scan = now + 1
            uid = reader.poll()
            if uid is None:
                if now - self.scan_since < SCAN_MS:
                    if reader.unanswered():
                        self.next_scan = now + WUPA_TIMER_MS  # (mfrc522.unanswered)
                    return
                uid = b""  # the chip never said (unplugged, or its timer not running): no card this time
            self.scanning = False
            self.next_scan = self.scan_due
            self._scanned(now, uid or None)
            return
        queue = self.queue
        if queue and (now - queue[0][2]) < HOLD_DRAWING_MS:
            return  # news first: even a step of a scan holds the loop a little, and a slot is near
        self.next_scan = now + self.nfc_period_ms
        if self.stepped:  # the card's answer, or the chip's timer, comes while the loop runs on (mfrc522.py)
            reader.begin()
            uid = reader.poll()  # (a reader that answers at once is done now)
            if uid is None:
                self.scanning = True
                self.scan_since = now
                self.scan_due = self.next_scan
                self.next_scan = now + 1
                return
            self._scanned(now, uid or None)
            return
        self._scanned(now, reader.scan())

    @micropython.native
    def _scanned(self, now, uid):
        """A scan's end: the card on the reader (its UID), or None."""
        if uid is not None:
            self.card_misses = 0
            if uid != self.card:
                if self.card is not None:
                    self._queue(sb.EV_CARD_GONE, now, self.card)
                self.card = uid
                self._queue(sb.EV_CARD, now, uid)  # reported once, however long it stays
        elif self.card is not None:
            self.card_misses += 1
            if self.card_misses >= self.card_gone_after:  # one missed scan is RF noise, not a removal
                self._queue(sb.EV_CARD_GONE, now, self.card)
                self.card = None
                self.card_misses = 0

    @micropython.native
    def _echo(self, now):
        if self.echo_until is not None and (now - self.echo_until) >= 0:
            self.echo_until = None
            if self.io.led is not None:
                self.io.led.set(self.host_rgb)

    # --- bus --------------------------------------------------------------------------------------------
    def _send(self, seq, mtype, payload=b""):
        self.io.link.write(sb.encode_frame(self.address, seq, mtype, payload, True))
        self.stats["replies"] += 1

    def _identity(self):
        return sb.encode_identity(FIRMWARE_VERSION, self.caps, self.reset_cause, self.role, self.boot)

    def _events_payload(self, now, budget=None, later_ms=0):
        """As many queued events as fit in ``budget`` bytes, their ages as they will be ``later_ms`` from now."""
        if budget is None:
            budget = sb.MAX_PAYLOAD - 1 - (5 + sb.MAC_LEN if self.key else 0)
        out = []
        for seq, kind, at, data in self.queue:
            ev = sb.encode_event(seq, kind, (now - at) + later_ms, data)
            if len(ev) > budget:
                break
            budget -= len(ev)
            out.append(ev)
        return sb.encode_events(out)

    @micropython.native
    def _ack_events(self, ack):
        while self.queue and not sb.seq_after(self.queue[0][0], ack):
            self.queue.pop(0)
            self.prep_fits = -1

    @micropython.native
    def _prepare(self, fits):
        """The slot answer's frame for ``fits`` bytes of events (the queue's first, as many as fit), their ages
        left to ``_stamp``; ``prep_n`` 0 when the first event does not fit (a card's UID)."""
        buf = self.prep
        at = _HEADER_LEN + 1
        n = 0
        for ev in self.queue:
            data = ev[3]
            size = 6 + len(data)
            if at - _HEADER_LEN - 1 + size > fits:
                break
            seq = ev[0]
            buf[at] = (seq >> 8) & 0xFF
            buf[at + 1] = seq & 0xFF
            buf[at + 2] = ev[1]
            self.prep_off[n] = at + 3
            self.prep_at[n] = ev[2]
            buf[at + 5] = len(data)
            for i in range(len(data)):
                buf[at + 6 + i] = data[i]
            at += size
            n += 1
        buf[0] = _SYNC
        buf[1] = at - _HEADER_LEN
        buf[2] = self.address | _FROM_NODE
        buf[4] = _EVENTS
        buf[_HEADER_LEN] = n
        self.prep_n = n
        self.prep_len = at + _CRC_LEN
        view = self.prep_views[self.prep_len]
        if view is None:  # (one view per length, made once: a view made at every answer cost it)
            view = self.prep_views[self.prep_len] = memoryview(buf)[: self.prep_len]
        self.prep_view = view  # what _stamp answers
        self.prep_fits = self.prep_last = fits

    @micropython.native
    def _stamp(self, seq, now, later_ms):
        """The prepared answer with its events' ages as they will be ``later_ms`` from ``now``, its SEQ and CRC."""
        buf = self.prep
        for i in range(self.prep_n):
            age = now - self.prep_at[i] + later_ms
            if age > 0xFFFF:
                age = 0xFFFF
            off = self.prep_off[i]
            buf[off] = (age >> 8) & 0xFF
            buf[off + 1] = age & 0xFF
        buf[3] = seq
        framing.crc_put(buf, 1, self.prep_len - _CRC_LEN)
        return self.prep_view

    @micropython.native
    def _take_ack(self, buf, q, end):
        """The (address, ack u16) pairs of a slotted poll at buf[q:end]: this node's ack, if it is there."""
        me = self.address
        while q < end:
            if buf[q] == me:
                self._ack_events(buf[q + 1] << 8 | buf[q + 2])
                return
            q += 3

    @micropython.native
    def _poll_all_fast(self, buf, at, now):
        """POLL_ALL, read in place from the receive buffer: take this node's ack, and answer in its slot (its prepared
        answer, _prepare) if it has news or is called by name (roll). Decoded the long way (a Frame, then
        ``seatbus.decode_poll_all``) it took the emulated Pico longer than the slots last at 4 seats, so only the
        seat called by roll was ever heard (firmware/PROTOCOL.md, "The nodes' own time")."""
        if self.role != _ROLE_SEAT:
            return
        link = self.io.link
        length = buf[at + 1]
        read_at = self._end_on_line(at + _OVERHEAD + length)  # the slots count from there, not from this moment
        p = at + _HEADER_LEN
        n = buf[p + 3]
        head = 4
        lead_us = 0
        if n & _POLL_ALL_LEAD:  # the slots begin lead_us after the frame (0.9): time to take it
            n ^= _POLL_ALL_LEAD
            head = 6
            lead_us = buf[p + 4] << 8 | buf[p + 5]
        rest = length - head - n
        if rest < 0 or rest % 3:
            return  # (decode_poll_all refuses it too)
        index = index_of(buf, p + head, n, self.address)  # (this node's place in the list)
        if index < 0:
            return
        me = self.address
        seq = buf[at + 3]
        roll = buf[p + 2]
        slot_us = buf[p] << 8 | buf[p + 1]
        offset = lead_us + index * slot_us
        timed = link.timed  # its end on the line known (rs485.py): else no slot can be timed from it
        start = link.after(read_at, offset)
        if not self.identified:
            if roll == me and timed:  # rebooted: say so in the slot (briefly), and the master starts a session
                link.write_at(start, self.nak.ready(seq, sb.NAK_NOT_IDENTIFIED), None, link.after(start, LATE_START_US))
            return
        self._take_ack(buf, p + head + n, p + length)
        if not timed:
            self.stats["untimed"] += 1
            return
        if not self.queue and roll != me:
            if self.confirm_seq is None:  # (a quiet command's confirmation goes in a LISTEN slot, not here)
                # Nothing yet, but the slot is up to a lead and fifteen slots away (2-4 ms at 16 seats): a press
                # made meanwhile is answered there (_span_step), not after the window, the host's commands and
                # its next poll (6-9 ms: benchmarks/bus_timing.py's slowest presses, firmware/PROTOCOL.md,
                # "A press after the POLL_ALL").
                s = self.spare_span
                s.fill(read_at, 0, offset, slot_us, 0, offset + slot_us, 1, False, seq, 0, True)
                self.span = s
            return
        if link.since(read_at) - offset > self.guard_us:
            self.stats["missed_slots"] += 1
            return  # its slot has passed (the loop was busy): answering now would talk over the next one
        fits = (slot_us - self.guard_us) * self.baud_10k // 1000 - _OVERHEAD - 1
        if fits != self.prep_fits:
            self._prepare(fits)
        if not self.prep_n and self.queue:  # a card's UID is longer than a slot: ask to be polled by name
            reply = self.nak.ready(seq, _NAK_POLL_ME)
        else:
            reply = self._stamp(seq, now, 0)
        link.write_at(start, reply, None, link.after(start, LATE_START_US))
        self.stats["replies"] += 1

    # --- LISTEN ---------------------------------------------------------------------------------------------
    # --- LISTEN ---------------------------------------------------------------------------------------------
    @micropython.native
    def _listen_fast(self, buf, at):
        """LISTEN, read in place from the receive buffer into the one Span made at boot: take this node's ack and
        keep the window; the answers go out from ``step`` (_span_step). Decoded the long way (a Frame, then
        ``seatbus.decode_listen``) it took the emulated Pico 1.3 ms more, in which its first slots of the window
        went by (firmware/PROTOCOL.md, "The nodes' own time")."""
        link = self.io.link
        seq = buf[at + 3]
        length = buf[at + 1]
        p = at + _HEADER_LEN
        span = self.span
        if span is not None and span.seq == seq:
            # The second copy of the LISTEN this node is answering in: the window begins at its end (or its lead,
            # ``after_us``, after it), which the node may know better than the first's.
            if span.next_round == 0 and link.timed:
                span.t0 = self._end_on_line(at + _OVERHEAD + length)
                span.skew_us = -(buf[p + 6] << 8 | buf[p + 7])
            return
        self.span = None  # any other frame from the host ends a LISTEN window
        n = buf[p + 8]
        rest = length - 9 - n
        if buf[p + 4] < 1 or rest < 0 or rest % 3:
            return  # (decode_listen refuses it too)
        index = index_of(buf, p + 9, n, self.address)  # (viper: a native loop took 60 µs)
        if index < 0:
            return
        me = self.address
        if self.identified:
            self._take_ack(buf, p + 9 + n, p + length)
        if not link.timed:  # its end is not known (rs485.py): its second copy, or the next window, is
            self.stats["untimed"] += 1
            return
        slot_us = buf[p] << 8 | buf[p + 1]
        s = self.spare_span
        # The window begins ``after_us`` after this copy's end on the line, or its second copy's ``after_us`` (0,
        # or the lead: CAP_LISTEN_LEAD) after the end of that copy read with it: that copy is taken here, not
        # searched for and handed on as a frame of its own (some 0.2 ms on the chip, on the way from the LISTEN to
        # this node's first slot: firmware/PROTOCOL.md, "Where a LISTEN waits inside a Pico").
        end = at + _OVERHEAD + length
        s.skew_us = -(buf[p + 6] << 8 | buf[p + 7])
        twin = end
        st = self.wire.st
        if st[_WIRE_POS] == twin and 0 < st[_WIRE_N] - twin < _OVERHEAD + length:
            # Part of the second copy came in the same read. On the chip a read takes the bytes of the bursts
            # stamped so far, and the copies are one burst: so this read went by a stamp counted late (rs485.py),
            # whose count held the bytes come since, and the burst end it gives is the one before the LISTEN's (a
            # link without stamps just read the line in pieces: its second copy times the window as well). A seat that timed
            # its window from there answered 550 µs early (benchmarks/node_slots.py, 4 seats, seed 1: firmware/
            # PROTOCOL.md, "A stamp counted late"). The second copy, read under its own stamp, opens the window.
            self.stats["untimed"] += 1
            return
        if (st[_WIRE_POS] == twin and st[_WIRE_N] - twin >= _OVERHEAD + length and buf[twin + 1] == length
                and buf[twin] == _SYNC and buf[twin + 2] == _BROADCAST and buf[twin + 3] == seq
                and buf[twin + 4] == _LISTEN
                and framing.crc_matches(buf, twin + 1, twin + _HEADER_LEN + length, buf, twin + _HEADER_LEN + length)):
            end = twin + _OVERHEAD + length
            st[_WIRE_POS] = end
            st[_WIRE_FRAMES] += 1
            s.skew_us = -(buf[twin + _HEADER_LEN + 6] << 8 | buf[twin + _HEADER_LEN + 7])
        # (Span.fill's work inline: a call is some 20 µs on the chip, on the way from the LISTEN to the slot.)
        s.t0 = self._end_on_line(end)
        s.copy_us = (_OVERHEAD + length) * 1000 // self.baud_10k + _LISTEN_WATCH_FROM_US
        s.offset_us = index * slot_us
        s.slot_us = slot_us
        s.gap_us = buf[p + 2] << 8 | buf[p + 3]
        s.round_us = n * slot_us + s.gap_us
        s.rounds = buf[p + 4]
        s.roll = buf[p + 5] == me
        s.seq = seq
        s.next_round = 0
        s.clear_to = 0
        s.held = False
        s.poll = False
        self.span = s

    @micropython.native
    def _end_on_line(self, end):
        """When the frame that ends at ``end`` in the frame reader's buffer ended on the line: its own burst's end
        where the link keeps one for each burst of a read (rs485.py's ``read_at_end``), else the read's."""
        if self.read_at_end is None:
            return self.io.link.read_at()
        return self.read_at_end(self.wire.st[_WIRE_N] - end)

    @micropython.native
    def _window_acks(self, buf, at):
        """WINDOW_ACKS: the host acked news in a master slot and the window goes on (firmware/PROTOCOL.md,
        "Acks inside the window"). Acks for a window this node is not in say the host is in another one."""
        span = self.span
        if span is None:
            return
        if span.seq != buf[at + 3]:
            self.span = None
            return
        if self.identified:
            p = at + _HEADER_LEN
            self._take_ack(buf, p, p + buf[at + 1])
        span.held = False

    @micropython.native
    def _in_span(self, span):
        """Microseconds since the window began (negative while the LISTEN's second copy is on the line)."""
        return self.io.link.since(span.t0) + span.skew_us

    @micropython.native
    def _span_target(self, span, elapsed):
        """(round, its slot's start in µs from the window's start) of this node's next answer, or None."""
        if not self.identified:
            if span.next_round:
                return None  # it said once in this window that it has no session: the host will come
            want = "now"
        elif self.queue or self.confirm_seq is not None:
            want = "now"
        elif span.roll:
            want = "last"
        else:
            return None
        need = elapsed - span.offset_us  # a slot is still ours if it has not begun
        r = 0 if need <= 0 else (need + span.round_us - 1) // span.round_us
        if want == "last":
            r = max(r, span.rounds - 1)
        r = max(r, span.next_round)
        if r >= span.rounds:
            # The roll call's slot in the last round is the window's last: nobody else talks after it, and the
            # host does not talk until the window is over and the roll call's wait with it (controller/bus/
            # listen.py, ``roll_due``). A roll call whose loop came round late (a pass of the loop, then the
            # answer's 0.6-0.8 ms of interpreted code) lost it, and the host waited its reply timeout (10 ms) for it
            # with every press of the table behind it (firmware/PROTOCOL.md, "A roll call late for its last
            # slot"). It answers late instead, while its answer still ends before the window does.
            if not span.roll or span.next_round >= span.rounds or elapsed > self._roll_latest(span):
                return None
            r = span.rounds - 1
        return r, r * span.round_us + span.offset_us

    @micropython.native
    def _roll_latest(self, span):
        """The last moment (µs from the window's start) the roll call may begin its answer in the last round: one
        slot before the window's end, so that the answer (at most a slot less its guard) is over when it ends."""
        return span.rounds * span.round_us - span.slot_us

    @micropython.native
    def _span_reply(self, span, now, later_us):
        """This node's answer in its slot: news first, then a quiet command's confirmation (the next round's)."""
        if not self.identified:  # rebooted: say so, and the host starts a session (restoring screen and LED)
            return sb.encode_frame(self.address, span.seq, sb.NAK, bytes((sb.NAK_NOT_IDENTIFIED,)), True)
        if not self.queue and self.confirm_seq is not None:  # (the answers made at boot: nothing allocated)
            if self.confirm_code:
                return self.nak.ready(self.confirm_seq, self.confirm_code)
            return self.ack.ready(self.confirm_seq)
        if self.key is None:
            fits = (span.slot_us - self.guard_us) * self.baud_10k // 1000 - _OVERHEAD - 1
            if fits != self.prep_fits:
                self._prepare(fits)
            if self.prep_n or not self.queue:
                return self._stamp(span.seq, now, later_us // 1000)
        # A card's UID longer than a slot, or the remote (its answers are sealed, longer than a slot): the host
        # polls it by name in the next master slot.
        return sb.encode_frame(self.address, span.seq, sb.NAK, bytes((sb.NAK_POLL_ME,)), True)

    @micropython.native
    def _span_step(self, now):
        """Answer in this node's slot of the LISTEN window when it has news (or is called by roll, in the last
        round), once the slot is less than a round away; the wait for it crosses at most one master slot, and
        bytes heard in that master slot (the host talking) hold the answer until the frame is read (Span.held)."""
        span = self.span
        if span is None or span.held or self.wire.pending():
            return  # a partial frame is arriving, or one heard is not read yet: most likely the host
        if not span.roll and not self.queue and self.confirm_seq is None and self.identified:
            return  # nothing to say (the loop's every pass comes here: _span_target would say the same, slower)
        if span.poll:
            self._poll_slot(span, now)
            return
        # (_in_span inline here: a call is some 20 µs on the chip, and this path runs from a press or a LISTEN to
        # the slot, firmware/PROTOCOL.md "Where a LISTEN waits inside a Pico".)
        link = self.io.link
        t0 = span.t0
        skew = span.skew_us
        elapsed = link.since(t0) + skew
        if elapsed >= span.rounds * span.round_us:
            self.span = None
            return
        if self.queue and self.identified and self.key is None and self._news_step(span, elapsed, now):
            return
        target = self._span_target(span, elapsed)
        if target is None:
            return
        r, at = target
        if at - elapsed > span.round_us:
            return  # not yet (wake_us says when)
        reply = self._span_reply(span, now, max(0, at - elapsed))
        elapsed = link.since(t0) + skew  # building the answer took time: the slot may have begun meanwhile
        if at < elapsed:  # (a slot that has not begun is still the one _span_target chose)
            target = self._span_target(span, elapsed)
            if target is None:
                return
            if target[0] != r:
                r, at = target
                reply = self._span_reply(span, now, max(0, at - elapsed))
        last_roll = span.roll and r == span.rounds - 1  # late, it still answers (_span_target)
        if at - elapsed < -self.guard_us and not last_roll and r + 1 >= span.rounds:
            return  # the slot went by while the answer was made, and it was the window's last
        self._span_send(span, r, at, elapsed, reply, last_roll, now)

    @micropython.native
    def _news_step(self, span, elapsed, now):
        """News in a LISTEN window, the common case of _span_step's (a press, its slot this round or the next):
        _span_target's and _span_reply's choices inline, a call and a dozen lookups fewer on the way from the
        finger to the wait (firmware/PROTOCOL.md, "A press's way to its slot"). False: the long way decides (the
        window's last slot gone by, a card's UID longer than a slot, the slot begun while the answer was made)."""
        round_us = span.round_us
        offset = span.offset_us
        need = elapsed - offset  # a slot is still ours if it has not begun
        r = 0 if need <= 0 else (need + round_us - 1) // round_us
        if r < span.next_round:
            r = span.next_round
        if r >= span.rounds:
            return False
        at = r * round_us + offset
        if at - elapsed > round_us:
            return True  # not yet (wake_us says when)
        fits = (span.slot_us - self.guard_us) * self.baud_10k // 1000 - _OVERHEAD - 1
        if fits != self.prep_fits:
            self._prepare(fits)
        if not self.prep_n:
            return False
        reply = self._stamp(span.seq, now, (at - elapsed) // 1000)
        elapsed = self.io.link.since(span.t0) + span.skew_us  # building the answer took time
        if at < elapsed:
            return False
        self._span_send(span, r, at, elapsed, reply, False, now)
        return True

    @micropython.native
    def _poll_slot(self, span, now):
        """A press made after the POLL_ALL was taken, before this node's slot (Span.poll): the answer in that slot,
        as _poll_all_fast makes it, without the LISTEN window's rounds and master slots (a POLL_ALL has one round
        and none). Through the window's way (_span_target, _span_reply, _span_send) a press made 1.45 ms before its
        slot reached it 3 times in 40 on the emulated chip, 39 this way (benchmarks/node_path.py press;
        firmware/PROTOCOL.md, "Bytes in machine code")."""
        self.span = None  # one answer, or none: the slot is this POLL_ALL's only one
        if not self.queue:
            return
        link = self.io.link
        t0 = span.t0
        at = span.offset_us
        if link.since(t0) - at > LATE_START_US:
            self.stats["missed_slots"] += 1
            return  # begun while the loop was busy (talking now would run into the next seat's): the next poll
        fits = (span.slot_us - self.guard_us) * self.baud_10k // 1000 - _OVERHEAD - 1
        if fits != self.prep_fits:
            self._prepare(fits)
        # (a card's UID longer than a slot: NAK_POLL_ME, and the host asks by name)
        reply = self._stamp(span.seq, now, 0) if self.prep_n else self.nak.ready(span.seq, _NAK_POLL_ME)
        mask = self.ticks_mask
        link.write_at((t0 + at) & mask, reply, None, (t0 + at + LATE_START_US) & mask)
        self.stats["replies"] += 1

    @micropython.native
    def _span_send(self, span, r, at, elapsed, reply, last_roll, now):
        """The answer into the machine-code wait for round ``r``'s slot (at ``at`` µs into the window), or the
        next round's if that one has gone by when the wait begins (rs485.py's ``write_at``, ``again``): the path
        here is interpreted, and a slot missed by its last hundred microseconds cost the press a loop pass and
        often the next round too (firmware/PROTOCOL.md, "The slot path")."""
        link = self.io.link
        # The slot's start and the watched master slot as moments on the link's clock, counted from the window's
        # start: the wait ends at the slot's microsecond, however long this took (rs485.py's write_at). Each
        # moment is t0 and an offset on the link's wrapping clock (``ticks_mask``: link.after's sum, inline).
        t0 = span.t0 - span.skew_us
        mask = self.ticks_mask
        watch = None
        round_us = span.round_us
        gap_start = r * round_us - span.gap_us  # the master slot just before round r
        watch_to = gap_start + span.gap_us - _LISTEN_WATCH_TO_US
        if r > 0 and watch_to > elapsed:
            watch = ((t0 + gap_start + _LISTEN_WATCH_FROM_US) & mask, (t0 + watch_to) & mask)
            unwatched = r > span.clear_to + 1
        else:
            unwatched = r > span.clear_to
        if unwatched and link.waiting():
            # Master slots went by that this node did not watch (it was busy, or its last answer missed its slot),
            # and the look before the wait and the machine-code watch see only the one before round r, if any.
            # Bytes waiting may be the host's new window: read them first, here (the rest of a loop pass first
            # cost the answer a round), and answer if they were only other seats' answers (firmware/PROTOCOL.md,
            # "A stale answer two rounds on").
            if self.rereading:
                return
            # Then on to the wait with the answer made, if the window goes on and the slot has not begun: made again
            # (another _span_step) it cost 0.3 ms, and a round's other answers, stamped meanwhile, made the second
            # look give up, so a press in a busy round missed its slot (benchmarks/node_slots.py --trace: 16 seats).
            seq = span.seq
            start = span.t0
            self.rereading = True
            for _ in range(4):  # (while the slot is a round away, the others' answers may keep coming)
                self._take_frames(now)
                if self.span is not span or span.seq != seq or span.t0 != start or span.held:
                    self._span_step(now)  # the host spoke: in its new window, if any
                    self.rereading = False
                    return
                if not link.waiting():
                    break
            if link.waiting():
                self.rereading = False
                return  # still unread: the next pass
            elapsed = link.since(span.t0) + span.skew_us
            if at - elapsed < LATE_START_US:
                self._span_step(now)  # the slot began meanwhile: the next one
                self.rereading = False
                return
            self.rereading = False
        again = None
        if not last_roll and r + 1 < span.rounds:  # the same slot a round on, and the master slot before it
            again = (round_us, (t0 + gap_start + round_us + _LISTEN_WATCH_FROM_US) & mask,
                     (t0 + watch_to + round_us) & mask)
        span.next_round = r + 1
        self.stats["replies"] += 1
        confirms = self.identified and not self.queue and self.confirm_seq is not None  # as _span_reply chose
        latest = self._roll_latest(span) if last_roll else at + LATE_START_US
        sent = link.write_at((t0 + at) & mask, reply, watch, (t0 + latest) & mask, again)
        if sent == 2:  # in the next round's slot
            r += 1
            span.next_round = r + 1
        if sent:
            span.clear_to = r
        if sent is False:  # the host spoke in the master slot: what it said (_window_acks, or not) tells
            span.held = True
            span.next_round = r
        elif sent and confirms:
            self.confirm_seq = None  # said once; a host that missed it sends the command again (same SEQ)

    def wake_us(self):
        """Microseconds until this node wants a step to answer in a LISTEN slot (None: nothing planned). The
        Pico's loop steps all the time; a simulator steps a node only when something happens, so it asks."""
        span = self.span
        if span is None or span.held:
            return None  # (held: the frame it heard wakes it)
        if self.wire.pending():
            return self.gap_ms * 1000 + 1000  # a partial frame: after the line has been quiet long enough to drop it
        elapsed = self._in_span(span)
        target = self._span_target(span, elapsed)
        if target is None:
            return None
        return max(0, target[1] - span.round_us - elapsed)

    def _handle(self, frame, now):
        if frame.from_node:
            return
        self.span = None  # any frame from the host ends a LISTEN window (a LISTEN is taken in _listen_fast)
        if frame.addr == sb.BROADCAST and frame.mtype == sb.STAGE:
            self._stage(frame.payload, 0, len(frame.payload))
            return
        if frame.addr != self.address:
            return
        t = frame.mtype
        if t == sb.IDENTIFY:
            self.identified = True
            self.last_cmd_seq = None
            self.confirm_seq = None
            self._send(frame.seq, sb.IDENTITY, self._identity())
            return
        quiet = t & sb.QUIET
        if not self.identified:
            # After a reboot the host must learn it before anything else: answer every frame with IDENTITY (but
            # a quiet one: the node says it has no session in its LISTEN slot).
            if not quiet:
                self._send(frame.seq, sb.IDENTITY, self._identity())
            return
        if quiet:
            code = 0 if frame.seq == self.last_cmd_seq else self._apply(t ^ quiet, frame.payload)
            self._confirm(frame.seq, code)
            return
        if t == sb.POLL:
            self._ack_events(sb.decode_poll(frame.payload))
            payload = self._events_payload(now)
            if self.key is not None:
                try:
                    self.counter = self.reservation.next(self.counter) if self.reservation else self.counter + 1
                except Exception:  # authcounter.Exhausted: this key's counters are used up; the host refuses
                    self._send(frame.seq, sb.EVENTS, payload)  # unsealed replies and says to pair again
                    return
                sealed = sb.seal(self.key, self.address, frame.seq, self.counter, sb.EVENTS, payload)
                self._send(frame.seq, sb.AUTH, sealed)
            else:
                self._send(frame.seq, sb.EVENTS, payload)
            return
        if frame.seq == self.last_cmd_seq:
            self._send(frame.seq, sb.ACK)  # a retransmit: our ACK was lost; never apply twice
            return
        code = self._apply(t, frame.payload)
        if code:
            self._send(frame.seq, sb.NAK, bytes((code,)))
            return
        self.last_cmd_seq = frame.seq
        self._send(frame.seq, sb.ACK)

    def _confirm(self, seq, code):
        """A quiet command was applied (``code`` 0) or refused: its answer waits for this node's LISTEN slot."""
        if not code:
            self.last_cmd_seq = seq
        self.confirm_seq = seq
        self.confirm_code = code

    def _apply(self, t, payload):
        io = self.io
        if t == sb.SET_LED:
            return self._set_led(payload[0], payload[1], payload[2])
        elif t == sb.DISPLAY:
            if io.screen is None:
                return sb.NAK_UNSUPPORTED
            try:
                page, col, data = sb.decode_display(payload)
            except sb.FrameError:
                return sb.NAK_BAD_PAYLOAD
            at = page * 128 + col
            self.fb[at : at + len(data)] = data
            self._dirty(at, at + len(data))
        elif t == sb.DISPLAY_RLE:
            return self._display_rle(payload, 0, len(payload))
        elif t == sb.DISPLAY_STAGED:
            return self._display_staged(payload, 0, len(payload))
        elif t == sb.DISPLAY_CMD:
            if io.screen is None:
                return sb.NAK_UNSUPPORTED
            from ssd1306 import passthrough_ok

            if not passthrough_ok(payload):
                return sb.NAK_BAD_PAYLOAD
            io.screen.command(payload)
        elif t == sb.RESET:
            if payload[0] != sb.RESET_MAGIC:
                return sb.NAK_BAD_PAYLOAD
            self.pending_reset = True
        else:
            return sb.NAK_UNSUPPORTED
        return 0

    @micropython.native
    def _stage(self, buf, p, end):
        """STAGE, its payload at buf[p:end] (seatbus.decode_stage, read in place): draw one part of a stage onto
        its blank picture, if this node is listed (else it is not ours)."""
        if self.fb is None or end - p < 7:
            return
        stage = buf[p]
        part = buf[p + 1]
        parts = buf[p + 2]
        n = buf[p + 3]
        if not stage or not 1 <= parts <= sb.STAGE_PARTS_MAX or part >= parts or not n or end - p < 6 + n:
            return
        listed = False
        for i in range(p + 4, p + 4 + n):
            if buf[i] == self.address:
                listed = True
                break
        if not listed:
            return
        if self.stage_id < 0:
            self._staged_dirty()  # (the old screen, in the buffer this stage is drawn on, is compared first)
        if stage != self.stage_id:  # a new stage: it starts blank
            framing.clear(self.stage, sb.SCREEN_BYTES)
            self.stage_id = stage
            self.stage_parts = 0
            self.stage_whole = (1 << parts) - 1
        at = p + 4 + n
        if framing.rle_into(self.stage, buf, (at + 2) | end << 16, buf[at] << 8 | buf[at + 1]) < 0:
            return
        self.stage_parts |= 1 << part

    def _set_led(self, r, g, b):
        if self.io.led is None:
            return sb.NAK_UNSUPPORTED
        self.host_rgb = (r, g, b)
        self.echo_until = None
        self.echo_due = False  # the host's colour, come in the same step as a press, is the one shown
        self.io.led.set(self.host_rgb)
        return 0

    @micropython.native
    def _display_rle(self, buf, p, end):
        """DISPLAY_RLE, its payload at buf[p:end]: the changed bytes onto the screen's buffer."""
        if self.io.screen is None:
            return sb.NAK_UNSUPPORTED
        span = framing.rle_into(self.fb, buf, (p + 2) | end << 16, buf[p] << 8 | buf[p + 1])
        if span < 0:
            return sb.NAK_BAD_PAYLOAD
        if span:
            self._dirty(span >> 11, span & 2047)
        return 0

    @micropython.native
    def _display_staged(self, buf, p, end):
        """DISPLAY_STAGED, its payload at buf[p:end]: this node's own changes onto the whole stage, which becomes
        the screen; the panel is written only where it changes, a page row at a time."""
        if self.io.screen is None:
            return sb.NAK_UNSUPPORTED
        if not self.stage_id or buf[p] != self.stage_id or self.stage_parts != self.stage_whole:
            return sb.NAK_NO_STAGE
        if not framing.crc_behind(self.stage, sb.SCREEN_BYTES, buf, p + 1):
            return sb.NAK_NO_STAGE  # not the picture the host staged (a stage of the same number from before)
        if framing.rle_into(self.stage, buf, (p + 7) | end << 16, buf[p + 5] << 8 | buf[p + 6]) < 0:
            return sb.NAK_BAD_PAYLOAD
        old = self.fb
        self.fb = self.stage
        self.stage = old  # the old screen's buffer is the next stage's (no allocation)
        self.stage_id = -1  # what changed is looked for once the answer is on its way (_staged_dirty)
        return 0

    @micropython.native
    def _staged_dirty(self):
        """After a DISPLAY_STAGED's answer: the panel is written only where the new screen differs from the old
        one, whose buffer is the next stage's until a STAGE comes. One viper pass after the ACK, not a
        comparison a page row at a time before it (eight calls and eight more to _dirty: 0.45 ms of the 2.4 from
        the frame's end to the ACK on the emulated chip, benchmarks/node_slots.py --hits)."""
        self.stage_id = 0
        span = framing.differ(self.fb, self.stage, sb.SCREEN_BYTES)
        if span:
            self._dirty(span >> 11, span & 2047)

    @micropython.native
    def _dirty(self, lo, hi):
        if lo < self.dirty_lo:
            self.dirty_lo = lo
        if hi > self.dirty_hi:
            self.dirty_hi = hi

    def _slot_near(self):
        """Is this node's next answer in the LISTEN window (news, a confirmation) due within a chunk or two?"""
        span = self.span
        elapsed = self._in_span(span)
        target = self._span_target(span, elapsed)
        return target is not None and target[1] - elapsed < FLUSH_MARGIN_US

    @micropython.native
    def _flush(self, now):
        """Draw what the panel does not show yet, ``panel_chunk`` bytes at a time, stopping as soon as bus bytes
        are waiting: the host's next frame is answered first, and the drawing goes on at the next step."""
        screen = self.io.screen
        if screen.busy():
            return  # the last chunk is still going out (feeding it costs the loop next to nothing: rp2i2c.py)
        self.drawing = False
        queue = self.queue
        if queue and (now - queue[0][2]) < HOLD_DRAWING_MS:
            return  # news first (HOLD_DRAWING_MS)
        link = self.io.link
        buttons = self.io.buttons
        while self.dirty_lo < self.dirty_hi:
            if link.waiting() or (self.span is not None and self._slot_near()):
                return
            bank = self.bank
            if bank is None or not bank.calm(now):  # (bank: every pin at once, buttons.Bank)
                for b in buttons:  # a press first: the next step takes it, and then the drawing waits (news first)
                    if b.changed(now):
                        return
            lo = self.dirty_lo
            page = lo >> 7
            end = min(self.dirty_hi, (page + 1) << 7, lo + self.panel_chunk)
            screen.write(page, lo & 127, self.fb, lo, end)
            self.dirty_lo = end
            if screen.busy():  # on the chip: it goes out while the loop runs on (rp2i2c.py)
                self.drawing = True
                return
        self.dirty_lo = sb.SCREEN_BYTES
        self.dirty_hi = 0

    @micropython.native
    def _take_frames(self, now):
        """Read what the line brought and act on each whole frame in it."""
        wire = self.wire
        if wire.fill(self.io.link):
            self.last_rx = now
        elif wire.pending() and (now - self.last_rx) > self.gap_ms:
            wire.idle()
        else:
            return  # nothing new: no frame to look for
        buf = wire.buf
        while True:
            at = wire.next()  # (the other nodes' answers are passed over: FrameReader.pass_nodes)
            if at < 0:
                break
            if not self._handle_fast(buf, at, now):
                self._handle(wire.frame(at), now)
        if self.stage_id < 0:
            self._staged_dirty()
        self.stats["frames"] = wire.st[_WIRE_FRAMES]
        crc_errors = wire.st[_WIRE_CRC_ERRORS]
        if crc_errors != self.crc_errors:
            # Garbage in a window (a collision, or the host's frame garbled; not the LISTEN's second copy
            # garbled): stop until the host speaks again.
            span = self.span
            if span is not None and self._in_span(span) - span.skew_us > span.copy_us:
                self.span = None
            self.crc_errors = crc_errors
            self.stats["crc_errors"] = crc_errors

    @micropython.native
    def _handle_fast(self, buf, at, now):
        """The frames of every poll and every screen, answered from the receive buffer with the replies made at
        boot, allocating nothing: a host frame to another node, and to this one (identified, not in a LISTEN
        window) a POLL with no news, SET_LED, DISPLAY_RLE, DISPLAY_STAGED and a retransmitted command, and a
        STAGE broadcast. False:
        the frame takes the long way (``_handle``), which does the same for every frame."""
        addr = buf[at + 2]
        if addr & _FROM_NODE:
            return True  # another node's answer
        span = self.span
        if span is not None and span.poll:
            self.span = None  # the host talks after a POLL_ALL's window only: its slot is over
        mtype = buf[at + 4]
        if addr != self.address:
            if addr != _BROADCAST:
                self.span = None  # any frame from the host ends a LISTEN window
                return True
            if mtype == _LISTEN:
                self._listen_fast(buf, at)
                if self.queue and self.span is not None:
                    # News waiting for this window: straight on to the slot, not through the rest of the read and
                    # of the pass (0.1 ms of the 1.4 from the LISTEN's end to the wait: benchmarks/node_path.py take).
                    self._span_step(now)
                return True
            if mtype == _WINDOW_ACKS:
                self._window_acks(buf, at)
                return True
            if mtype == _POLL_ALL:
                self.span = None  # any frame from the host ends a LISTEN window
                self._poll_all_fast(buf, at, now)
                return True
            if mtype != _STAGE or self.span is not None:
                return False
            self._stage(buf, at + _HEADER_LEN, at + _HEADER_LEN + buf[at + 1])  # the deal's shared screens
            return True
        quiet = mtype & _QUIET
        if quiet:  # sent between LISTEN windows: any frame from the host ends one
            if not self.identified:
                return True  # no session: it says so in its LISTEN slot, and the host restores it whole
            self.span = None
            mtype ^= quiet
        elif not self.identified or self.span is not None:
            return False
        seq = buf[at + 3]
        p = at + _HEADER_LEN
        link = self.io.link
        if mtype == _POLL:
            if self.key is not None:
                return False
            if self.queue:  # (nothing to take an ack for, most polls)
                self._ack_events(buf[p] << 8 | buf[p + 1])
                if self.queue:
                    return False
            link.write(self.no_events.ready(seq))
            self.stats["replies"] += 1
            return True
        if mtype == _SET_LED:
            code = self._set_led(buf[p], buf[p + 1], buf[p + 2]) if seq != self.last_cmd_seq else 0
        elif mtype == _DISPLAY_RLE:
            code = self._display_rle(buf, p, p + buf[at + 1]) if seq != self.last_cmd_seq else 0
        elif mtype == _DISPLAY_STAGED:
            code = self._display_staged(buf, p, p + buf[at + 1]) if seq != self.last_cmd_seq else 0
        else:
            return False
        if quiet:
            self._confirm(seq, code)
            return True
        if code:
            link.write(self.nak.ready(seq, code))
        else:
            self.last_cmd_seq = seq
            link.write(self.ack.ready(seq))
        self.stats["replies"] += 1
        return True

    @micropython.native
    def step(self, now_ms):
        """One pass of the main loop at time now_ms (milliseconds, from ticks_ms or a test clock)."""
        # (The guards of _echo, _reader, _flush and _span_step are here as well: a call is some 20 µs on the chip,
        # and a shorter pass reaches a LISTEN sooner, firmware/PROTOCOL.md "Where a LISTEN waits inside a Pico".)
        wdt = self.wdt
        if wdt is not None:
            wdt.feed()
        self._buttons(now_ms)
        if self.echo_until is not None:
            self._echo(now_ms)
        if now_ms - self.next_scan >= 0:
            self._reader(now_ms)
        quiet = self.link_quiet
        st = self.wire_st
        if quiet is None or not quiet(self.link_w) or st[0] != st[1] or now_ms - self.last_take >= TAKE_VALVE_MS:
            self.last_take = now_ms
            self._take_frames(now_ms)
        if self.dirty_lo < self.dirty_hi or self.drawing:
            self._flush(now_ms)
        if self.span is not None:
            self._span_step(now_ms)
        if self.echo_due:
            self.echo_due = False
            self.io.led.set(ECHO_RGB)
        if self.pending_reset:
            self.pending_reset = False
            self.io.reset()

    def busy(self):
        """True while something needs the node stepped again soon (debounce, local echo, a scan under way)."""
        if self.echo_until is not None or self.scanning:
            return True
        return any(b.waiting() for b in self.io.buttons)
