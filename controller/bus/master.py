"""The bus master: the Pi polls every node in turn, sends it commands, and turns its events into port events.

Half-duplex RS-485 has one talker at a time, so every exchange is "master asks, node answers": the master sends a
frame, waits up to ``reply_timeout`` for the answer with the same address and sequence number, and tries again
(at most ``retries`` times) before it counts the node as silent. A node silent for ``down_after`` exchanges in a
row is reported down (a :class:`~controller.ports.LinkEvent`); when it answers again it is identified afresh, its
LED and screen are restored from what the master last sent, and it is reported up.

Events are numbered by the node. The master applies an event only if its number comes after the last one applied
(serial number arithmetic, seatbus.seq_after) and acknowledges in the next POLL, so a repeated event (its reply
was lost, or arrived late) is never applied twice and an unacknowledged one is sent again until it gets through.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from controller.ports import (
    RGB,
    Button,
    ButtonEvent,
    CardEvent,
    InputEvent,
    LinkEvent,
    RemoteKey,
    RemoteKeyEvent,
)

from . import seatbus as sb
from .auth_counter import CounterStore
from .listen import Span, listen_rounds

log = logging.getLogger(__name__)

BUTTONS = {sb.BTN_PREV: Button.PREV, sb.BTN_NEXT: Button.NEXT, sb.BTN_OK: Button.OK}
KEYS = {
    sb.KEY_UP: RemoteKey.UP,
    sb.KEY_DOWN: RemoteKey.DOWN,
    sb.KEY_LEFT: RemoteKey.LEFT,
    sb.KEY_RIGHT: RemoteKey.RIGHT,
    sb.KEY_CENTER: RemoteKey.CENTER,
    sb.KEY_MENU: RemoteKey.MENU,
    sb.KEY_BACK: RemoteKey.BACK,
}
SEAT_CAPS = sb.CAP_BUTTONS | sb.CAP_LED | sb.CAP_DISPLAY | sb.CAP_NFC
REMOTE_CAPS = sb.CAP_KEYS5 | sb.CAP_DISPLAY | sb.CAP_AUTH


class Transport(Protocol):
    """A byte pipe to the bus plus the clock it runs on (real for a serial port, simulated for the sim)."""

    def write(self, data: bytes) -> None: ...

    def read(self, timeout: float) -> bytes:
        """Bytes received so far, waiting up to ``timeout`` seconds for the first; b"" if none came."""

    def now(self) -> float: ...


class SerialTransport:
    """A pyserial port (``/dev/ttyAMA0``, ``/dev/ttyUSB0``, or ``loop://`` in tests).

    The master makes thousands of exchanges a second, so each one should cost the host as little as it can: on a
    port with a file descriptor the bytes go with one ``os.write`` and come back after one ``select`` and one
    ``os.read``. pyserial's own ``read`` would re-set the port's termios on every change of timeout and ask the
    driver how much is waiting; its ``flush`` waits for the UART to drain, which the reply's own arrival
    already proves. pyserial still opens and configures the port (baud, raw mode), whatever it is.
    """

    def __init__(self, port: object, clock: Callable[[], float] | None = None) -> None:
        import time

        self.port = port
        self._clock = clock or time.monotonic
        fileno = getattr(port, "fileno", None)
        try:
            self._fd: int | None = fileno() if fileno is not None else None
        except Exception:  # a pyserial URL handler (loop://) has no descriptor
            self._fd = None
        #: A pipe that ``wake`` writes to, read by ``read`` alongside the port: another thread queued a command
        #: while the master sleeps through a LISTEN window.
        self._wake_r = self._wake_w = -1
        if self._fd is not None:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)

    @property
    def can_wake(self) -> bool:
        return self._wake_w >= 0

    def wake(self) -> None:
        """Make a ``read`` that is waiting (or the next one) return at once (from any thread)."""
        if self._wake_w >= 0:
            with contextlib.suppress(BlockingIOError):  # the pipe is full of wake-ups already
                os.write(self._wake_w, b"!")

    @classmethod
    def open(cls, url: str, baud: int) -> SerialTransport:
        import serial

        return cls(serial.serial_for_url(url, baudrate=baud, timeout=0))

    def write(self, data: bytes) -> None:
        if self._fd is not None:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            return
        self.port.write(data)  # type: ignore[attr-defined]
        self.port.flush()  # type: ignore[attr-defined]

    def read(self, timeout: float) -> bytes:
        if self._fd is not None:
            ready, _, _ = select.select((self._fd, self._wake_r), (), (), max(0.0, timeout))
            if not ready:
                return b""
            if self._wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 64)
                if self._fd not in ready:
                    return b""
            try:
                return os.read(self._fd, 4096)
            except BlockingIOError:
                return b""
        port = self.port
        port.timeout = timeout  # type: ignore[attr-defined]
        first: bytes = port.read(1)  # type: ignore[attr-defined]
        if not first:
            return b""
        waiting = port.in_waiting  # type: ignore[attr-defined]
        return first + (port.read(waiting) if waiting else b"")  # type: ignore[attr-defined]

    def now(self) -> float:
        return self._clock()


@dataclass
class NodeSpec:
    """Who should be at an address: a seat (``seat`` > 0) or the remote (``seat`` == 0, with its pairing key)."""

    address: int
    seat: int
    key: bytes | None = None
    #: The remote's accepted AUTH counters, remembered across restarts (``auth_counter.CounterStore``).
    counters: CounterStore | None = None

    @property
    def name(self) -> str:
        return (
            f"seat {self.seat} (address {self.address})"
            if self.seat
            else f"the remote (address {self.address})"
        )


@dataclass
class NodeState:
    spec: NodeSpec
    status: str = "unknown"  # unknown | up | down | refused
    identity: dict[str, object] | None = None
    last_event: int = 0
    auth_counter: int = 0
    #: A sealed reply was accepted since this master started (until then a stale counter may be the remote
    #: still counting in a block from before our restart, and it is asked to restart once in a while).
    auth_fresh: bool = False
    auth_reset_at: float | None = None
    silent: int = 0
    refused_at: float = 0.0
    outbox: deque[tuple[int, bytes]] = field(default_factory=deque)
    led: RGB | None = None
    restore: Callable[[], list[tuple[int, bytes]]] | None = None
    #: Events were applied since the last POLL_ALL: its ack goes in the next one.
    ack_due: bool = False


@dataclass
class BusStats:
    frames_sent: int = 0
    frames_received: int = 0
    retransmits: int = 0
    timeouts: int = 0
    corrupt_detected: int = 0
    duplicates_dropped: int = 0
    auth_rejected: int = 0
    events: int = 0
    poll_alls: int = 0
    listens: int = 0
    #: Events that came in a LISTEN window (the rest came in POLL_ALL cycles or by name).
    events_in_windows: int = 0
    collisions: int = 0
    latencies: list[float] = field(default_factory=list)


class Refused(Exception):
    """A node whose firmware does not match this controller."""


class BusMaster:
    """Polls the configured nodes; call :meth:`cycle` repeatedly (a thread does it in :class:`BusTable`)."""

    def __init__(
        self,
        transport: Transport,
        nodes: list[NodeSpec],
        *,
        reply_timeout: float = 0.01,
        retries: int = 3,
        down_after: int = 3,
        refused_retry: float = 5.0,
        min_cycle: float = 0.009,
        command_slot: float = 0.003,
        baud: int = 1_000_000,
        poll_all: bool = True,
        slot_margin: float = 0.0005,
        roll_every: int = 4,
        listen: bool = True,
    ) -> None:
        self.transport = transport
        self.nodes = {spec.address: NodeState(spec) for spec in nodes}
        for node in self.nodes.values():
            if node.spec.counters is not None:
                node.auth_counter = node.spec.counters.floor
                if node.spec.counters.damaged:
                    log.warning("%s", node.spec.counters.damaged)
        self.reply_timeout = reply_timeout
        self.retries = retries
        self.down_after = down_after
        self.refused_retry = refused_retry
        self.min_cycle = min_cycle
        self.command_slot = command_slot
        self.baud = baud
        #: Poll the seats that can take it with one POLL_ALL a cycle (False: every node by name, as before).
        self.poll_all = poll_all
        self.slot_us = sb.poll_all_slot_us(baud)
        #: Waited past the last slot: the nodes' turnaround and the line's.
        self.slot_margin = slot_margin
        self._roll = -1
        self._cycles = 0
        self._ordered = [self.nodes[a] for a in sorted(self.nodes)]
        #: Counts changes of any node's state or identity (what decides who is polled together).
        self._topology = 0
        self._split_key = -1
        self._quiet_frame: tuple[int, bytes] | None = None
        self._by_address: dict[int, NodeState] = {}
        self._window = 0.0
        self._split_cache: tuple[list[NodeState], list[NodeState]] = ([], [])
        #: Every how many cycles one seat (in turn) is called by name in the POLL_ALL, to hear that it is there.
        self.roll_every = roll_every
        #: While nothing is queued, listen to the whole table in long LISTEN windows (False: POLL_ALL cycles).
        self.listen = listen
        self.gap_us = sb.listen_gap_us(baud)
        self._span: Span | None = None
        self._cycle_start = 0.0
        #: Until the line has been clean (no garbled frame) for this long, from the start too, windows are short:
        #: a node that lost the LISTEN frame to noise can say nothing until the next one. (A roll call missed is
        #: no sign of noise: a node that read the LISTEN late misses it too, and is polled by name.)
        self.noisy_for = 10.0
        self._noisy_until = -1.0
        self._trouble = 0
        self._listen_group: list[NodeState] = []
        self._listen_roll = -1
        #: A LISTEN window is open and the master sleeps in it: ``send`` wakes it (``transport.wake``).
        self._waiting = False
        wake = getattr(transport, "wake", None)
        self._wake: Callable[[], None] | None = wake if callable(wake) and getattr(
            transport, "can_wake", True) else None
        #: Called after each command the node took, with its address, type and the time (benchmarks, traces).
        self.on_command: Callable[[int, int, float], None] | None = None
        self.decoder = sb.Decoder()
        self.stats = BusStats()
        self.sink: Callable[[InputEvent], None] = lambda event: None
        self.alerts: list[str] = []
        self._seq = 0
        self._lock = threading.Lock()

    # --- commands from the ports (any thread) --------------------------------------------------------------
    def send(self, address: int, mtype: int, payload: bytes) -> None:
        """Queue a command. An LED colour replaces a queued one (only the newest matters) and goes to the front:
        it is the player's answer to a press, and independent of any screen write queued before it."""
        with self._lock:
            node = self.nodes[address]
            if mtype == sb.SET_LED:
                node.led = (payload[0], payload[1], payload[2])
                node.outbox = deque(item for item in node.outbox if item[0] != sb.SET_LED)
                node.outbox.appendleft((mtype, payload))
            else:
                node.outbox.append((mtype, payload))
            waiting = self._waiting
        if waiting and self._wake is not None:
            self._wake()

    # --- the poll cycle ---------------------------------------------------------------------------------------
    # A cycle is a poll round (every node asked for its events, nothing else on the wire) and then a command
    # slot of at most ``command_slot`` seconds (LED colours first, then screen writes, one frame per node in
    # turn). Polls never wait behind screen traffic, so a press reaches the host within one cycle however many
    # screens are changing; a large screen change goes out over a few cycles instead of in one long burst.
    #
    # While nothing is queued and every node that is up can take it, a cycle is one LISTEN window instead
    # (listen.py): about 100 ms in which every node with news answers in its slot of the next round and the
    # master sleeps in one read; it ends early, at a master slot, when the master has something to say.
    def cycle(self) -> None:
        """One LISTEN window (see above); else one poll round, then one command slot, padded to ``min_cycle``
        (reading strays meanwhile)."""
        start = self.transport.now()
        if self._span is not None or self._may_listen():
            self.poll_round()
            self.command_round()
            return
        self.poll_round(hold_until=start + self.min_cycle)
        self.command_round()
        self.idle_until(start + self.min_cycle)

    def idle_until(self, when: float) -> None:
        """Keep the line quiet until ``when``: nothing is due to us, so whatever arrives is stray; read it to keep
        time honest. In an open LISTEN window, go on listening in it instead."""
        if self._span is not None:
            self._listen(self._span, when)
            return
        if self._may_listen():
            return  # the next window is the pause
        rest = when - self.transport.now()
        while rest > 0:
            self.transport.read(rest)
            rest = when - self.transport.now()

    def poll_round(self, hold_until: float | None = None) -> None:
        """Poll every node once: the seats that take POLL_ALL with one broadcast frame (only those with news
        answer, each in its slot), every other node (the remote, a node not up yet, older firmware) by name.

        ``hold_until``: when nothing is queued to send, the POLL_ALL's window stays open until then (the end of
        the cycle) instead of closing at its last slot: a quiet table then wakes the host once a cycle, not twice
        (each wake-up has a cost of its own; on this project's test machine about 55 µs of CPU)."""
        self._cycle_start = self.transport.now()
        while True:
            if self._span is None and self._may_listen():
                for node in self._ordered:  # the nodes that are not up: asked by name once a window
                    if node.status != "up":
                        self._poll(node)
                if self._may_listen():
                    self._open_span()
            span = self._span
            if span is None:
                break
            self._listen(span, hold_until)
            if self._span is not None:
                return  # held open (``hold_until``)
            if not any(n.ack_due for n in span.group):
                return  # closed to send commands: they go first
            # Closed for news (a press): others may have pressed in the same moment and missed their slot in
            # this round, so the poll comes before the commands (a new window, or a POLL_ALL).
        group, others = self._split()
        if group:
            if hold_until is not None and self._queued():
                hold_until = None
            self._poll_all(group, hold_until)
        for node in others:
            self._poll(node)

    def _split(self) -> tuple[list[NodeState], list[NodeState]]:
        """(the seats polled together, the nodes polled by name), worked out again only when a node's state or
        identity changed (``_topology``): the poll thread runs this a hundred times a second."""
        key = self._topology
        if key != self._split_key:
            self._quiet_frame = None
            group = [
                n
                for n in self._ordered
                if self.poll_all
                and n.status == "up"
                and n.spec.seat
                and self.supports(n.spec.address, sb.CAP_POLL_ALL)
            ]
            self._split_cache = (group, [n for n in self._ordered if n not in group])
            up = [n for n in self._ordered if n.status == "up"]
            self._listen_group = (
                up if self.listen and up and all(self.supports(n.spec.address, sb.CAP_LISTEN) for n in up) else []
            )
            self._split_key = key
            self._by_address = {n.spec.address: n for n in group}
            # the POLL_ALL's own wire time (its longest: every address and an ack each), then every slot
            longest = sb.OVERHEAD + 4 + 4 * len(group)
            self._window = longest * 10 / self.baud + len(group) * self.slot_us / 1e6 + self.slot_margin
        return self._split_cache

    def _queued(self) -> bool:
        return any(n.outbox for n in self._ordered)

    def _poll_all(self, group: list[NodeState], hold_until: float | None = None) -> None:
        """One POLL_ALL, then the slots: apply what the nodes with news sent, and note whether the node called by
        name (one every ``roll_every`` cycles, in turn) answered; a node silent at three roll calls in a row is
        down."""
        self._cycles += 1
        calling = self._cycles % self.roll_every == 0
        if calling:
            self._roll = (self._roll + 1) % len(group)
        roll = group[self._roll % len(group)] if calling else None
        acks = [(n.spec.address, n.last_event) for n in group if n.ack_due]
        if roll is None and not acks and self._quiet_frame is not None:
            # A quiet cycle asks the same question as the last quiet one, so the frame is sent again as it was
            # (the same SEQ too: an answer to the last one that comes late is as good, its events are numbered).
            seq, frame = self._quiet_frame
        else:
            # The node called by name answers whatever it has, so it goes last: its answer ends the window.
            addresses = [n.spec.address for n in group if n is not roll] + ([roll.spec.address] if roll else [])
            seq = self._next_seq()
            frame = sb.encode_frame(sb.BROADCAST, seq, sb.POLL_ALL, sb.encode_poll_all(
                self.slot_us, roll.spec.address if roll else 0, addresses, acks))
            if roll is None and not acks:
                self._quiet_frame = (seq, frame)
            for n in group:
                n.ack_due = False
        self.transport.write(frame)
        self.stats.frames_sent += 1
        self.stats.poll_alls += 1
        deadline = self.transport.now() + self._window
        by_address = self._by_address
        heard: list[NodeState] = []
        before = self.decoder.crc_errors
        rebooted: list[NodeState] = []
        poll_me: list[NodeState] = []
        if hold_until is not None:
            deadline = max(deadline, hold_until)
        while hold_until is not None or roll is None or roll not in heard:  # the roll call ends the window
            left = deadline - self.transport.now()
            data = self.transport.read(left) if left > 0 else b""
            frames = self.decoder.feed(data) if data else self.decoder.idle()
            for reply in frames:
                node = by_address.get(reply.addr)
                if not reply.from_node or reply.seq != seq or node is None:
                    continue
                self.stats.frames_received += 1
                heard.append(node)
                self._heard(node)
                if reply.mtype == sb.EVENTS:
                    self._events(node, reply)
                    node.ack_due = True
                elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_NOT_IDENTIFIED,)):
                    rebooted.append(node)
                elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_POLL_ME,)):
                    poll_me.append(node)
            if left <= 0:
                break
        garbled = self.decoder.crc_errors - before
        self.stats.corrupt_detected += garbled
        for node in rebooted:
            self._restarted(node)
        for node in poll_me:  # its news (a card) is longer than a slot
            self._poll(node)
        if roll is not None and roll not in heard:
            self.stats.timeouts += 1
            self._silent(roll)
        if garbled:
            # Two answers collided, or noise hit one: whoever had news still has it; ask each node by name now
            # rather than wait for the slots of the next cycle to fall differently.
            self.stats.collisions += 1
            for node in group:
                if node.status == "up":
                    self._poll(node)

    # --- LISTEN windows ------------------------------------------------------------------------------------
    def _may_listen(self) -> bool:
        self._split()
        return bool(self._listen_group) and not self._queued()

    def _open_span(self) -> None:
        """Send a LISTEN to every node that is up (the next one in turn called by roll, in the last slot)."""
        nodes = self._listen_group
        self._listen_roll = (self._listen_roll + 1) % len(nodes)
        roll = nodes[self._listen_roll]
        group = [n for n in nodes if n is not roll] + [roll]
        acks = [(n.spec.address, n.last_event) for n in group if n.ack_due]
        st = self.stats
        trouble = st.corrupt_detected + st.collisions  # garbled frames: not a slow node or a late roll call
        now = self.transport.now()
        if trouble != self._trouble or self._noisy_until < 0:
            self._trouble = trouble
            self._noisy_until = max(self._noisy_until, now + self.noisy_for)
        span_us = sb.LISTEN_SPAN_US if now >= self._noisy_until else sb.LISTEN_NOISY_SPAN_US
        rounds = listen_rounds(len(group), self.slot_us, self.gap_us, span_us)
        seq = self._next_seq()
        addresses = [n.spec.address for n in group]
        # A node that lost the LISTEN to noise could say nothing for the whole window: it goes out twice, back to
        # back (one more write, no more wake-ups), and the window begins when the second ends, as the first says.
        copy = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(
            self.slot_us, self.gap_us, rounds, roll.spec.address, addresses, acks))
        after = len(copy) * 10_000_000 // self.baud
        frame = sb.encode_frame(sb.BROADCAST, seq, sb.LISTEN, sb.encode_listen(
            self.slot_us, self.gap_us, rounds, roll.spec.address, addresses, acks, after))
        for n in group:
            n.ack_due = False
        before = self.transport.now()
        self.transport.write(frame)
        self.transport.write(copy)
        # The host's write may return before the bytes are out (a serial port) or after (the simulator).
        opened = max(self.transport.now(), before + (len(frame) + len(copy)) * 10 / self.baud)
        self.stats.frames_sent += 2
        self.stats.listens += 1
        # The roll call's answer may come late (a node that read the LISTEN late, an adapter that holds bytes):
        # nobody else talks after the last round, so waiting for it costs nothing while it is on time.
        late = max(self.slot_margin, self.reply_timeout)
        self._span = Span(seq, opened, self.slot_us / 1e6, self.gap_us / 1e6, rounds, group, roll, late)
        with self._lock:
            self._waiting = True

    def _listen(self, span: Span, hold_until: float | None = None) -> None:
        """Sleep in the window until a node answers, the window ends, or the master has something to say (then
        until the next master slot, where the window is closed and the caller talks). Returns at
        ``hold_until`` with the window still open (the simulator runs the director's timers meanwhile)."""
        transport = self.transport
        can_wake = self._wake is not None
        while True:
            now = transport.now()
            speak = span.must_speak or self._queued()
            if speak:
                deadline = span.speak_at(now)
            elif span.roll_heard() and now >= span.end - span.gap - span.slot:
                deadline = now  # the roll call, in the last slot, was heard: nothing more can come
            else:
                deadline = span.roll_due
            if deadline <= now:
                self._close_span(span)
                return
            wait_until = deadline
            if not can_wake and not speak:
                wait_until = min(wait_until, now + span.round)  # nobody can wake us: look at the queue each round
            if hold_until is not None and hold_until < wait_until:
                if hold_until <= now:
                    return
                wait_until = hold_until
            data = transport.read(wait_until - now)
            if data:
                self._listen_heard(span, data)

    def _listen_heard(self, span: Span, data: bytes) -> None:
        before = self.decoder.crc_errors
        for reply in self.decoder.feed(data):
            node = span.by_address.get(reply.addr)
            if not reply.from_node or reply.seq != span.seq or node is None:
                continue
            self.stats.frames_received += 1
            span.heard.add(node.spec.address)
            self._heard(node)
            if reply.mtype == sb.EVENTS:
                if reply.payload[:1] != b"\x00":  # news, not the roll call's empty answer: ack it soon
                    before_events = self.stats.events
                    self._events(node, reply)
                    self.stats.events_in_windows += self.stats.events - before_events
                    node.ack_due = True
                    span.must_speak = True
            elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_NOT_IDENTIFIED,)):
                span.rebooted.append(node)
                span.must_speak = True
            elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_POLL_ME,)):
                span.poll_me.append(node)
                span.must_speak = True
        garbled = self.decoder.crc_errors - before
        if garbled:
            span.garbled += garbled
            self.stats.corrupt_detected += garbled
            span.must_speak = True

    def _close_span(self, span: Span) -> None:
        """At a master slot (or the window's end): the nodes fall silent when the master talks, so now it handles
        what was heard, by name where needed, as after a POLL_ALL."""
        with self._lock:
            self._waiting = False
        self._span = None
        self.decoder.idle()
        ended = self.transport.now() >= span.roll_due
        for node in span.rebooted:
            self._restarted(node)
        for node in span.poll_me:  # its news is longer than a slot (a card; the remote's sealed answers)
            if node.status == "up":
                self._poll(node)
        if span.garbled:
            self.stats.collisions += 1
            for node in span.group:
                if node.status == "up" and node not in span.poll_me:
                    self._poll(node)
        roll = span.roll
        if ended and roll is not None and not span.roll_heard() and roll.status == "up":
            # Silent at its roll call: ask it by name now, until it answers or counts as down (a pulled cable
            # is noticed within one turn of roll calls, 16 windows, plus these exchanges).
            self.stats.timeouts += 1
            self._silent(roll)
            while roll.status == "up" and roll.silent:
                self._poll(roll)

    def abandon_span(self) -> None:
        """Forget the open LISTEN window without judging it (the simulator let the clock jump over it)."""
        if self._span is not None:
            with self._lock:
                self._waiting = False
            self._span = None
            self.decoder.idle()

    def command_round(self) -> None:
        """Send queued commands for at most ``command_slot`` seconds (at least one frame if any is queued); never
        inside an open LISTEN window (the master talks only at its master slots, where the window closes)."""
        if self._span is not None:
            return
        live = [n for n in self._ordered if n.status == "up" and n.outbox]
        if not live:
            return
        now = self.transport.now()
        slot_end = now + self.command_slot
        # The rest of the cycle would be a silent pause: fill it with frames that end before the next poll.
        cycle_end = self._cycle_start + self.min_cycle
        for node in live:  # the LED answers a press: it goes before any screen write
            if node.outbox and node.outbox[0][0] == sb.SET_LED:
                self._command(node)
        sent = False
        while live:
            for node in list(live):
                now = self.transport.now()
                if sent and now >= slot_end and (not node.outbox or now + self._exchange_time(node) > cycle_end):
                    return
                if node.status != "up" or not node.outbox or not self._command(node):
                    live.remove(node)
                    continue
                sent = True

    def _exchange_time(self, node: NodeState) -> float:
        """About how long the node's next command takes: its frame and the ACK on the wire, and a turnaround."""
        with self._lock:
            payload = len(node.outbox[0][1]) if node.outbox else 0
        return (2 * sb.OVERHEAD + payload) * 10 / self.baud + 0.0005

    def pending_commands(self) -> int:
        """Commands queued for nodes that are up (what the next command slots will send)."""
        with self._lock:
            return sum(len(n.outbox) for n in self.nodes.values() if n.status == "up")

    def _poll(self, node: NodeState) -> None:
        if node.status == "refused" and self.transport.now() - node.refused_at < self.refused_retry:
            return
        if node.status != "up" and not self._identify(node):
            return
        reply = self._exchange(node, sb.POLL, sb.encode_poll(node.last_event))
        if reply is None:
            return
        if reply.mtype == sb.IDENTITY:
            self._restarted(node)
        elif reply.mtype in (sb.EVENTS, sb.AUTH):
            self._events(node, reply)

    def _command(self, node: NodeState) -> bool:
        """Send the node's oldest queued command; False if the node did not take it (silent or rebooted)."""
        with self._lock:
            if not node.outbox:
                return False
            mtype, payload = node.outbox[0]
        reply = self._exchange(node, mtype, payload)
        if reply is None:
            return False
        if reply.mtype == sb.IDENTITY:  # rebooted since we last spoke: start its session again (restores it)
            self._restarted(node)
            return False
        with self._lock:
            if node.outbox and node.outbox[0] == (mtype, payload):
                node.outbox.popleft()
        if reply.mtype == sb.NAK:
            self._alert(f"{node.spec.name} refused command 0x{mtype:02x} (code {reply.payload[0]})")
        if self.on_command is not None:
            self.on_command(node.spec.address, mtype, self.transport.now())
        return True

    def supports(self, address: int, capability: int) -> bool:
        """Did the node at ``address`` say (in its last IDENTITY) that it has ``capability``?"""
        ident = self.nodes[address].identity
        return ident is not None and bool(int(ident["caps"]) & capability)  # type: ignore[call-overload]

    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFF
        return self._seq

    def _exchange(
        self, node: NodeState, mtype: int, payload: bytes, tries: int | None = None
    ) -> sb.Frame | None:
        """Send, wait for the matching reply, retransmit (same sequence number) up to ``retries`` times."""
        address = node.spec.address
        seq = self._next_seq()
        frame = sb.encode_frame(address, seq, mtype, payload)
        attempts = 1 + (self.retries if tries is None else tries)
        for attempt in range(attempts):
            if attempt:
                self.stats.retransmits += 1
            self.transport.write(frame)
            self.stats.frames_sent += 1
            reply = self._await(address, seq)
            if reply is not None:
                self._heard(node)
                return reply
        self.stats.timeouts += 1
        self._silent(node)
        return None

    def _await(self, address: int, seq: int) -> sb.Frame | None:
        deadline = self.transport.now() + self.reply_timeout
        while True:
            left = deadline - self.transport.now()
            if left <= 0:
                break
            data = self.transport.read(left)
            before = self.decoder.crc_errors
            frames = self.decoder.feed(data) if data else self.decoder.idle()
            self.stats.corrupt_detected += self.decoder.crc_errors - before
            for frame in frames:
                if not frame.from_node:
                    continue  # our own frame echoed (a loopback or a USB adapter that echoes)
                self.stats.frames_received += 1
                if frame.addr == address and frame.seq == seq:
                    return frame
                # A late answer to an earlier try: its content is repeated in a later reply, so drop it.
        self.decoder.idle()
        return None

    # --- link state ---------------------------------------------------------------------------------------------
    def _heard(self, node: NodeState) -> None:
        node.silent = 0

    def _silent(self, node: NodeState) -> None:
        node.silent += 1
        if node.status == "up" and node.silent >= self.down_after:
            node.status = "down"
            self._topology += 1
            reason = (
                f"{node.spec.name} stopped answering ({node.silent} exchanges, {1 + self.retries} tries each)"
            )
            log.warning(reason)
            self._link(node, False, reason)

    def _link(self, node: NodeState, up: bool, reason: str) -> None:
        self.sink(LinkEvent(seat=node.spec.seat, up=up, at=self.transport.now(), reason=reason))

    def _alert(self, message: str) -> None:
        log.warning(message)
        self.alerts.append(message)

    def _restarted(self, node: NodeState) -> None:
        """It lost its session (its power was cut, or it was reset) since it was last heard, however the master
        learnt it: for that moment the seat was dark and a press may have gone, so it counts as a link lost and
        found again (the director pauses and carries on); a new session puts its screen and LED back."""
        if node.status == "up":
            node.status = "down"
            self._topology += 1
            self._link(node, False, f"{node.spec.name} restarted (its power was cut, or it was reset)")
        self._identify(node)

    def _identify(self, node: NodeState) -> bool:
        reply = self._exchange(node, sb.IDENTIFY, b"", tries=0 if node.status != "up" else None)
        if reply is None or reply.mtype != sb.IDENTITY:
            return False
        return self._accept_identity(node, reply)

    def check_identity(self, spec: NodeSpec, ident: dict[str, object]) -> None:
        """Raise Refused with a message saying what is wrong and how to fix it."""
        fw = ".".join(str(x) for x in ident["fw"])  # type: ignore[attr-defined]
        if ident["proto"] != sb.PROTOCOL_VERSION:
            raise Refused(
                f"{spec.name}: firmware {fw} speaks seat bus protocol {ident['proto']}, this controller speaks "
                f"{sb.PROTOCOL_VERSION}; flash it with this release's firmware/ (see firmware/README.md)"
            )
        want_role = sb.ROLE_REMOTE if spec.seat == 0 else sb.ROLE_SEAT
        if ident["role"] != want_role:
            has = "remote" if ident["role"] == sb.ROLE_REMOTE else "seat"
            raise Refused(
                f"{spec.name}: the node there is configured as a {has}; set 'role' in its config.json "
                f"or give it another address"
            )
        need = REMOTE_CAPS if spec.seat == 0 else SEAT_CAPS
        caps = int(ident["caps"])  # type: ignore[call-overload]
        missing = need & ~caps
        if missing:
            raise Refused(
                f"{spec.name}: firmware {fw} lacks capabilities 0x{missing:04x} ({capability_names(missing)}); "
                f"check its wiring and config.json"
            )
        if spec.seat == 0 and spec.key is None:
            raise Refused(f"{spec.name}: no pairing key configured on the controller for the remote")

    def _accept_identity(self, node: NodeState, reply: sb.Frame) -> bool:
        try:
            ident = sb.decode_identity(reply.payload)
            self.check_identity(node.spec, ident)
        except (sb.FrameError, Refused) as err:
            was = node.status
            node.status = "refused"
            self._topology += 1
            node.refused_at = self.transport.now()
            if was != "refused":
                log.error("%s", err)
                self._alert(str(err))
                self._link(node, False, str(err))
            return False
        was = node.status
        rebooted = node.identity is not None and node.identity.get("boot") != ident["boot"]
        node.identity = ident
        self._topology += 1
        node.last_event = 0  # a new session: the node numbers its events from 1 again
        node.status = "up"
        if rebooted or was != "up":
            self._restore(node)
        cause = {sb.RESET_WATCHDOG: "watchdog", sb.RESET_POWER_ON: "power-on", sb.RESET_SOFT: "reset"}
        reason = (
            f"{node.spec.name} answered (firmware {'.'.join(str(x) for x in ident['fw'])}, last reset: "
            + (cause.get(int(ident["reset_cause"]), "other") + ")")
        )
        if was != "up":
            self._link(node, True, reason)
        return True

    def _restore(self, node: NodeState) -> None:
        """Put back what the node showed before it went away: queued ahead of anything newer."""
        items: list[tuple[int, bytes]] = []
        if node.led is not None:
            items.append((sb.SET_LED, bytes(node.led)))
        if node.restore is not None:
            items.extend(node.restore())
        with self._lock:
            rest = [item for item in node.outbox if item[0] != sb.SET_LED or not items]
            node.outbox = deque(items + rest)

    # --- events ---------------------------------------------------------------------------------------------------
    def _events(self, node: NodeState, reply: sb.Frame) -> None:
        payload = reply.payload
        if node.spec.seat == 0:
            opened = self._open_sealed(node, reply)
            if opened is None:
                return
            payload = opened
        elif reply.mtype != sb.EVENTS:
            return
        try:
            events = sb.decode_events(payload)
        except sb.FrameError as err:
            self._alert(f"{node.spec.name}: unreadable events ({err})")
            return
        now = self.transport.now()
        for seq, kind, age_ms, data in events:
            if node.last_event and not sb.seq_after(seq, node.last_event):
                self.stats.duplicates_dropped += 1
                continue
            node.last_event = seq
            at = now - age_ms / 1000.0
            event = self._translate(node, kind, data, at)
            if event is None:
                continue
            self.stats.events += 1
            self.stats.latencies.append(age_ms / 1000.0)
            self.sink(event)

    def _open_sealed(self, node: NodeState, reply: sb.Frame) -> bytes | None:
        """The remote's events if the reply is sealed with its key and a counter never accepted before (also not
        before a restart: ``spec.counters``); else None, counted, logged and alerted."""
        opened = None
        if reply.mtype == sb.AUTH and node.spec.key is not None:
            opened = sb.unseal(node.spec.key, node.spec.address, reply.seq, reply.payload)
        why = None
        if opened is None:
            why = "a bad MAC or no MAC" + (" (a remote that has used up its key's counters answers unsealed: pair it "
                                           "again, tianhei remote pair --new)" if reply.mtype == sb.EVENTS else "")
        elif opened[1] != sb.EVENTS:
            why = "not an events reply"
        elif opened[0] <= node.auth_counter:
            why = "a replayed counter"
            if not node.auth_fresh:
                self.stats.auth_rejected += 1
                self._ask_remote_to_restart(node)
                return None
        else:
            try:
                if node.spec.counters is not None:
                    node.spec.counters.accept(opened[0])  # remembered before it takes effect
            except OSError as err:
                why = f"its counter cannot be remembered ({err})"
        if why is not None or opened is None:
            self.stats.auth_rejected += 1
            self._alert(f"ignored an unauthenticated reply for {node.spec.name}: {why}")
            return None
        node.auth_counter = opened[0]
        node.auth_fresh = True
        return opened[2]

    def _ask_remote_to_restart(self, node: NodeState) -> None:
        """A correctly sealed reply with a counter we may have accepted before our own restart: either a replay,
        or the remote still counting in the block it used then. A restarted remote counts from a block above
        every one it used, so it is asked to restart (a RESET, at most every ``refused_retry`` seconds, and only
        until its first reply is accepted: after that a stale counter is only ever a replay)."""
        now = self.transport.now()
        if node.auth_reset_at is not None and now - node.auth_reset_at < self.refused_retry:
            return
        node.auth_reset_at = now
        self._alert(f"ignored a reply for {node.spec.name} with a counter from before this controller started "
                    f"(a replay, or the remote still counting from then): asked the remote to restart")
        self.send(node.spec.address, sb.RESET, bytes((sb.RESET_MAGIC,)))

    def _translate(self, node: NodeState, kind: int, data: bytes, at: float) -> InputEvent | None:
        seat = node.spec.seat
        if kind in (sb.EV_PRESS, sb.EV_RELEASE) and data:
            pressed = kind == sb.EV_PRESS
            if seat == 0 and data[0] in KEYS:
                return RemoteKeyEvent(key=KEYS[data[0]], pressed=pressed, at=at)
            if seat and data[0] in BUTTONS:
                return ButtonEvent(seat=seat, button=BUTTONS[data[0]], pressed=pressed, at=at)
        elif kind in (sb.EV_CARD, sb.EV_CARD_GONE) and seat:
            return CardEvent(seat=seat, uid=data.hex(), present=kind == sb.EV_CARD, at=at)
        self._alert(f"{node.spec.name}: unknown event kind {kind} with data {data.hex()} ignored")
        return None


def capability_names(mask: int) -> str:
    names = {
        sb.CAP_BUTTONS: "buttons",
        sb.CAP_LED: "LED",
        sb.CAP_DISPLAY: "display",
        sb.CAP_NFC: "card reader",
        sb.CAP_KEYS5: "5-way keys",
        sb.CAP_AUTH: "authentication",
        sb.CAP_WATCHDOG: "watchdog",
    }
    return ", ".join(name for bit, name in names.items() if mask & bit)
