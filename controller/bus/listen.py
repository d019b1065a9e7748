"""A LISTEN window as the bus master keeps it: when it began, its rounds, and when the master may talk.

The master's side of the protocol's LISTEN (firmware/PROTOCOL.md): one broadcast frame opens a window of
``rounds`` rounds, each the listed nodes' slots and then a master slot. The master sleeps in one read until a node
answers or the window ends, so an idle table wakes the host about ten times a second instead of a hundred; it
talks only in a master slot, and the first frame it sends there ends the window for every node.

The times here are the host's clock. The nodes count from when they read the LISTEN; the host counts from when
its last byte left (``opened``), so a USB adapter's latency shifts the two apart by a fraction of a millisecond:
that is why the host aims ``LISTEN_AIM_US`` into a master slot and the nodes listen for it until
``LISTEN_WATCH_TO_US`` before its end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import seatbus as sb

if TYPE_CHECKING:
    from .master import NodeState


def listen_rounds(nodes: int, slot_us: int, gap_us: int, span_us: int = sb.LISTEN_SPAN_US) -> int:
    """How many rounds of ``nodes`` slots and a master slot make a window of about ``span_us``."""
    round_us = nodes * slot_us + gap_us
    return max(1, min(255, round(span_us / round_us)))


@dataclass
class Span:
    """One open LISTEN window: who is in it (in slot order, the node called by roll last), and what was heard."""

    seq: int
    opened: float  # host clock when the LISTEN's last byte was on the line (the nodes' time 0, about)
    slot: float  # seconds
    gap: float  # the master slot, seconds
    rounds: int
    group: list[NodeState]
    roll: NodeState | None
    #: How long after its slot an answer may still be arriving (the nodes' turnaround, the adapter's latency).
    margin: float = 0.0005
    by_address: dict[int, NodeState] = field(default_factory=dict)
    heard: set[int] = field(default_factory=set)
    rebooted: list[NodeState] = field(default_factory=list)
    poll_me: list[NodeState] = field(default_factory=list)
    garbled: int = 0
    #: Something must be said in the next master slot (an ack, a node to poll by name, a recovery).
    must_speak: bool = False

    def __post_init__(self) -> None:
        self.by_address = {n.spec.address: n for n in self.group}

    @property
    def round(self) -> float:
        return len(self.group) * self.slot + self.gap

    @property
    def end(self) -> float:
        return self.opened + self.rounds * self.round

    def roll_heard(self) -> bool:
        return self.roll is None or self.roll.spec.address in self.heard

    @property
    def roll_due(self) -> float:
        """When the roll call's answer, in the last slot, must have arrived: nobody talks in the last master slot,
        so a late answer (a node that read the LISTEN late, a slow adapter) may still come in it."""
        return self.end + self.margin

    def speak_at(self, now: float) -> float:
        """The earliest moment from ``now`` at which the master may talk: within a master slot, ``LISTEN_AIM_US``
        after its start and while the nodes still listen for it; after the last round at once, or in its last
        slot once the node called by roll, whose slot that is, was heard in it."""
        aim = sb.LISTEN_AIM_US / 1e6
        last = sb.LISTEN_WATCH_TO_US / 1e6 + aim
        rnd = self.round
        first = int((now - self.opened) // rnd) + 1  # master slot k ends round k - 1
        for k in (first - 1, first, first + 1):
            if k < 1:
                continue
            if k >= self.rounds:
                if self.roll_heard() and now >= self.end - self.gap - self.slot:
                    return now  # the last slot is the roll call's, and it was heard
                return max(now, self.roll_due)
            start = self.opened + k * rnd - self.gap
            if now <= start + self.gap - last:
                return max(now, start + aim)
        return max(now, self.roll_due)
