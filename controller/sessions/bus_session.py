"""A whole game over the simulated seat bus: the director and the bots at one end, the host's bus adapter
(:class:`~controller.bus.master.BusMaster` / :class:`~controller.bus.table.BusTable`) in the middle, and one real
firmware process per seat (and the judge's remote) under ``micropython`` at the other. ``tianhei bus-sim`` and
the bus end-to-end tests use it.

One clock. The bus simulation owns time: its clock moves as bytes cross the wire and nodes answer, so it cannot be
told to jump by someone else. The director's scheduler is therefore :class:`BusScheduler`, whose ``now()`` *is* the
bus's clock and whose ``run`` loop alternates between the director's due timers and poll cycles of the master.
When the table is quiet (every node idle and up, nothing queued, no frame in flight) nothing can change until
the next timer (a bot's press, a deadline) or the next simulated power cut, so the loop lets the bus clock run
straight there (:meth:`~controller.bus.sim.SimBus.skip_to`) instead of making thousands of empty polls, each a
round trip to a ``micropython`` process. Polling resumes at once, so a press is still seen within a poll cycle.

Inputs reach the director as on the real table: the master calls its sink inside a poll cycle, and the sink
hands the event to the scheduler (``call_soon``) instead of processing it there.

The bots' fingers (:class:`BusHands`) press the node's fake button pins and put cards on its fake reader. A
finger takes time (a press is held ``hold_s``, presses on one seat follow each other). While the table says
"paused" every hand holds still: the fingers' timers and the bots' stop and run on with the time they had left
when play resumes (:class:`~controller.director.bots.HeldTimers`), and the bots keep the plan they made for the
window the director opens again. A press can still be lost, as at a real table: made on a node that just lost
its power, or reaching the director a moment after it paused. So the bots do what a person does, they look: a
player who pressed OK and whose screen did not take it presses again (:class:`LookingBots`). That is what keeps
a game with faults and power cuts the same game as one without.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import itertools
import random
import statistics
import subprocess
from collections import defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.bus.sim import SimTable as BusSimTable
from controller.bus.sim import find_micropython, start_sim_table
from controller.bus.table import BusRemote, BusSeat
from controller.director.bots import HeldTimers, TableBots
from controller.director.clock import TimerHandle
from controller.director.director import Director
from controller.director.timing import Timings
from controller.ports import Button, ButtonEvent, InputEvent, LinkEvent, Sink
from controller.rules import engine
from controller.rules.setup import GameConfig
from controller.sessions.session import sim_hands
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack

REMOTE_ADDRESS = 100


class BusScheduler:
    """The director's :class:`~controller.director.clock.Scheduler` on the simulated bus's clock."""

    def __init__(self, sim: BusSimTable, fast_forward: bool = True) -> None:
        self.sim = sim
        self.fast_forward = fast_forward
        self._heap: list[tuple[float, int, TimerHandle]] = []
        self._seq = itertools.count()
        self.stopped = False
        self.cycles = 0
        self.skips = 0
        self._cycle_start: float | None = None

    def now(self) -> float:
        return self.sim.bus.now()

    def call_at(self, when: float, callback: Callable[[], Any]) -> TimerHandle:
        handle = TimerHandle(max(when, self.now()), callback)
        heapq.heappush(self._heap, (handle.when, next(self._seq), handle))
        return handle

    def call_soon(self, callback: Callable[[], Any]) -> TimerHandle:
        return self.call_at(self.now(), callback)

    def call_later(self, delay: float, callback: Callable[[], Any]) -> TimerHandle:
        return self.call_at(self.now() + delay, callback)

    def stop(self) -> None:
        self.stopped = True

    def _next_when(self) -> float | None:
        while self._heap and self._heap[0][2].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def run(self, until: Callable[[], bool] | None = None, max_time: float | None = None) -> int:
        """Run due timers, else a poll cycle (or a skip over a quiet stretch), until ``until()``, ``max_time``
        (simulated seconds), :meth:`stop`, or a quiet table with no timer left. Returns callbacks run."""
        steps = 0
        self.stopped = False
        while not self.stopped:
            if until is not None and until():
                break
            now = self.now()
            if max_time is not None and now >= max_time:
                break
            nxt = self._next_when()
            if nxt is not None and nxt <= now:
                handle = heapq.heappop(self._heap)[2]
                handle.callback()
                steps += 1
                continue
            quiet = self.sim.quiet()
            if nxt is None and quiet:
                break  # nothing is waiting and nothing can happen: the game is stuck, say so to the caller
            if self.fast_forward and quiet:
                targets = [t for t in (nxt, self.sim.bus.next_cut, max_time) if t is not None]
                if min(targets) > now + self.sim.master.min_cycle:
                    self.sim.bus.skip_to(min(targets))
                    self.skips += 1
                    continue
            self._half_cycle(nxt)
        return steps

    def _half_cycle(self, next_timer: float | None) -> None:
        """The master's cycle in its two halves, with the director's turn between them: on the table the
        master's thread hands a press to the loop as soon as the poll round has it, while the command slot
        goes on, so the director must not wait here for the slot to end either."""
        master = self.sim.master
        if self._cycle_start is None:
            self._cycle_start = self.now()
            end = self._cycle_start + master.min_cycle
            master.poll_round(hold_until=end if next_timer is None else min(end, next_timer))
            return
        master.command_round()
        end = self._cycle_start + master.min_cycle
        master.idle_until(end if next_timer is None else min(end, next_timer))
        self._cycle_start = None
        self.cycles += 1


class BusHands:
    """The bots' fingers on the simulated nodes (the :class:`~controller.director.bots.Hands` protocol)."""

    #: Up to how long after a bot decides its finger lands on the button.
    reach_s = 0.05

    def __init__(self, sim: BusSimTable, clock: BusScheduler, hold_s: float = 0.06, gap_s: float = 0.06,
                 seed: int = 0) -> None:
        self.sim = sim
        self.clock = clock
        self.hold_s = hold_s
        self.gap_s = gap_s
        self.director: Director | None = None
        self.timers = HeldTimers(clock)
        self._reach = random.Random(f"reach:{seed}")
        self._free_at: dict[int, float] = defaultdict(float)
        self.pressed_at: dict[tuple[int, Button, bool], deque[float]] = defaultdict(deque)
        #: Every finger movement made on a powered node, in order: (time, seat, button, pressed).
        self.touches: list[tuple[float, int, Button, bool]] = []
        self.skipped = 0

    @property
    def seats(self) -> Mapping[int, BusSeat]:
        """The seats these hands can reach (the people of ``tianhei diag`` look for one to answer)."""
        return self.sim.table.seats

    def follow(self, director: Director) -> None:
        """Hold still while ``director`` is paused."""
        self.director = director
        self.timers.follow(director)

    def _can_touch(self, address: int) -> bool:
        d = self.director
        return not (d is not None and d.paused) and not self.sim.unpowered(address)

    def click(self, seat: int, button: Button) -> None:
        """Press and release ``button``, after any press this seat is still making. The finger lands a moment
        after the bot decided (``reach_s``, drawn): a person's press comes at any point of the bus's cycle, not
        in step with the table's turns, and the press figures of ``bus-sim`` must see every point alike."""
        start = max(self.clock.now() + self._reach.uniform(0.0, self.reach_s), self._free_at[seat])
        self._free_at[seat] = start + self.hold_s + self.gap_s

        def up(at: float) -> None:
            if not self.sim.unpowered(seat):  # a finger leaving a dead button changes nothing
                self._finger(seat, button, False, at)

        bus = self.sim.bus
        if bus.lands_exactly(seat):  # on the line's clock, in the middle of the master's cycle if it falls there
            bus.at(start, lambda at: self._land(seat, button, at, lambda up_at: bus.at(up_at, up)))
        else:
            self.timers.call_at(start, lambda: self._land(
                seat, button, self.clock.now(), lambda up_at: self.timers.call_at(up_at, lambda: up(up_at))))

    def _land(self, seat: int, button: Button, at: float, lift: Callable[[float], None]) -> None:
        if not self._can_touch(seat):  # a dark seat: the press goes nowhere (the bot will look and retry)
            self.skipped += 1
            return
        self._finger(seat, button, True, at)
        lift(at + self.hold_s)

    def _finger(self, seat: int, button: Button, pressed: bool, at: float) -> None:
        self.pressed_at[(seat, button, pressed)].append(at)
        self.touches.append((at, seat, button, pressed))
        self.sim.press(seat, button, pressed, at)

    def tap(self, seat: int, uid: str, lie_s: float = 1.0) -> None:
        """Lay the card with this UID (hex) on the seat's reader for ``lie_s`` seconds; a dark seat's player
        waits until it is back."""
        if not self._can_touch(seat):
            self.timers.call_later(0.5, lambda: self.tap(seat, uid, lie_s))
            return
        self.sim.tap(seat, bytes.fromhex(uid))

        def lift() -> None:
            if not self.sim.unpowered(seat):
                self.sim.tap(seat, None)

        self.timers.call_later(lie_s, lift)

    def latency(self, event: ButtonEvent, now: float) -> float | None:
        """Seconds from the finger on the node to ``now``; presses lost with a node's power are skipped."""
        times = self.pressed_at[(event.seat, event.button, event.pressed)]
        while times:
            took = now - times.popleft()
            if took < 1.0:
                return took
        return None


class LookingBots(TableBots):
    """The bots, acting the way a person does at a real seat: press ▶, look at the screen, press again until it
    shows the target, then OK; and after OK, look whether the table took it, and press again if not. The
    in-memory table's bots count the presses up front, which holds only when every press lands at once; over a
    bus, presses take time and one can be lost with a node's power or in the moment the game pauses."""

    look_s = 0.3  # between a ▶ and the next look at the screen
    check_s = 1.0  # after OK, before looking whether it was taken
    tries = 5  # OKs a person makes before giving up (the deadline decides then, C5)

    def _window_key(self) -> str | None:
        w = self.d.window
        return w.key if w is not None else None

    def _point(self, seat: int, target: int | None, choices: tuple[int | None, ...], delay: float) -> None:
        opts = list(choices)
        key = self._window_key()
        missing = object()

        def look(steps: int, oks: int) -> None:
            s = self.d.state
            if target not in opts or s is None or self._window_key() != key or steps > 2 * len(opts):
                return
            if s.picks.get(seat, missing) == target or oks >= self.tries:
                return  # taken (or given up)
            if self.d.ui[seat].cursor == target:
                self.table.click(seat, Button.OK)
                self._later(self.check_s, lambda: look(steps, oks + 1))
                return
            self.table.click(seat, Button.NEXT)
            self._later(self.look_s, lambda: look(steps + 1, oks))

        self._later(delay, lambda: look(0, 0))

    def _ok(self, seat: int, delay: float) -> None:
        key = self._window_key()

        def wanted() -> bool:
            s = self.d.state
            p = engine.pending(s) if s is not None else None
            return p is not None and self._window_key() == key and seat in p.seats

        def press(oks: int) -> None:
            if oks < self.tries and wanted():
                self.table.click(seat, Button.OK)
                self._later(self.check_s, lambda: press(oks + 1))

        self._later(delay, lambda: press(0))


class _LoopTable:
    """The :class:`BusTable` as the director sees it: inputs arrive through the scheduler, never inside a poll
    cycle (the real table hands them over with ``call_soon_threadsafe``)."""

    def __init__(self, session: BusSession) -> None:
        self._session = session
        self._table = session.sim.table

    @property
    def seats(self) -> Mapping[int, BusSeat]:
        return self._table.seats

    @property
    def remote(self) -> BusRemote | None:
        return self._table.remote

    def start(self, sink: Sink) -> None:
        clock = self._session.clock

        def hand_over(event: InputEvent) -> None:
            self._session.arrived(event)
            clock.call_soon(lambda: self._session.deliver(event, sink))

        self._table.start(hand_over)

    def stop(self) -> None:
        self._table.stop()


def remote_key(seed: int) -> bytes:
    """The simulated remote's pairing key (any 16 bytes; derived from the seed so a run is reproducible)."""
    return hashlib.sha256(f"remote:{seed}".encode()).digest()[:16]


def interpreter_version(path: str) -> str:
    """What runs the firmware, as it describes itself, e.g. ``micropython 1.29.0 (3.4.0; MicroPython ...)``."""
    code = "import sys; print(sys.implementation.name, '.'.join(str(x) for x in sys.implementation.version[:3]), '(' + sys.version + ')')"
    out = subprocess.run([path, "-c", code], capture_output=True, text=True, timeout=30)
    return out.stdout.strip() or f"{path} (no version: {out.stderr.strip()})"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


@dataclass
class BusSession:
    """Director, voice, bots and the simulated bus on one clock; ``start()`` then ``run()``."""

    config: GameConfig
    seed: int
    policy: str
    fault_rate: float = 0.0
    power_cycle_every: float | None = None  # None: every 40 s on average when there are faults, else never
    baud: int = 2_000_000  # bus-16's line
    #: The host's USB adapter's latency timer in seconds (0: none; an FTDI chip with systemd/99-tianhei.rules: 0.001).
    adapter_tick: float = 0.0
    #: The host's own receive delay in seconds (the Pi's PL011 and Linux's tty layer: SimBus.host_delay).
    host_delay: float = 0.0
    #: How long nodes take to answer a frame addressed to them, in seconds, as measured on a node's own chip (each
    #: answer draws one; empty: the simulated firmware's fixed turnaround). benchmarks/bus_timing.py --node-replies.
    node_replies: tuple[float, ...] = ()
    #: How long nodes take to be ready to answer in a LISTEN window (SimBus.listen_ready), in seconds.
    listen_ready: float = 0.0
    #: ...and in a POLL_ALL's slots (SimBus.poll_all_ready).
    poll_all_ready: float = 0.0
    #: Quiet commands while every node says it takes them (BusMaster.quiet; off on the table).
    quiet: bool = False
    #: The POLL_ALL's lead in µs while every node in it takes one (BusMaster.poll_lead_us; None: the master's).
    poll_lead_us: int | None = None
    cards: bool = True
    lang: str = "zh"
    pack: str = "zh-CN"
    timings: Timings = field(default_factory=Timings)
    fast_forward: bool = True
    interpreter: str | None = None
    #: Seats on emulated Picos running this rp2 image (controller/nodes/pico_table.py); the others and the
    #: remote run the firmware under ``micropython``.
    picos: tuple[int, ...] = ()
    pico_firmware: bytes = b""

    def __post_init__(self) -> None:
        cut_every = self.power_cycle_every
        if cut_every is None:
            cut_every = 40.0 if self.fault_rate > 0 else 0.0
        self.interpreter = self.interpreter or find_micropython()
        start: Callable[..., BusSimTable] = start_sim_table
        if self.picos:
            from controller.nodes.pico_table import start_pico_table

            start = functools.partial(start_pico_table, picos=self.picos, firmware=self.pico_firmware)
        self.sim = start(self.config.players, baud=self.baud, fault_rate=self.fault_rate,
                         power_cycle_every=cut_every, seed=self.seed, remote_key=remote_key(self.seed),
                         remote_address=REMOTE_ADDRESS, interpreter=self.interpreter)
        self.sim.bus.adapter_tick = self.adapter_tick
        self.sim.bus.host_delay = self.host_delay
        self.sim.bus.listen_ready = self.listen_ready
        self.sim.bus.poll_all_ready = self.poll_all_ready
        self.sim.master.quiet = self.quiet
        if self.poll_lead_us is not None:
            self.sim.master.poll_lead_us = self.poll_lead_us
        if self.node_replies:
            draw = random.Random(f"node-replies:{self.seed}")
            replies = self.node_replies
            self.sim.bus.turnaround_draw = lambda: draw.choice(replies)
        self.clock = BusScheduler(self.sim, fast_forward=self.fast_forward)
        self.voice = NullVoice(self.clock.now, load_voice_pack(self.pack))
        self.hands = BusHands(self.sim, self.clock, seed=self.seed)
        #: The cards each player taps, in order (two in the dual-card versions).
        self.hands_dealt: dict[int, tuple[str, ...]] = {}
        deck, self.hands_dealt = sim_hands(self.config, self.seed) if self.cards else (None, {})
        self.director = Director(_LoopTable(self), self.voice, self.clock, self.config, timings=self.timings,
                                 lang=self.lang, seed=self.seed, deck=deck)
        self.hands.follow(self.director)
        self.bots = LookingBots(self.director, self.hands, self.policy, self.seed) if self.policy else None
        self.inputs: list[InputEvent] = []
        self.latencies: list[float] = []
        #: For each latency, when the host had it and whose it was: (time, seat, pressed).
        self.heard: list[tuple[float, int, bool]] = []

    def arrived(self, event: InputEvent) -> None:
        """In the poll round, the moment the master has the event: on the table its thread hands it to the loop
        right here (``call_soon_threadsafe``), while the simulated scheduler runs the director only between the
        halves of a cycle. So the press's latency is taken here: finger to host, as the table would have it."""
        if isinstance(event, ButtonEvent):
            took = self.hands.latency(event, self.clock.now())
            if took is not None:
                self.latencies.append(took)
                self.heard.append((self.clock.now(), event.seat, event.pressed))

    def deliver(self, event: InputEvent, sink: Sink) -> None:
        """On the loop: note what the director is about to see, then let it see it."""
        self.inputs.append(event)
        sink(event)

    def start(self) -> None:
        """Let the nodes boot and be found, then deal; with cards, each player taps theirs in turn."""
        self.sim.table.start(lambda event: None)
        self.clock.run(until=lambda: all(n.status == "up" for n in self.sim.master.nodes.values()), max_time=2.0)
        down = [n.spec.name for n in self.sim.master.nodes.values() if n.status != "up"]
        if down:
            raise RuntimeError(f"bus-sim: {', '.join(down)} did not answer at start ({self.sim.master.alerts})")
        self.director.start()
        rng = random.Random(f"taps:{self.seed}")
        start = self.clock.now() + 1.0
        # D2 without a place table: each card place is a node, and a player taps both cards at its card 1 place.
        places = self.config.variant.live == "both"
        for i, (player, uids) in enumerate(sorted(self.hands_dealt.items())):
            seat = 2 * player - 1 if places else player
            for j, uid in enumerate(uids):  # the second card a moment after the first (dual-card versions)
                self.clock.call_at(start + 0.5 * i + 0.3 * j + rng.uniform(0.0, 0.2), self._tapper(seat, uid))

    def _tapper(self, seat: int, uid: str) -> Callable[[], None]:
        return lambda: self.hands.tap(seat, uid)

    def run(self, max_time: float | None = 7200.0) -> None:
        self.run_until(lambda: self.director.stage == "over", max_time=max_time)

    def run_until(self, until: Callable[[], bool], max_time: float | None = 7200.0) -> None:
        """Play on until ``until()`` holds (or the game is over, or ``max_time`` simulated seconds)."""
        self.clock.run(until=lambda: until() or self.director.stage == "over", max_time=max_time)

    def close(self) -> None:
        self.sim.close()

    def __enter__(self) -> BusSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def result(self) -> dict[str, Any]:
        """The game's outcome and the bus's figures (what ``tianhei bus-sim --json`` prints)."""
        s = self.director.state
        stats = self.sim.master.stats
        counters = self.sim.bus.counters
        lat_ms = [x * 1000.0 for x in self.latencies]
        over = s is not None and s.over
        return {
            "winner": (s.winner or "none") if over and s is not None else None,
            "reason": s.end_reason if s is not None else None,
            "days": s.day if s is not None else 0,
            "nights": s.night if s is not None else 0,
            "events": len(self.director.events),
            "seconds": round(self.clock.now(), 3),
            "variant": self.config.variant.id,
            "players": self.config.players,
            "seed": self.seed,
            "fault_rate": self.fault_rate,
            "baud": self.baud,
            "frames": counters.frames,
            "retransmits": stats.retransmits,
            "corrupt_detected": stats.corrupt_detected,
            "timeouts": stats.timeouts,
            "duplicates_dropped": stats.duplicates_dropped,
            "injected": {"corrupted": counters.corrupted, "dropped": counters.dropped,
                         "delayed": counters.delayed, "power_cycles": counters.power_cycles},
            "pauses": sum(1 for e in self.inputs if isinstance(e, LinkEvent) and not e.up),
            "presses": len(lat_ms),
            "latency_ms_p50": round(percentile(lat_ms, 50), 2),
            "latency_ms_p99": round(percentile(lat_ms, 99), 2),
            "latency_ms_max": round(max(lat_ms), 2) if lat_ms else 0.0,
            "node_steps": counters.node_steps,
            "interpreter": interpreter_version(self.interpreter or find_micropython()),
            "roles": {str(i + 1): r for i, r in enumerate(s.roles)} if over and s is not None else {},
        }
