"""Who is on the bus: the node each address should hold (:class:`NodeSpec`), what the master knows of it
(:class:`NodeState`), the bus's counters, and whether the firmware that answers qualifies (:func:`check_identity`).

Shared by the master and the parts it is made of (the POLL_ALL cycle, the LISTEN windows, the events taken in):
they all import it and none of them imports the master, so the bus has no import circle. :class:`Link` is what
those parts may ask of the master.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from controller.ports import RGB

from . import seatbus as sb
from .auth_counter import CounterStore
from .transport import Transport

SEAT_CAPS = sb.CAP_BUTTONS | sb.CAP_LED | sb.CAP_DISPLAY | sb.CAP_NFC
REMOTE_CAPS = sb.CAP_KEYS5 | sb.CAP_DISPLAY | sb.CAP_AUTH


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
    restore: Callable[[bool], list[tuple[int, bytes]]] | None = None
    #: Events were applied since the last POLL_ALL: its ack goes in the next one.
    ack_due: bool = False
    #: A queued DISPLAY_STAGED's payload -> the plain frames that replace it if the node missed its stage.
    fallback: dict[bytes, list[tuple[int, bytes]]] = field(default_factory=dict)
    #: The SEQ of the last command the node took: the next command must not reuse it, or the node would take it
    #: for a retransmit of that one and answer without applying it.
    cmd_seq: int | None = None
    #: A command sent quietly (quiet.py) and not confirmed yet, with its SEQ (kept for its resends): while it is
    #: ``in_flight`` (until ``quiet_due``) its confirmation may still come in a LISTEN slot and nothing else is
    #: sent to the node; ``quiet_tries`` quiet sends of it so far.
    quiet_item: tuple[int, bytes] | None = None
    quiet_seq: int = 0
    in_flight: bool = False
    quiet_due: float = 0.0
    quiet_tries: int = 0

    def forget_quiet(self) -> None:
        """Nothing is waiting for a quiet confirmation (it came, or the outbox was rebuilt by a repaint)."""
        self.quiet_item = None
        self.in_flight = False
        self.quiet_tries = 0


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
    window_acks: int = 0  # WINDOW_ACKS sent: news acked inside a LISTEN window
    #: Events that came in a LISTEN window (the rest came in POLL_ALL cycles or by name).
    events_in_windows: int = 0
    collisions: int = 0
    #: STAGE frames broadcast, and DISPLAY_STAGED refused for a stage the node did not hold whole.
    stages: int = 0
    stage_misses: int = 0
    #: Quiet commands sent (resends too), confirmed in a slot, and sent by name after two quiet tries went unheard.
    quiet_sent: int = 0
    quiet_confirmed: int = 0
    quiet_by_name: int = 0
    latencies: list[float] = field(default_factory=list)


class Refused(Exception):
    """A node whose firmware does not match this controller."""


def check_identity(spec: NodeSpec, ident: dict[str, object]) -> None:
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


class Link(Protocol):
    """What the master's parts (the POLL_ALL cycle, the LISTEN windows) may use of the master: the line, its
    counters, and the exchanges and link-state changes that stay the master's own."""

    transport: Transport
    decoder: sb.Decoder
    stats: BusStats
    baud: int
    slot_us: int
    lead_us: int
    gap_us: int
    #: The LISTEN windows' lead (seatbus.LISTEN_LEAD_US while every node that is up takes one, else 0).
    listen_lead_us: int
    #: Every node in the LISTEN windows opened now keeps its window through WINDOW_ACKS (firmware 0.9.9).
    window_acks: bool
    reply_timeout: float
    slot_margin: float

    def next_seq(self) -> int: ...

    def put(self, frame: bytes) -> float:
        """Write a frame that gets no answer now; when its last byte will have left the line (host clock)."""

    def confirmed(self, node: NodeState, reply: sb.Frame) -> bool:
        """Is this ACK or NAK the confirmation of the node's quiet command? (Then it was taken.)"""

    def quiet_due(self) -> float | None:
        """When the first quiet command still waiting for its confirmation is given up (sent again)."""

    def queued(self) -> bool:
        """Is any command waiting to be sent?"""

    def poll(self, node: NodeState) -> None:
        """Ask one node for its events by name (identifying it first if it is not up)."""

    def heard(self, node: NodeState) -> None: ...

    def silent(self, node: NodeState) -> None: ...

    def restarted(self, node: NodeState) -> None: ...

    def late(self, frame: sb.Frame) -> None:
        """An answer to an earlier frame than the one waited on: a seat's numbered events are taken from it."""

    def take_events(self, node: NodeState, reply: sb.Frame) -> None:
        """Apply the events of a node's EVENTS (or sealed AUTH) reply."""
