"""What the nodes say, taken in: a node's EVENTS reply (or the remote's sealed AUTH reply) turned into the
ports' input events, each applied once.

Events are numbered by the node. The master applies an event only if its number comes after the last one applied
(serial number arithmetic, seatbus.seq_after) and acknowledges in the next POLL, so a repeated event (its reply
was lost, or arrived late) is never applied twice and an unacknowledged one is sent again until it gets through.
The remote's replies count only when sealed with its key and a counter never accepted before.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.ports import (
    Button,
    ButtonEvent,
    CardEvent,
    InputEvent,
    RemoteKey,
    RemoteKeyEvent,
)

from . import seatbus as sb
from .nodes import BusStats, NodeState

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


class EventIntake:
    """Turns replies into input events for ``sink``; ``send`` queues the RESET that asks a remote counting from
    before this controller's restart to start a new block, at most every ``refused_retry`` seconds."""

    def __init__(
        self,
        now: Callable[[], float],
        stats: BusStats,
        sink: Callable[[InputEvent], None],
        alert: Callable[[str], None],
        send: Callable[[int, int, bytes], None],
        refused_retry: float,
    ) -> None:
        self.now = now
        self.stats = stats
        self.sink = sink
        self._alert = alert
        self.send = send
        self.refused_retry = refused_retry

    def take(self, node: NodeState, reply: sb.Frame) -> None:
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
        now = self.now()
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
        now = self.now()
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

