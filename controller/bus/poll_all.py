"""The POLL_ALL cycle: the seats that take it asked for their events in one broadcast frame, each answering in its
own slot, and one of them in turn called by roll to hear that it is still there (firmware/PROTOCOL.md).

A part of the master with its own state (the roll call's turn, the last quiet frame, the window's length for the
group); the exchanges by name and the link-state changes it needs stay the master's, reached through ``link``.
"""

from __future__ import annotations

from . import seatbus as sb
from .nodes import Link, NodeState


def garbled_since(decoder: sb.Decoder, crc_before: int, dropped_before: int) -> int:
    """Garbled frames heard in a window of slots since the counters were read: each CRC error, or one when only
    bytes were thrown away. Two answers that collide usually spoil their headers too, and then the decoder finds
    no frame to fail a CRC on, only bytes it drops; in a window where nodes answer in slots, any such byte is a
    collision or noise (the master's own echo decodes as its frame), so it must bring the polls by name."""
    crc = decoder.crc_errors - crc_before
    return crc if crc else int(decoder.dropped_bytes > dropped_before)


class PollAll:
    """One POLL_ALL and its slots at a time (:meth:`run`), for the group :meth:`regroup` was last given."""

    def __init__(self, link: Link, roll_every: int = 4) -> None:
        self.link = link
        #: Every how many cycles one seat (in turn) is called by name in the POLL_ALL, to hear that it is there.
        self.roll_every = roll_every
        self._roll = -1
        self._cycles = 0
        self._quiet_frame: tuple[int, bytes] | None = None
        self._by_address: dict[int, NodeState] = {}
        self._window = 0.0

    def regroup(self, group: list[NodeState]) -> None:
        """Who is polled together changed (a node's state or identity): the window's length follows."""
        link = self.link
        self._quiet_frame = None
        self._by_address = {n.spec.address: n for n in group}
        # the POLL_ALL's own wire time (its longest: the lead's field, every address and an ack each), its lead, then
        # every slot
        longest = sb.OVERHEAD + 6 + 4 * len(group)
        self._window = longest * 10 / link.baud + (link.lead_us + len(group) * link.slot_us) / 1e6 + link.slot_margin

    def run(self, group: list[NodeState], hold_until: float | None = None) -> None:
        """One POLL_ALL, then the slots: apply what the nodes with news sent, and note whether the node called by
        name (one every ``roll_every`` cycles, in turn) answered; a node silent at three roll calls in a row is
        down."""
        link = self.link
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
            seq = link.next_seq()
            frame = sb.encode_frame(sb.BROADCAST, seq, sb.POLL_ALL, sb.encode_poll_all(
                link.slot_us, roll.spec.address if roll else 0, addresses, acks, link.lead_us))
            if roll is None and not acks:
                self._quiet_frame = (seq, frame)
            for n in group:
                n.ack_due = False
        link.transport.write(frame)
        link.stats.frames_sent += 1
        link.stats.poll_alls += 1
        deadline = link.transport.now() + self._window
        by_address = self._by_address
        heard: list[NodeState] = []
        before, dropped_before = link.decoder.crc_errors, link.decoder.dropped_bytes
        rebooted: list[NodeState] = []
        poll_me: list[NodeState] = []
        if hold_until is not None:
            deadline = max(deadline, hold_until)
        while hold_until is not None or roll is None or roll not in heard:  # the roll call ends the window
            left = deadline - link.transport.now()
            data = link.transport.read(left) if left > 0 else b""
            frames = link.decoder.feed(data) if data else link.decoder.idle()
            for reply in frames:
                node = by_address.get(reply.addr)
                if not reply.from_node or node is None:
                    continue
                if reply.seq != seq:  # an answer to an earlier POLL_ALL or window, held by a USB adapter
                    link.late(reply)
                    continue
                link.stats.frames_received += 1
                heard.append(node)
                link.heard(node)
                if reply.mtype == sb.EVENTS:
                    link.take_events(node, reply)
                    node.ack_due = True
                elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_NOT_IDENTIFIED,)):
                    rebooted.append(node)
                elif reply.mtype == sb.NAK and reply.payload[:1] == bytes((sb.NAK_POLL_ME,)):
                    poll_me.append(node)
            if left <= 0:
                break
        garbled = garbled_since(link.decoder, before, dropped_before)
        link.stats.corrupt_detected += garbled
        for node in rebooted:
            link.restarted(node)
        for node in poll_me:  # its news (a card) is longer than a slot
            link.poll(node)
        if roll is not None and roll not in heard:
            link.stats.timeouts += 1
            link.silent(roll)
        if garbled:
            # Two answers collided, or noise hit one: whoever had news still has it; ask each node by name now
            # rather than wait for the slots of the next cycle to fall differently.
            link.stats.collisions += 1
            for node in group:
                if node.status == "up":
                    link.poll(node)
