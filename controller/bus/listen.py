"""LISTEN windows as the bus master keeps them: when one began, its rounds, when the master may talk
(:class:`Span`), and the master's part that opens them, sleeps in them and closes them (:class:`ListenWindows`).

The master's side of the protocol's LISTEN (firmware/PROTOCOL.md): one broadcast frame opens a window of
``rounds`` rounds, each the listed nodes' slots and then a master slot. The master sleeps in one read until a node
answers or the window ends, so an idle table wakes the host about ten times a second instead of a hundred; it
talks only in a master slot, and the first frame it sends there ends the window for every node, but for the acks
of news (WINDOW_ACKS) while every node in it is on firmware 0.9.9 and the master is told to
(``BusMaster.acks_in_windows``, off).

The times here are the host's clock. The nodes count from when they read the LISTEN; the host counts from when
its last byte left (``opened``), so a USB adapter's latency shifts the two apart by a fraction of a millisecond:
that is why the host aims ``LISTEN_AIM_US`` into a master slot and the nodes listen for it until
``LISTEN_WATCH_TO_US`` before its end.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from . import seatbus as sb
from .nodes import Link, NodeState
from .poll_all import garbled_since
from .quiet import CONFIRM_S

#: The master starts no frame sooner than this after the last bytes it heard: a node's UART stamps a burst's end
#: only when the line has been quiet for 32 bit times (16 µs at 2 Mbaud), and a LISTEN sent 10-14 µs after the
#: roll call's answer ran into the same burst.
QUIET_BEFORE_TALKING_S = 0.00006


def listen_rounds(nodes: int, slot_us: int, gap_us: int, span_us: int = sb.LISTEN_SPAN_US) -> int:
    """How many rounds of ``nodes`` slots and a master slot make a window of about ``span_us``."""
    round_us = nodes * slot_us + gap_us
    return max(1, min(255, round(span_us / round_us)))


@dataclass
class Span:
    """One open LISTEN window: who is in it (in slot order, the node called by roll last), and what was heard."""

    seq: int
    #: Host clock when the window began: the LISTEN's last byte on the line, and its lead (the nodes' time 0, about).
    opened: float
    slot: float  # seconds
    gap: float  # the master slot, seconds
    rounds: int
    group: list[NodeState]
    roll: NodeState | None
    #: How long after its slot an answer may still be arriving (the nodes' turnaround, the adapter's latency).
    margin: float = 0.0005
    by_address: dict[int, NodeState] = field(default_factory=dict)
    rebooted: list[NodeState] = field(default_factory=list)
    poll_me: list[NodeState] = field(default_factory=list)
    garbled: int = 0
    #: Something must be said in the next master slot (an ack, a node to poll by name, a recovery).
    must_speak: bool = False
    #: The nodes whose quiet command's confirmation may come in this window (quiet.py): while one is missing,
    #: more commands wait for the master slot after the second round, as a node's loop may miss its first slot.
    expect: set[int] = field(default_factory=set)
    #: Host clock when bytes were last heard in the window (0: none yet).
    heard_at: float = 0.0
    #: Every node in the window keeps it through WINDOW_ACKS: news is acked in the next master slot, the window
    #: going on, instead of ending it to ack in the next LISTEN (firmware/PROTOCOL.md, "Acks inside the window").
    window_acks: bool = False
    #: News heard that such acks should answer, in the next master slot.
    acks_due: bool = False
    #: The node called by roll gave its last round's answer (``roll_heard``).
    roll_answered: bool = False
    #: News came in the window's first round: the window is closed no sooner than the master slot after the
    #: second (``first_master_slot``).
    news_in_first_round: bool = False

    def __post_init__(self) -> None:
        self.by_address = {n.spec.address: n for n in self.group}

    def awaits(self, now: float) -> bool:
        """Is a confirmation expected in this window still to come (its node's wait not run out)?"""
        return any(n.in_flight and now < n.quiet_due for n in (self.by_address[a] for a in self.expect))

    @property
    def patient_until(self) -> float:
        """The master slot after the second round, and not before a node on its own chip can have answered
        (``quiet.CONFIRM_S``): what waits for the confirmations waits no longer."""
        return self.opened + max(2 * self.round - self.gap, CONFIRM_S)

    @property
    def round(self) -> float:
        return len(self.group) * self.slot + self.gap

    @property
    def end(self) -> float:
        return self.opened + self.rounds * self.round

    def roll_heard(self) -> bool:
        """Was the roll call's answer of the last round heard? An answer with news in an earlier round is not it:
        the window goes on past such news while acks are inside it, the roll call still answers in its last slot
        (late, as late as one slot before the end), and a master that took the earlier answer for it sent its
        next LISTEN over that one (emulated Picos, firmware 0.9.9)."""
        return self.roll is None or self.roll_answered

    def roll_call(self, reply: sb.Frame, now: float) -> bool:
        """Is this answer of the roll call's its last round's: its empty answer (only the roll call says nothing
        in a slot), or any that came after the last round was half over (an earlier round's arrives a round
        sooner, a USB adapter's latency aside)?"""
        empty = reply.mtype == sb.EVENTS and reply.payload[:1] == b"\x00"
        return empty or now >= self.end - self.gap - self.slot - self.round / 2

    @property
    def roll_due(self) -> float:
        """When the roll call's answer, in the last slot, must have arrived: nobody talks in the last master slot,
        so a late answer (a node that read the LISTEN late, a slow adapter) may still come in it."""
        return self.end + self.margin

    @property
    def first_master_slot(self) -> int:
        """The first master slot the window may be closed in (1: the one after the first round). News heard in
        the first round keeps it open through the second: a node on its own chip takes a LISTEN in 1.2-2.3 ms, so
        only the seats late in the round reach their first slot, and a master that closed the window to ack one
        of them opened a window in which again only a late seat was heard, while a seat early in the order was
        not heard in any (16 seats pressing at once on emulated Picos: presses 20 ms late; firmware/PROTOCOL.md,
        "News in a window's first round"). A LISTEN's lead (CAP_LISTEN_LEAD) gives most of them their first round,
        not every one: a seat whose wait for its slot was ended by the host's LISTEN takes it in 1.5-2.3 ms."""
        return 2 if self.news_in_first_round else 1

    def speak_at(self, now: float) -> float:
        """The earliest moment from ``now`` at which the master may talk: within a master slot, ``LISTEN_AIM_US``
        after its start and while the nodes still listen for it (from ``first_master_slot`` on); after the last
        round at once, or in its last slot once the node called by roll, whose slot that is, was heard in it."""
        aim = sb.LISTEN_AIM_US / 1e6
        last = sb.LISTEN_WATCH_TO_US / 1e6 + aim
        rnd = self.round
        first = int((now - self.opened) // rnd) + 1  # master slot k ends round k - 1
        for k in (first - 1, first, first + 1):
            if k < self.first_master_slot:
                continue
            if k >= self.rounds:
                if self.roll_heard() and now >= self.end - self.gap - self.slot:
                    return now  # the last slot is the roll call's, and it was heard
                return max(now, self.roll_due)
            start = self.master_slot(k)
            if now <= start + self.gap - last:
                return max(now, start + aim)
        return max(now, self.roll_due)

    def master_slot(self, k: int) -> float:
        """When master slot ``k`` begins (host clock): it ends round ``k - 1``."""
        return self.opened + k * self.round - self.gap

    def mid_window_slot(self, now: float, frame_s: float) -> bool:
        """May a frame of ``frame_s`` seconds begin now and leave the window open: in a master slot before the
        last round's end, ``LISTEN_AIM_US`` into it, and over while the nodes still listen for the host there?"""
        k = int((now - self.opened) // self.round) + 1  # master slot k ends round k - 1
        if k < 1 or k >= self.rounds:
            return False  # (k 0: the lead before the first round, which no node watches)
        start = self.master_slot(k)
        aim = sb.LISTEN_AIM_US / 1e6
        return start + aim <= now + 1e-9 and now + frame_s <= start + self.gap - sb.LISTEN_WATCH_TO_US / 1e6


class ListenWindows:
    """The master's LISTEN windows, one at a time (``span``): :meth:`open` sends the LISTEN, :meth:`listen` sleeps
    in it and closes it at a master slot; what must be done by name goes back to the master through ``link``.

    ``waiting`` says the master sleeps in a window (set under ``lock``, the master's queue lock, so a command
    queued meanwhile either is seen by the window or wakes it). ``can_wake``: another thread can wake the read
    (the transport's pipe); else the window looks at the queue once a round."""

    def __init__(self, link: Link, lock: threading.Lock, can_wake: bool) -> None:
        self.link = link
        self.lock = lock
        self.can_wake = can_wake
        self.span: Span | None = None
        self.waiting = False
        #: Until the line has been clean (no garbled frame) for this long, from the start too, windows are short:
        #: a node that lost the LISTEN frame to noise can say nothing until the next one. (A roll call missed is
        #: no sign of noise: a node that read the LISTEN late misses it too, and is polled by name.)
        self.noisy_for = 10.0
        self._noisy_until = -1.0
        self._trouble = 0
        self._roll = -1

    def open(self, nodes: list[NodeState]) -> None:
        """Send a LISTEN to every node that is up (the next one in turn called by roll, in the last slot)."""
        link = self.link
        self._roll = (self._roll + 1) % len(nodes)
        roll = nodes[self._roll]
        # A node just sent a quiet command reads it, and the LISTEN, before it can confirm: the last slots give
        # it the most time to make its first round (the roll call's stays last, its answer ends the window).
        group = ([n for n in nodes if n is not roll and not n.in_flight]
                 + [n for n in nodes if n is not roll and n.in_flight] + [roll])
        acks = [(n.spec.address, n.last_event) for n in group if n.ack_due]
        st = link.stats
        trouble = st.corrupt_detected + st.collisions  # garbled frames: not a slow node or a late roll call
        now = link.transport.now()
        if trouble != self._trouble or self._noisy_until < 0:
            self._trouble = trouble
            self._noisy_until = max(self._noisy_until, now + self.noisy_for)
        span_us = sb.LISTEN_SPAN_US if now >= self._noisy_until else sb.LISTEN_NOISY_SPAN_US
        rounds = listen_rounds(len(group), link.slot_us, link.gap_us, span_us)
        seq = link.next_seq()
        addresses = [n.spec.address for n in group]
        # A node that lost the LISTEN to noise could say nothing for the whole window: it goes out twice, back to
        # back (one more write, no more wake-ups), and the window begins when the second ends, as the first says,
        # or the lead after it (seatbus.LISTEN_LEAD_US: time for a node on its own chip to take the LISTEN).
        lead = link.listen_lead_us
        copy = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(
            link.slot_us, link.gap_us, rounds, roll.spec.address, addresses, acks, lead))
        after = len(copy) * 10_000_000 // link.baud + lead
        frame = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(
            link.slot_us, link.gap_us, rounds, roll.spec.address, addresses, acks, after))
        for n in group:
            n.ack_due = False
        # The host's write may return before the bytes are out (a serial port, behind a quiet burst too) or after
        # (the simulator): the window begins when the second copy's last byte leaves the line.
        link.put(frame)
        opened = link.put(copy)
        link.stats.frames_sent += 2
        link.stats.listens += 1
        # The roll call's answer may come late (a node that read the LISTEN late, an adapter that holds bytes):
        # nobody else talks after the last round, so waiting for it costs nothing while it is on time.
        late = max(link.slot_margin, link.reply_timeout)
        self.span = Span(seq, opened + lead / 1e6, link.slot_us / 1e6, link.gap_us / 1e6, rounds, group, roll, late,
                         expect={n.spec.address for n in group if n.in_flight}, window_acks=link.window_acks)
        with self.lock:
            self.waiting = True

    def listen(self, span: Span, hold_until: float | None = None) -> None:
        """Sleep in the window until a node answers, the window ends, or the master has something to say (then
        until the next master slot, where the window is closed and the caller talks). Returns at
        ``hold_until`` with the window still open (the simulator runs the director's timers meanwhile)."""
        link = self.link
        transport = link.transport
        can_wake = self.can_wake
        while True:
            now = transport.now()
            queued = link.queued()
            waiting = now < span.patient_until and span.awaits(now)  # for confirmations, with more to send
            ends = span.must_speak or (queued and not waiting)
            speak = ends or span.acks_due
            if speak:
                deadline = span.speak_at(now)
            elif span.roll_heard() and now >= span.end - span.gap - span.slot:
                deadline = now  # the roll call, in the last slot, was heard: nothing more can come
            else:
                deadline = span.roll_due
            deadline = max(deadline, span.heard_at + QUIET_BEFORE_TALKING_S)
            if deadline <= now:
                if span.acks_due and not ends and self._ack_in_window(span, now):
                    continue
                self._close(span)
                return
            wait_until = deadline
            if not can_wake and not speak:
                wait_until = min(wait_until, now + span.round)  # nobody can wake us: look at the queue each round
            if not speak:
                due = link.quiet_due()
                if due is not None and due > now:
                    wait_until = min(wait_until, due)  # a confirmation not come by then: its command again
                if queued:
                    wait_until = min(wait_until, span.patient_until)
            if hold_until is not None and hold_until < wait_until:
                if hold_until <= now:
                    return
                wait_until = hold_until
            data = transport.read(wait_until - now)
            if data:
                span.heard_at = transport.now()
                self._heard(span, data)

    def _heard(self, span: Span, data: bytes) -> None:
        link = self.link
        before, dropped_before = link.decoder.crc_errors, link.decoder.dropped_bytes
        for reply in link.decoder.feed(data):
            node = span.by_address.get(reply.addr)
            if not reply.from_node or node is None:
                continue
            if reply.mtype in (sb.ACK, sb.NAK) and link.confirmed(node, reply):  # a quiet command's (quiet.py)
                link.stats.frames_received += 1
                link.heard(node)
                span.expect.discard(node.spec.address)
                continue
            if reply.seq != span.seq:  # an answer to the window or poll before this one, held by a USB adapter
                link.late(reply)
                continue
            link.stats.frames_received += 1
            if node is span.roll and span.roll_call(reply, span.heard_at):
                span.roll_answered = True
            link.heard(node)
            if reply.mtype == sb.EVENTS:
                if reply.payload[:1] != b"\x00":  # news, not the roll call's empty answer: ack it soon
                    before_events = link.stats.events
                    link.take_events(node, reply)
                    link.stats.events_in_windows += link.stats.events - before_events
                    node.ack_due = True
                    if span.heard_at - span.opened < span.round:  # (before round 1's first answer can come)
                        span.news_in_first_round = True
                    if span.window_acks:
                        span.acks_due = True  # in the next master slot, the window going on
                    else:
                        span.must_speak = True
            elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_NOT_IDENTIFIED,)):
                span.rebooted.append(node)
                span.must_speak = True
            elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_POLL_ME,)):
                span.poll_me.append(node)
                span.must_speak = True
        garbled = garbled_since(link.decoder, before, dropped_before)
        if garbled:
            span.garbled += garbled
            link.stats.corrupt_detected += garbled
            span.must_speak = True

    def _ack_in_window(self, span: Span, now: float) -> bool:
        """Ack the news heard with WINDOW_ACKS in this master slot, keeping the window open (False: this is not a
        master slot it may keep the window through; the window is closed and the next LISTEN acks)."""
        link = self.link
        acks = [(n.spec.address, n.last_event) for n in span.group if n.ack_due]
        span.acks_due = False
        if not acks:
            return True
        frame = sb.encode_frame(sb.BROADCAST, span.seq, sb.WINDOW_ACKS, sb.encode_window_acks(acks))
        if not span.mid_window_slot(now, len(frame) * 10 / link.baud):
            return False
        for n in span.group:
            n.ack_due = False
        link.put(frame)
        link.stats.frames_sent += 1
        link.stats.window_acks += 1
        return True

    def _close(self, span: Span) -> None:
        """At a master slot (or the window's end): the nodes fall silent when the master talks, so now it handles
        what was heard, by name where needed, as after a POLL_ALL."""
        link = self.link
        with self.lock:
            self.waiting = False
        self.span = None
        dropped_before = link.decoder.dropped_bytes
        link.decoder.idle()
        if link.decoder.dropped_bytes > dropped_before:  # the start of a frame that never ended: a wreck too
            span.garbled += 1
            link.stats.corrupt_detected += 1
        ended = link.transport.now() >= span.roll_due
        for node in span.rebooted:
            link.restarted(node)
        for node in span.poll_me:  # its news is longer than a slot (a card; the remote's sealed answers)
            if node.status == "up":
                link.poll(node)
        if span.garbled:
            link.stats.collisions += 1
            for node in span.group:
                if node.status == "up" and node not in span.poll_me:
                    link.poll(node)
        roll = span.roll
        if ended and roll is not None and not span.roll_heard() and roll.status == "up":
            # Silent at its roll call: ask it by name now, until it answers or counts as down (a pulled cable
            # is noticed within one turn of roll calls, 16 windows, plus these exchanges).
            link.stats.timeouts += 1
            link.silent(roll)
            while roll.status == "up" and roll.silent:
                link.poll(roll)

    def abandon(self) -> None:
        """Forget the open LISTEN window without judging it (the simulator let the clock jump over it)."""
        link = self.link
        if self.span is not None:
            with self.lock:
                self.waiting = False
            self.span = None
            link.decoder.idle()
