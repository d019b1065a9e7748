"""A real-time RS-485 wire between a real serial line (a pty, a tty, QEMU's socket) and seat nodes that run the
real firmware under ``micropython``.

:class:`~controller.bus.sim.SimBus` joins the master to the nodes on a simulated clock; here the master is a
real process on the far side of a real line (``tianhei serve`` on the host, or in a VM), so the clock is the
host's and nothing can be fast-forwarded. The wire is modelled as SimBus models it, in real time:

- every frame the master sends reaches the node it names (a broadcast, every node), at the moment its last byte
  was read from the line; the master's frame occupied the wire for its length at the configured baud before that;
- a node's answer goes on the wire a turnaround after the frame it answers, or in its POLL_ALL / LISTEN slot,
  timed from when it read that frame; it is written to the line when its last byte would have left the node at
  that baud, not before (pacing), or as soon as the host can if it is late (counted in ``late_writes``);
- one speaker at a time: an answer that would overlap another transmission (another node's slot, the master's
  frame) collides, and colliding bytes are garbage the master's CRC throws away, as on a shared pair; a node
  waiting across a master slot holds its answer if the master talked there (the LISTEN rule), as SimBus does.

Nodes are stepped on a pipe each (``controller/sim/seatnode/simnode.py``, the same harness as bus-sim): when a
frame arrives for them, when a button or card changes, and every ``idle_tick`` otherwise (every ``busy_tick``
while a debounce or an unacknowledged event needs them). All of it runs in one thread: :meth:`RealWire.run`
waits in one ``select`` for the line or the next timer.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from . import seatbus as sb
from .endpoint import Endpoint
from .sim import SimNode

#: How long a partial frame may wait for the rest of its bytes before the decoder gives it up (the nodes' own
#: rule is ~5 ms of quiet; a VM's UART may pause longer in the middle of a frame, which is not noise).
PARTIAL_GIVE_UP_S = 0.05
#: How often a line that is down is tried again.
RECONNECT_S = 0.1


@dataclass
class WireCounters:
    master_frames: int = 0
    node_frames: int = 0
    display_frames: int = 0
    led_frames: int = 0
    #: Answers in slots that overlapped each other (two nodes at once).
    collisions: int = 0
    #: Frames of the master that overlapped a node's answer (it talked into a slot), and the reverse.
    master_collisions: int = 0
    yielded: int = 0
    #: Answers written later than their modelled end on the wire by more than ``late_by`` (the host was busy).
    late_writes: int = 0
    max_late_ms: float = 0.0
    line_downs: int = 0
    #: The longest round trip to one node's micropython process (the host's scheduler, under load).
    max_step_ms: float = 0.0
    garbage_bytes: int = 0
    node_steps: int = 0


class RealNode(SimNode):
    """A firmware process that can be stepped in two halves: a broadcast frame is handed to every node first and
    their answers read after, so the processes run side by side instead of one after another (on a busy host each
    round trip waits for the scheduler; eight in a row made the answers of the last ones late)."""

    def begin_step(self, now_ms: int, rx: bytes, now_us: int) -> None:
        proc = self.proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(f"s {now_ms} {rx.hex() if rx else '-'} {now_us}\n")
        proc.stdin.flush()

    def finish_step(self) -> bytes:
        """The bytes the node sent in the step (its ``later`` slot answers, LED, wake as :meth:`SimNode.step`)."""
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        tx = b""
        self.later = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"seat node {self.config_path.parent.name} died")
            line = line.rstrip("\n")
            if line == ".":
                return tx
            kind, _, rest = line.partition(" ")
            if kind == "t":
                tx += bytes.fromhex(rest)
            elif kind == "w":
                delay, data, *watch = rest.split()
                span = (int(watch[0]) / 1e6, int(watch[1]) / 1e6) if watch else None
                self.later.append((int(delay) / 1e6, bytes.fromhex(data), span))
            elif kind == "k":
                busy, r, g, b, boot, held, wake = rest.split()
                self.wake = None if wake == "-1" else int(wake) / 1e6
                self.busy = busy == "1"
                self.held = held == "1"
                self.led = (int(r), int(g), int(b))
                self.boot = int(boot)
            elif kind == "e":
                self.errors.append(rest)


class Handle:
    __slots__ = ("callback", "cancelled", "when")

    def __init__(self, when: float, callback: Callable[[], object]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class RealWire:
    """The line's far end, the shared wire and the nodes behind it, on the host's monotonic clock (seconds)."""

    def __init__(
        self,
        endpoint: Endpoint,
        nodes: dict[int, RealNode],
        *,
        baud: int = 115_200,
        turnaround: float = 0.0002,
        idle_tick: float = 0.1,
        busy_tick: float = 0.005,
        late_by: float = 0.002,
        clock: Callable[[], float] = time.monotonic,
        trace: TextIO | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.nodes = nodes
        self.baud = baud
        self.turnaround = turnaround
        self.idle_tick = idle_tick
        self.busy_tick = busy_tick
        self.late_by = late_by
        self._clock = clock
        self.t0 = clock()
        #: Every frame read from the line and every answer written to it, one line each, with the host's time.
        self.trace = trace
        self.counters = WireCounters()
        self.decoder = sb.Decoder()
        self._timers: list[tuple[float, int, Handle]] = []
        self._order = itertools.count()
        self._out: list[list[Any]] = []  # [when its last byte is due, order, bytes]
        #: Recent and coming answers in slots: (start, end, their entry in ``_out``).
        self._slot_air: list[tuple[float, float, list[Any]]] = []
        self._master_air: list[tuple[float, float]] = []  # the master's recent frames (start, end)
        self._tick_due: dict[int, float] = {}
        self._node_time: dict[int, float] = {}
        self._partial_since: float | None = None
        self._next_reconnect = 0.0
        self._line_up = False
        self.leds: dict[int, tuple[int, int, int]] = {a: (0, 0, 0) for a in nodes}
        #: When the master last sent a frame (host clock); None before its first.
        self.last_master: float | None = None
        #: When the master began talking after a silence of more than ``gap_s`` (it started, or started again).
        self.talking_since: float | None = None
        self.gap_s = 1.0
        #: Called with (address, time) when a DISPLAY / DISPLAY_RLE frame reached that node.
        self.on_display: Callable[[int, float], None] | None = None
        #: Called with (address, rgb, time) when a node's LED changed.
        self.on_led: Callable[[int, tuple[int, int, int], float], None] | None = None
        #: Called with (address, frame, time) for every frame the master sent to that node (broadcasts too).
        self.on_frame: Callable[[int, sb.Frame, float], None] | None = None
        for address in nodes:
            self._tick(address, self.t0)

    # --- time and timers -----------------------------------------------------------------------------------
    def now(self) -> float:
        return self._clock()

    def elapsed(self) -> float:
        return self._clock() - self.t0

    def call_at(self, when: float, callback: Callable[[], object]) -> Handle:
        handle = Handle(when, callback)
        heapq.heappush(self._timers, (when, next(self._order), handle))
        return handle

    def call_later(self, delay: float, callback: Callable[[], object]) -> Handle:
        return self.call_at(self.now() + delay, callback)

    def wire_time(self, nbytes: int) -> float:
        return nbytes * 10 / self.baud

    # --- the loop ------------------------------------------------------------------------------------------
    def run(self, until: Callable[[], bool], deadline: float) -> bool:
        """Run the wire until ``until()`` (True) or the host clock reaches ``deadline`` (False)."""
        import select

        while True:
            if until():
                return True
            now = self.now()
            if now >= deadline:
                return False
            self._due(now)
            fd = self.endpoint.fileno()
            if fd is None and self._line_up:  # the far side went away (a read's EOF, or a write's EPIPE)
                self.counters.line_downs += 1
                self.decoder.idle()
                self._partial_since = None
            self._line_up = fd is not None
            if fd is None and now >= self._next_reconnect:
                self._next_reconnect = now + RECONNECT_S
                if self.endpoint.reconnect():
                    fd = self.endpoint.fileno()
            wake = min(deadline, now + (RECONNECT_S if fd is None else 0.25))
            if self._timers:
                wake = min(wake, self._timers[0][0])
            if self._out:
                wake = min(wake, self._out[0][0])
            if self._partial_since is not None:
                wake = min(wake, self._partial_since + PARTIAL_GIVE_UP_S)
            wait = max(0.0, wake - self.now())
            ready, _, _ = select.select((fd,) if fd is not None else (), (), (), wait)
            if ready:
                data = self.endpoint.read()
                if data:
                    self._heard(data, self.now())

    def _due(self, now: float) -> None:
        while self._out and self._out[0][0] <= now:
            end, _, data = heapq.heappop(self._out)
            late = now - end
            if late > self.late_by:
                self.counters.late_writes += 1
                self.counters.max_late_ms = max(self.counters.max_late_ms, round(late * 1000, 2))
            if self.trace is not None:
                self.trace.write(f"{now - self.t0:.6f} node {data.hex()} late_ms {late * 1000:.2f}\n")
            self.endpoint.write(data)
        if self._partial_since is not None and now >= self._partial_since + PARTIAL_GIVE_UP_S:
            self._partial_since = None
            self._frames(self.decoder.idle(), now)
        while self._timers and self._timers[0][0] <= now:
            _, _, handle = heapq.heappop(self._timers)
            if not handle.cancelled:
                handle.callback()

    # --- the master's bytes ----------------------------------------------------------------------------------
    def _heard(self, data: bytes, at: float) -> None:
        before = self.decoder.dropped_bytes
        frames = self.decoder.feed(data)
        self.counters.garbage_bytes += self.decoder.dropped_bytes - before
        self._partial_since = at if self.decoder.pending() else None
        self._frames(frames, at)

    def _frames(self, frames: list[sb.Frame], at: float) -> None:
        frames = [f for f in frames if not f.from_node]  # a tty left in echo mode: the nodes' own answers
        raws = [f.encode() for f in frames]
        after = sum(len(r) for r in raws)
        # One frame in a read (or a LISTEN's two copies) came as it was sent; several are a backlog (this host
        # was busy, the master timed out and tried again): their real times are unknown, so they are not
        # judged for talking over a node (that would be this host's delay, not the master's).
        prompt = len({(f.addr, f.seq) for f in frames}) <= 1
        for frame, raw in zip(frames, raws, strict=True):
            after -= len(raw)
            end = at - self.wire_time(after)  # the frames behind it in this read were still on the wire
            self._master_frame(frame, end - self.wire_time(len(raw)), end, at if prompt else None)

    def _master_frame(self, frame: sb.Frame, start: float, end: float, heard: float | None) -> None:
        """``heard``: when the frame's bytes came off the line (None: in a backlog, at an unknown time). A pty or
        a VM's UART has no baud rate: the bytes come at once, when the master wrote them, so the master talked
        over a node only if it wrote while the node's answer was (in the model) on the wire."""
        self.counters.master_frames += 1
        if self.last_master is None or end - self.last_master > self.gap_s:
            self.talking_since = end
        self.last_master = end
        if self.trace is not None:
            self.trace.write(f"{self.now() - self.t0:.6f} master {frame.encode().hex()} "
                             f"{'backlog' if heard is None else 'prompt'}\n")
        self._forget(end)
        self._master_air.append((start, end))
        if heard is not None:
            hit = [entry for s, e, entry in self._slot_air if s < heard < e]
            if hit:
                self.counters.master_collisions += 1  # the master talked into a slot: both are garbage
                for entry in hit:
                    entry[2] = bytes(b ^ 0x5A for b in entry[2])
                return
        to = list(self.nodes) if frame.addr == sb.BROADCAST else [frame.addr] if frame.addr in self.nodes else []
        raw = frame.encode()
        self._step_all(to, raw, end)
        for address in to:
            if self.on_frame is not None:
                self.on_frame(address, frame, end)
            if frame.mtype in (sb.DISPLAY, sb.DISPLAY_RLE):
                self.counters.display_frames += 1
                if self.on_display is not None:
                    self.on_display(address, end)
            elif frame.mtype == sb.SET_LED:
                self.counters.led_frames += 1

    def _forget(self, now: float) -> None:
        horizon = now - 0.5
        if self._slot_air and self._slot_air[0][1] < horizon:
            self._slot_air = [x for x in self._slot_air if x[1] > horizon]
        if self._master_air and self._master_air[0][1] < horizon:
            self._master_air = [(s, e) for s, e in self._master_air if e > horizon]

    # --- the nodes ---------------------------------------------------------------------------------------------
    def _tick(self, address: int, when: float) -> None:
        self._tick_due[address] = when

        def fire() -> None:
            if self._tick_due.get(address) == when:
                self._step(address, b"", max(when, self.now()))

        self.call_at(when, fire)

    def _step(self, address: int, rx: bytes, when: float) -> None:
        self._step_all([address], rx, when)

    def _step_all(self, addresses: list[int], rx: bytes, when: float) -> None:
        """Step these nodes at ``when`` (their frame's end, or a tick), all begun before any is read."""
        live = [a for a in addresses if self.nodes[a].proc is not None]
        began = self._clock()
        times = {}
        for address in live:
            self.counters.node_steps += 1
            at = max(when, self._node_time.get(address, self.t0))
            self._node_time[address] = times[address] = at
            rel = at - self.t0
            self.nodes[address].begin_step(int(rel * 1000), rx, int(rel * 1e6))
        for address in live:
            tx = self.nodes[address].finish_step()
            self._after_step(address, rx, times[address], tx)
        took = (self._clock() - began) * 1000
        if took > self.counters.max_step_ms:
            self.counters.max_step_ms = round(took, 2)

    def _after_step(self, address: int, rx: bytes, at: float, tx: bytes) -> None:
        node = self.nodes[address]
        if tx:  # an answer to a frame for this node: it talks a turnaround after the frame (no carrier sense)
            self._send(at + self.turnaround, tx)
        later = node.later
        if later and not rx and any(s < at <= e for s, e in self._master_air):
            self.counters.yielded += len(later)  # the master's frame was arriving: the node heard it begin
            later = []
        for delay, data, watch in later:
            start = at + self.turnaround + delay
            if watch is None:
                self._send(start, data, slot=True)
            else:
                self.call_at(start, functools.partial(self._slot, start, data, (at + watch[0], at + watch[1])))
        led = node.led
        if led != self.leds.get(address):
            self.leds[address] = led
            if self.on_led is not None:
                self.on_led(address, led, at)
        now = self.now()
        due = now + (self.busy_tick if node.busy else self.idle_tick)
        if node.wake is not None:
            due = min(due, max(now, at + max(node.wake, 0.0 if later else 0.00005)))
        self._tick(address, due)

    def _slot(self, start: float, data: bytes, span: tuple[float, float]) -> None:
        """A LISTEN answer decided at its slot: silent if the master talked in the master slot it waited across."""
        if any(span[0] <= s <= span[1] for s, _ in self._master_air):
            self.counters.yielded += 1
            return
        self._send(start, data, slot=True)

    def _send(self, start: float, data: bytes, slot: bool = False) -> None:
        """Put a node's answer on the wire. Answers in slots are timed by the nodes, so two that overlap collide
        (as would an answer the master talks over); a plain answer comes a turnaround after the master's frame,
        which the master waits for."""
        end = start + self.wire_time(len(data))
        entry: list[Any] = [end, next(self._order), data]
        if slot:
            hit = [other for s, e, other in self._slot_air if s < end and start < e]
            if hit:
                self.counters.collisions += 1  # two speakers at once: the master reads garbage of both
                for other in [*hit, entry]:
                    other[2] = bytes(b ^ 0x5A for b in other[2])
            self._slot_air.append((start, end, entry))
        self.counters.node_frames += 1
        heapq.heappush(self._out, entry)

    def poke(self, address: int) -> None:
        """Step the node now: its inputs changed (a finger, a card), so its debounce starts at this moment."""
        self._step(address, b"", self.now())

    def table_silent_for(self) -> float:
        """Seconds since the master last said anything (infinite before its first frame)."""
        return float("inf") if self.last_master is None else self.now() - self.last_master

    def close(self) -> None:
        for node in self.nodes.values():
            node.kill()
        self.endpoint.close()
