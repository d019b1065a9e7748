"""Quiet commands: the commands of a busy moment sent back to back, each confirmed in its node's LISTEN slot.

Sent by name, every command is an exchange: the master waits for the node's ACK before anything else, and a node
on its own chip answers when its loop comes round to the frame (about 0.9 ms on a Pico, up to 4 ms while screens
arrive). While commands were queued the master therefore ran POLL_ALL cycles of a window and a command slot, and
a press made just after its slot waited a whole cycle: 8.4-8.9 ms at the p99 on the Pi's UART (firmware/PROTOCOL.md,
"Slot timing").

With every node that is up on firmware 0.8 (``CAP_QUIET``), the master instead sends at most one command to each
node, marked quiet (``seatbus.QUIET``), in a burst of at most ``burst`` seconds on the wire, and then opens a LISTEN
window as on an idle table. Each node confirms its command (an ACK or NAK with the command's SEQ) in its slot of
the window, news first; the master closes the window at the next master slot once there is more to send. So the
table keeps its slots while screens go out, and a press waits for a round and a burst, not a cycle.

A confirmation that does not come within ``wait`` seconds (a node a round late, a slot garbled) is given up and
the command sent quietly again with the same SEQ, which the node takes for a repeat (it confirms again without
applying it twice); after ``QUIET_TRIES`` quiet sends it goes by name, where a silent node is counted as such.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from . import seatbus as sb
from .nodes import Link, NodeState

#: Quiet sends of one command before it goes by name.
QUIET_TRIES = 2
#: How soon after a LISTEN's end a Pico can confirm at the earliest: it reads the burst, applies its command, takes
#: the LISTEN and makes its answer, 1.4-2.7 ms on the emulated chip (4 ms before it took the LISTEN in place:
#: firmware/PROTOCOL.md, "The nodes' own time"). A window with confirmations to come stays open at least this long
#: before more commands go.
CONFIRM_S = 0.004
#: The least time a confirmation is waited for before its command goes again.
WAIT_S = 0.012


class QuietCommands:
    """The master's quiet commands: :meth:`burst` sends them ahead of a LISTEN window, :meth:`confirmed` takes a
    node's confirmation (``took`` is the master's bookkeeping of a command taken, as after an exchange)."""

    def __init__(self, link: Link, lock: threading.Lock, took: Callable[[NodeState, int, bytes, sb.Frame], None],
                 by_name: Callable[[NodeState], bool]) -> None:
        self.link = link
        self.lock = lock
        self.took = took
        self.by_name = by_name
        #: The most wire time a burst takes (at least one frame goes): a press made meanwhile waits for it.
        self.burst = 0.0012
        #: How long a confirmation may take: a few LISTEN rounds (set by the master with its round).
        self.wait = 0.01

    def sendable(self, node: NodeState, now: float) -> bool:
        """Has the node a command that may go now: queued, and not one whose confirmation may still come?"""
        return bool(node.outbox) and (not node.in_flight or now >= node.quiet_due)

    def due(self, nodes: list[NodeState]) -> float | None:
        """When the first confirmation still awaited is given up (None: none is awaited)."""
        return min((n.quiet_due for n in nodes if n.in_flight), default=None)

    def burst_out(self, nodes: list[NodeState]) -> None:
        """Send each node that is up its next command quietly (LED colours first: they answer a press), within
        ``burst`` seconds of wire time; one whose quiet tries are spent, or a command that cannot go quietly (a
        reset), goes by name."""
        link = self.link
        now = link.transport.now()
        live = [n for n in nodes if n.status == "up" and self.sendable(n, now)]
        live.sort(key=lambda n: not n.outbox or n.outbox[0][0] != sb.SET_LED)
        spent = 0.0
        for node in live:
            with self.lock:
                if not node.outbox:
                    continue
                if node.quiet_item is not None and node.quiet_item in node.outbox:
                    item = node.quiet_item  # sent before, unconfirmed: again, with its SEQ
                else:
                    node.forget_quiet()
                    item = node.outbox[0]
            mtype, payload = item
            if mtype not in sb.QUIET_TYPES or node.quiet_tries >= QUIET_TRIES:
                if node.quiet_tries >= QUIET_TRIES:
                    link.stats.quiet_by_name += 1
                self.by_name(node)
                continue
            if node.quiet_item is None:
                node.quiet_item = item
                node.quiet_seq = link.next_seq()
                if node.quiet_seq == node.cmd_seq:  # the node would take it for a repeat of its last command
                    node.quiet_seq = link.next_seq()
            frame = sb.encode_frame(node.spec.address, node.quiet_seq, mtype | sb.QUIET, payload)
            cost = len(frame) * 10 / link.baud
            if spent and spent + cost > self.burst:
                break
            on_line = link.put(frame)
            spent += cost
            link.stats.frames_sent += 1
            link.stats.quiet_sent += 1
            node.in_flight = True
            node.quiet_tries += 1
            node.quiet_due = on_line + self.wait

    def confirmed(self, node: NodeState, reply: sb.Frame) -> bool:
        """Is ``reply`` (an ACK or NAK from ``node``) the confirmation of its quiet command? Then it was taken."""
        if node.quiet_item is None or reply.seq != node.quiet_seq or reply.mtype not in (sb.ACK, sb.NAK):
            return False
        mtype, payload = node.quiet_item
        node.forget_quiet()
        self.link.stats.quiet_confirmed += 1
        self.took(node, mtype, payload, reply)
        return True
