"""The bus master: the Pi polls every node in turn, sends it commands, and turns its events into port events.

Half-duplex RS-485 has one talker at a time, so every exchange is "master asks, node answers": the master sends a
frame, waits up to ``reply_timeout`` for the answer with the same address and sequence number, and tries again
(at most ``retries`` times) before it counts the node as silent. A node silent for ``down_after`` exchanges in a
row is reported down (a :class:`~controller.ports.LinkEvent`); when it answers again it is identified afresh, its
LED and screen are restored from what the master last sent, and it is reported up.

It is made of parts, each with its own state, that reach back only through the master's seam
(:class:`~controller.bus.nodes.Link`): the POLL_ALL cycle (poll_all.py), the LISTEN windows (listen.py), and the
events taken in (inbound.py). The master itself keeps the cycle, the command queue and slot, the exchanges by
name, and each node's link state and session.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable

from controller.ports import InputEvent, LinkEvent

from . import seatbus as sb
from .inbound import EventIntake
from .listen import ListenWindows, Span
from .nodes import BusStats, NodeSpec, NodeState, Refused, check_identity
from .poll_all import PollAll
from .quiet import WAIT_S, QuietCommands
from .stage import Stager
from .transport import Transport

log = logging.getLogger(__name__)

#: Commands that change a node's screen, all superseded by its repaint (``NodeState.restore``).
SCREEN_TYPES = (sb.DISPLAY, sb.DISPLAY_RLE, sb.DISPLAY_CMD, sb.DISPLAY_STAGED)


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
        quiet: bool = False,
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
        #: The guard of slots while every node that is up says CAP_SLOT_EXACT (benchmarks/node_slots.py tries others).
        self.short_guard_us = sb.POLL_ALL_SHORT_GUARD_US
        #: Waited past the last slot: the nodes' turnaround and the line's.
        self.slot_margin = slot_margin
        #: How long after a POLL_ALL its first slot begins, while every node in it says CAP_POLL_LEAD (0: none):
        #: a Pico takes a POLL_ALL in about a millisecond, and slots before that go by (seatbus.POLL_ALL_LEAD).
        self.poll_lead_us = sb.POLL_ALL_LEAD_US
        #: ...the lead of the POLL_ALLs sent now (0 while a node in the group does not take one).
        self.lead_us = 0
        #: How long after a LISTEN's second copy its window begins, while every node in it says CAP_LISTEN_LEAD:
        #: a Pico takes a LISTEN in 1.35 ms and more, and the window's first slots went by (seatbus.LISTEN_LEAD_US).
        self.listen_lead = sb.LISTEN_LEAD_US
        #: ...and while every node says it takes one sooner (CAP_QUICK_LEAD, firmware 0.9.15): a Pico takes a LISTEN
        #: in 1.25 ms (benchmarks/node_path.py take), and a shorter lead is a press's shorter wait after a new window.
        self.listen_quick_lead = sb.LISTEN_QUICK_LEAD_US
        #: ...the lead of the LISTENs sent now (0 while a node that is up does not ask for one).
        self.listen_lead_us = 0
        self._ordered = [self.nodes[a] for a in sorted(self.nodes)]
        #: Counts changes of any node's state or identity (what decides who is polled together).
        self._topology = 0
        self._split_key = -1
        self._split_cache: tuple[list[NodeState], list[NodeState]] = ([], [])
        #: While nothing is queued, listen to the whole table in long LISTEN windows (False: POLL_ALL cycles).
        self.listen = listen
        #: While commands are queued and every node that is up can take it, send them quietly ahead of LISTEN
        #: windows (quiet.py) instead of running POLL_ALL cycles. Off: on emulated Picos it gave presses nothing
        #: and screens took longer (firmware/PROTOCOL.md, "Quiet commands"); the simulated firmware gains.
        self.quiet = quiet
        self._quiet_ok = False
        #: Ack news inside a LISTEN window (WINDOW_ACKS) while every node in it says CAP_WINDOW_ACKS, instead of
        #: ending the window to ack it in the next LISTEN. Off: on emulated Picos it gave a quiet table of 4 nothing
        #: (p99 5.5-5.7 ms either way) and one of 16 a longer tail (p99 15.6 ms against 11.9): a seat whose wait
        #: hears acks for others loses that round, and with every seat pressing there are acks in most master
        #: slots (firmware/PROTOCOL.md, "Acks inside the window").
        self.acks_in_windows = False
        #: ...whether the windows opened now do (every node that is up says it).
        self.window_acks = False
        self.gap_us = sb.listen_gap_us(baud)
        self._cycle_start = 0.0
        self._listen_group: list[NodeState] = []
        wake = getattr(transport, "wake", None)
        self._wake: Callable[[], None] | None = wake if callable(wake) and getattr(
            transport, "can_wake", True) else None
        #: Called after each command the node took, with its address, type and the time (benchmarks, traces).
        self.on_command: Callable[[int, int, float], None] | None = None
        self.decoder = sb.Decoder()
        self.stats = BusStats()
        self.sink: Callable[[InputEvent], None] = lambda event: None
        self.alerts: list[str] = []
        #: Seconds without a single answer from any node before the master says what to check (once).
        self.nobody_after = 3.0
        self._anyone = False  # some node has answered since the table started
        self._silent_since: float | None = None
        self._told_nobody = False
        self._seq = 0
        #: When the last byte the master wrote leaves the line (a serial port's write returns before that).
        self._line_free = 0.0
        self._lock = threading.Lock()
        self.polls = PollAll(self, roll_every)
        #: A LISTEN window is open and the master sleeps in it: ``send`` wakes it (``transport.wake``).
        self.windows = ListenWindows(self, self._lock, self._wake is not None)
        self.quiets = QuietCommands(self, self._lock, self._took, self._command)
        #: Pictures waiting for the next command slot, where alike screens of many seats go out as one stage.
        self.stager = Stager()
        self._broadcasts: deque[bytes] = deque()  # STAGE frames planned, sent ahead of the nodes' commands
        self.intake = EventIntake(self.transport.now, self.stats, lambda event: self.sink(event), self._alert,
                                  self.send, refused_retry)

    # --- the parts' state, as tests and the simulator look at it -------------------------------------------
    @property
    def _span(self) -> Span | None:
        return self.windows.span

    @property
    def noisy_for(self) -> float:
        """Seconds of short windows after the line was noisy (the LISTEN windows' setting)."""
        return self.windows.noisy_for

    @noisy_for.setter
    def noisy_for(self, seconds: float) -> None:
        self.windows.noisy_for = seconds

    def abandon_span(self) -> None:
        """Forget the open LISTEN window without judging it (the simulator let the clock jump over it)."""
        self.windows.abandon()

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
            waiting = self.windows.waiting
        if waiting and self._wake is not None:
            self._wake()

    def offer_picture(self, address: int, old: bytes, new: bytes) -> bool:
        """A node's whole new picture (``old``: what it shows), for the next command slot to send, staged with
        the other seats' when that is shorter (stage.py); False if the node does not keep a stage (the caller
        sends its frames)."""
        if not self.supports(address, sb.CAP_STAGE):
            return False
        with self._lock:
            self.stager.offer(address, old, new)
            waiting = self.windows.waiting
        if waiting and self._wake is not None:
            self._wake()
        return True

    def _take_pictures(self) -> None:
        """Turn the waiting pictures into STAGE frames and each node's commands (stage.py). A node that still
        has a DISPLAY_STAGED queued is not staged again until it went (it keeps one stage at a time)."""
        with self._lock:
            if not self.stager.pending:
                return
            stageable = {a for a, n in self.nodes.items() if n.status == "up" and self.supports(a, sb.CAP_STAGE)
                         and not any(t == sb.DISPLAY_STAGED for t, _ in n.outbox)}
            pending = self.stager.take()
        plan = self.stager.plan(pending, stageable, self.next_seq())  # outside the lock: the director goes on
        with self._lock:
            for address, writes in plan.writes.items():
                self.nodes[address].outbox.extend(writes)
            for address, (payload, writes) in plan.fallback.items():
                self.nodes[address].fallback[payload] = writes
            self._broadcasts.extend(plan.broadcast)

    def _send_broadcasts(self) -> None:
        """STAGE frames: nobody answers them (a node that missed one says so at its DISPLAY_STAGED)."""
        while self._broadcasts:
            self.put(self._broadcasts.popleft())
            self.stats.frames_sent += 1
            self.stats.stages += 1

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
            self.windows.listen(self._span, when)
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
        if self._span is None and self._may_listen():
            for node in self._ordered:  # the nodes that are not up: asked by name once a window
                if node.status != "up":
                    self.poll(node)
            if self._may_listen():
                if self._quiet_ok:
                    self._send_quietly()
                self.windows.open(self._listen_group)
        if self._span is not None:
            # Held open (``hold_until``), or closed at a master slot: to send commands, or for news. With news
            # and commands queued, the commands go first and the acks ride on the next poll. (A POLL_ALL first,
            # for whoever pressed in the same round after its slot, cost every other seat a whole POLL_ALL window
            # and a command slot before its next chance: 8 of the 14 presses made in such windows waited past
            # 5 ms, benchmarks/bus_timing.py at 2 Mbaud.) With news and nothing to send, the next cycle opens a
            # new window at once, with the acks, where whoever pressed in the same round after its slot answers.
            # The cycle ends with each window so that whoever runs the cycles sees them end: the table's poll
            # thread looks for stop() between cycles, and when one cycle went from window to window while a
            # finger never rested, it polled on two seconds past stop().
            self.windows.listen(self._span, hold_until)
            return
        group, others = self._split()
        if group:
            if hold_until is not None and self.queued():
                hold_until = None
            self.polls.run(group, hold_until)
        for node in others:
            self.poll(node)

    def _split(self) -> tuple[list[NodeState], list[NodeState]]:
        """(the seats polled together, the nodes polled by name), worked out again only when a node's state or
        identity changed (``_topology``): the poll thread runs this a hundred times a second."""
        key = self._topology
        if key != self._split_key:
            group = [
                n
                for n in self._ordered
                if self.poll_all
                and n.status == "up"
                and n.spec.seat
                and self.supports(n.spec.address, sb.CAP_POLL_ALL)
            ]
            self._split_cache = (group, [n for n in self._ordered if n not in group])
            self.lead_us = self.poll_lead_us if group and all(
                self.supports(n.spec.address, sb.CAP_POLL_LEAD) for n in group) else 0
            up = [n for n in self._ordered if n.status == "up"]
            # Slots with the short guard only while every node that is up starts its answers at the slot's
            # microsecond (firmware 0.7); one that waits in interpreted code may start 100-200 µs late
            # (firmware/PROTOCOL.md, "Slot timing").
            exact = bool(up) and all(self.supports(n.spec.address, sb.CAP_SLOT_EXACT) for n in up)
            self.slot_us = sb.poll_all_slot_us(self.baud, self.short_guard_us if exact else sb.POLL_ALL_GUARD_US)
            self._listen_group = (
                up if self.listen and up and all(self.supports(n.spec.address, sb.CAP_LISTEN) for n in up) else []
            )
            self.listen_lead_us = 0
            if self._listen_group and all(self.supports(n.spec.address, sb.CAP_LISTEN_LEAD) for n in up):
                quick = all(self.supports(n.spec.address, sb.CAP_QUICK_LEAD) for n in up)
                self.listen_lead_us = self.listen_quick_lead if quick else self.listen_lead
            self.window_acks = self.acks_in_windows and bool(self._listen_group) and all(
                self.supports(n.spec.address, sb.CAP_WINDOW_ACKS) for n in up)
            self._quiet_ok = self.quiet and bool(self._listen_group) and all(
                self.supports(n.spec.address, sb.CAP_QUIET) for n in up)
            if self._quiet_ok:  # a confirmation may come a couple of rounds late (a node's loop was busy)
                self.quiets.wait = max(3 * (len(up) * self.slot_us + self.gap_us) / 1e6 + 0.001, WAIT_S)
            self._split_key = key
            self.polls.regroup(group)
        return self._split_cache

    def queued(self) -> bool:
        """Is anything waiting to be sent? (A quiet command whose confirmation may still come is not.)"""
        if self.stager.pending or self._broadcasts:
            return True
        for n in self._ordered:  # (the poll thread asks this at every turn: the clock only for a quiet command)
            if n.outbox and (not n.in_flight or self.quiets.sendable(n, self.transport.now())):
                return True
        return False

    def quiet_due(self) -> float | None:
        return self.quiets.due(self._ordered)

    def confirmed(self, node: NodeState, reply: sb.Frame) -> bool:
        return self.quiets.confirmed(node, reply)

    # --- LISTEN windows ------------------------------------------------------------------------------------
    def _may_listen(self) -> bool:
        self._split()
        return bool(self._listen_group) and (self._quiet_ok or not self.queued())

    def _send_quietly(self) -> None:
        """Ahead of a LISTEN window: the stage, then one command to each node that has one, quietly (quiet.py)."""
        self._take_pictures()
        self._send_broadcasts()
        self.quiets.burst_out(self._ordered)

    def command_round(self) -> None:
        """Send queued commands for at most ``command_slot`` seconds (at least one frame if any is queued); never
        inside an open LISTEN window (the master talks only at its master slots, where the window closes)."""
        self._split()
        if self._span is not None or self._quiet_ok:
            return  # (quiet commands go ahead of each LISTEN window instead)
        self._take_pictures()
        live = [n for n in self._ordered if n.status == "up" and n.outbox]
        if not live and not self._broadcasts:
            return
        now = self.transport.now()
        slot_end = now + self.command_slot
        # The rest of the cycle would be a silent pause: fill it with frames that end before the next poll.
        cycle_end = self._cycle_start + self.min_cycle
        for node in live:  # the LED answers a press: it goes before any screen write
            if node.outbox and node.outbox[0][0] == sb.SET_LED:
                self._command(node)
        self._send_broadcasts()  # the stage goes ahead of the screen writes that show it
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

    def settled(self, address: int) -> bool:
        """Has the node taken everything the table gave it (no picture waiting for a burst, nothing queued)?"""
        with self._lock:
            node = self.nodes[address]
            return not node.outbox and address not in self.stager.pending

    def pending_commands(self) -> int:
        """Commands queued for nodes that are up (what the next command slots will send)."""
        with self._lock:
            return len(self._broadcasts) + len(self.stager.pending) + sum(
                len(n.outbox) for n in self.nodes.values() if n.status == "up")

    def poll(self, node: NodeState) -> None:
        if node.status == "refused" and self.transport.now() - node.refused_at < self.refused_retry:
            return
        if node.status != "up" and not self._identify(node):
            self._nobody_yet()
            return
        reply = self._exchange(node, sb.POLL, sb.encode_poll(node.last_event))
        if reply is None:
            return
        if reply.mtype == sb.IDENTITY:
            self.restarted(node)
        elif reply.mtype in (sb.EVENTS, sb.AUTH):
            self._events(node, reply)

    def _command(self, node: NodeState) -> bool:
        """Send the node's oldest queued command; False if the node did not take it (silent or rebooted)."""
        with self._lock:
            if not node.outbox:
                return False
            mtype, payload = node.outbox[0]
        # A command sent quietly before and not confirmed keeps its SEQ: the node may have applied it already.
        seq = node.quiet_seq if node.quiet_item == (mtype, payload) else None
        reply = self._exchange(node, mtype, payload, seq=seq)
        if reply is None:
            return False
        if reply.mtype == sb.IDENTITY:  # rebooted since we last spoke: start its session again (restores it)
            self.restarted(node)
            return False
        node.forget_quiet()
        self._took(node, mtype, payload, reply)
        return True

    def _took(self, node: NodeState, mtype: int, payload: bytes, reply: sb.Frame) -> None:
        """The node answered its command (by name, or confirmed it quietly): it is done, or refused."""
        missed = False
        if reply.mtype == sb.ACK:
            node.cmd_seq = reply.seq
        with self._lock:
            if (mtype, payload) in node.outbox:
                node.outbox.remove((mtype, payload))  # the first such (an LED may have gone ahead of it meanwhile)
                if mtype == sb.DISPLAY_STAGED:
                    plain = node.fallback.pop(payload, [])
                    missed = reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_NO_STAGE,))
                    if missed:  # it missed a part of the stage: its plain frames go instead
                        node.outbox.extendleft(reversed(plain))
        if missed:
            self.stats.stage_misses += 1
        elif reply.mtype == sb.NAK:
            self._alert(f"{node.spec.name} refused command 0x{mtype:02x} (code {reply.payload[0]})")
        if self.on_command is not None:
            self.on_command(node.spec.address, mtype, self.transport.now())

    def supports(self, address: int, capability: int) -> bool:
        """Did the node at ``address`` say (in its last IDENTITY) that it has ``capability``?"""
        ident = self.nodes[address].identity
        return ident is not None and bool(int(ident["caps"]) & capability)  # type: ignore[call-overload]

    def put(self, frame: bytes) -> float:
        """Write a frame nobody answers at once (a STAGE, a quiet command, a LISTEN): returns when its last byte
        leaves the line, after whatever the master wrote before it. The frames that follow are timed from that
        moment (a LISTEN window begins then), not from when the write returned: on a serial port that is as soon
        as the bytes are queued, over a millisecond early behind a quiet burst."""
        start = max(self.transport.now(), self._line_free)
        self.transport.write(frame)
        self._line_free = max(self.transport.now(), start + len(frame) * 10 / self.baud)
        return self._line_free

    def next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFF
        return self._seq

    def _exchange(
        self, node: NodeState, mtype: int, payload: bytes, tries: int | None = None, seq: int | None = None
    ) -> sb.Frame | None:
        """Send, wait for the matching reply, retransmit (same sequence number) up to ``retries`` times."""
        address = node.spec.address
        if seq is None:
            seq = self.next_seq()
            if seq == node.cmd_seq and mtype in sb.COMMAND_TYPES:  # it would take it for a repeat of its last one
                seq = self.next_seq()
        frame = sb.encode_frame(address, seq, mtype, payload)
        attempts = 1 + (self.retries if tries is None else tries)
        for attempt in range(attempts):
            if attempt:
                self.stats.retransmits += 1
            self.transport.write(frame)
            self.stats.frames_sent += 1
            reply = self._await(address, seq)
            if reply is not None:
                self.heard(node)
                return reply
        self.stats.timeouts += 1
        self.silent(node)
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
                self.late(frame)
        self.decoder.idle()
        return None

    def late(self, frame: sb.Frame) -> None:
        """An answer to an earlier frame: a slotted press that came after its window closed (a USB adapter holds
        what it received up to its latency timer, 1 ms on an FTDI chip), or a late answer to an earlier try,
        heard in an exchange, a POLL_ALL window or a LISTEN window.
        A seat's events are numbered, so those it brings are taken now (a repeat is dropped by number) instead of
        waiting a whole cycle for the node to repeat them; anything else is repeated in a later reply."""
        node = self.nodes.get(frame.addr)
        if node is None or node.status != "up" or self.confirmed(node, frame):
            return
        if frame.mtype != sb.EVENTS or not node.spec.seat:
            return
        if frame.payload[:1] != b"\x00":
            self._events(node, frame)
            node.ack_due = True

    # --- link state ---------------------------------------------------------------------------------------------
    def heard(self, node: NodeState) -> None:
        node.silent = 0
        self._anyone = True

    def _nobody_yet(self) -> None:
        """No node has answered since the table started: after ``nobody_after`` seconds, say once what to check.
        The speed comes first: a node flashed for another baud hears only garbage and says nothing, and what it
        says to its own frames reaches the master as bytes that make no frame."""
        if self._anyone or self._told_nobody:
            return
        now = self.transport.now()
        if self._silent_since is None:
            self._silent_since = now
        if now - self._silent_since < self.nobody_after:
            return
        self._told_nobody = True
        garbage = self.decoder.dropped_bytes > 0
        self._alert(
            f"no node has answered in {now - self._silent_since:.0f} s at {self.baud} baud"
            + (" (bytes came that made no frame, as from a node at another speed)" if garbage else "")
            + ": check the adapter and the cable, and that the nodes run at this speed: `tianhei nodes image "
            "--profile <profile>` writes the profile's [bus] baud into every node's image (bus-16 is 2000000; a "
            "node flashed with an older image may run at 1000000: flash it again, or set the profile's baud to it)")

    def silent(self, node: NodeState) -> None:
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

    def restarted(self, node: NodeState) -> None:
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

    def _accept_identity(self, node: NodeState, reply: sb.Frame) -> bool:
        try:
            ident = sb.decode_identity(reply.payload)
            check_identity(node.spec, ident)
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
            # Only a node known to have booted since it was last drawn has a blank panel; at a first contact (this
            # table just started, the node may have kept its power) or after it was out of reach, it may show
            # anything: repaint every byte.
            self._restore(node, whole=not rebooted)
        cause = {sb.RESET_WATCHDOG: "watchdog", sb.RESET_POWER_ON: "power-on", sb.RESET_SOFT: "reset"}
        reason = (
            f"{node.spec.name} answered (firmware {'.'.join(str(x) for x in ident['fw'])}, last reset: "
            + (cause.get(int(ident["reset_cause"]), "other") + ")")
        )
        if was != "up":
            self._link(node, True, reason)
        return True

    def _restore(self, node: NodeState, whole: bool) -> None:
        """Put back what the node showed before it went away: queued ahead of anything newer."""
        items: list[tuple[int, bytes]] = []
        if node.led is not None:
            items.append((sb.SET_LED, bytes(node.led)))
        if node.restore is not None:
            items.extend(node.restore(whole))
        with self._lock:
            node.forget_quiet()  # what was sent quietly and not confirmed is in the repaint, or goes again
            rest = [item for item in node.outbox if item[0] != sb.SET_LED or not items]
            if node.restore is not None:  # the repaint is the screen as last drawn: older writes are in it
                rest = [item for item in rest if item[0] not in SCREEN_TYPES]
                node.fallback.clear()
                self.stager.forget(node.spec.address)
            node.outbox = deque(items + rest)

    # --- events ---------------------------------------------------------------------------------------------------
    def take_events(self, node: NodeState, reply: sb.Frame) -> None:
        self._events(node, reply)

    def _events(self, node: NodeState, reply: sb.Frame) -> None:
        self.intake.take(node, reply)

    def check_identity(self, spec: NodeSpec, ident: dict[str, object]) -> None:
        """Raise Refused with a message saying what is wrong and how to fix it (:func:`nodes.check_identity`)."""
        check_identity(spec, ident)

