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

import logging
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
    """A pyserial port (``/dev/ttyAMA0``, ``/dev/ttyUSB0``, or ``loop://`` in tests)."""

    def __init__(self, port: object, clock: Callable[[], float] | None = None) -> None:
        import time

        self.port = port
        self._clock = clock or time.monotonic

    @classmethod
    def open(cls, url: str, baud: int) -> SerialTransport:
        import serial

        return cls(serial.serial_for_url(url, baudrate=baud, timeout=0))

    def write(self, data: bytes) -> None:
        self.port.write(data)  # type: ignore[attr-defined]
        self.port.flush()  # type: ignore[attr-defined]

    def read(self, timeout: float) -> bytes:
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
        min_cycle: float = 0.0,
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
        self.decoder = sb.Decoder()
        self.stats = BusStats()
        self.sink: Callable[[InputEvent], None] = lambda event: None
        self.alerts: list[str] = []
        self._seq = 0
        self._lock = threading.Lock()

    # --- commands from the ports (any thread) --------------------------------------------------------------
    def send(self, address: int, mtype: int, payload: bytes) -> None:
        """Queue a command; LED commands replace a queued one, since only the newest colour matters."""
        with self._lock:
            node = self.nodes[address]
            if mtype == sb.SET_LED:
                node.led = (payload[0], payload[1], payload[2])
                node.outbox = deque(item for item in node.outbox if item[0] != sb.SET_LED)
            node.outbox.append((mtype, payload))

    # --- the poll cycle ---------------------------------------------------------------------------------------
    def cycle(self) -> None:
        """One pass over every node: identify the new or returning ones, flush their commands, poll them."""
        start = self.transport.now()
        for address in sorted(self.nodes):
            self._serve(self.nodes[address])
        rest = start + self.min_cycle - self.transport.now()
        while rest > 0:  # nothing is due to us now, so whatever arrives is stray: read it to keep time honest
            self.transport.read(rest)
            rest = start + self.min_cycle - self.transport.now()

    def _serve(self, node: NodeState) -> None:
        if node.status == "refused" and self.transport.now() - node.refused_at < self.refused_retry:
            return
        if node.status != "up" and not self._identify(node):
            return
        while True:
            with self._lock:
                if not node.outbox:
                    break
                mtype, payload = node.outbox[0]
            reply = self._exchange(node, mtype, payload)
            if reply is None:
                return
            if reply.mtype == sb.IDENTITY:  # rebooted since we last spoke: start its session again
                if not self._identify(node):
                    return
                continue
            with self._lock:
                if node.outbox and node.outbox[0] == (mtype, payload):
                    node.outbox.popleft()
            if reply.mtype == sb.NAK:
                self._alert(f"{node.spec.name} refused command 0x{mtype:02x} (code {reply.payload[0]})")
        reply = self._exchange(node, sb.POLL, sb.encode_poll(node.last_event))
        if reply is None:
            return
        if reply.mtype == sb.IDENTITY:
            self._identify(node)
        elif reply.mtype in (sb.EVENTS, sb.AUTH):
            self._events(node, reply)

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
            node.refused_at = self.transport.now()
            if was != "refused":
                log.error("%s", err)
                self._alert(str(err))
                self._link(node, False, str(err))
            return False
        was = node.status
        rebooted = node.identity is not None and node.identity.get("boot") != ident["boot"]
        node.identity = ident
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
