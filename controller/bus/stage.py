"""Screens that many seats show alike, sent once: the master's side of STAGE and DISPLAY_STAGED.

At the deal every seat's screen changes from blank at the same moment, and the pictures differ only in the seat
number: sent seat by seat, run-length coded, that was about 230-430 bytes a seat and 350 ms for 16 seats, while
the players look at their screens. So the screens a refresh draws are not sent at once: each node that says it
keeps a stage (``CAP_STAGE``, firmware 0.5) hands its new picture to the :class:`Stager`, and at the next command
slot the master asks it for a :class:`Plan`. The bytes that every listed seat's new picture has in common go out
once, broadcast, as the stage (STAGE frames naming those seats); each seat then gets one DISPLAY_STAGED with its
own differences from the stage. When that would cost more wire time than plain DISPLAY_RLE frames (one seat
changing, or pictures with little in common), or a seat's differences do not fit one frame, the seat gets its
plain frames, as before. A seat that missed a part of the stage answers NAK_NO_STAGE and is sent its plain frames
then (``Plan.fallback``).

Secrecy: the stage holds only bytes that are on the next screen of *every* seat it names (elsewhere it is
blank), and a node not named ignores it, so no node ever holds a byte of a picture it is not about to show. The
stage is not shown before its seat's own DISPLAY_STAGED, which goes out in the same command slots as the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import seatbus as sb
from .display import rle_payloads

BLANK = bytes(sb.SCREEN_BYTES)
#: Every byte that is not 0 becomes 0x00 and 0 becomes 0xFF: a mask that keeps the bytes where no picture differs.
_KEEP_WHERE_ZERO = bytes([0xFF] + [0x00] * 255)
#: The time a node's turnaround and the master's next frame cost, as bytes of wire time (two 0.2 ms turnarounds
#: at 1 Mbaud): what one more exchange costs beside its bytes.
EXCHANGE_BYTES = 40
#: Fewer seats than this changing at once are sent their plain frames (a stage costs a frame of its own).
MIN_SEATS = 3
#: Two pictures are alike when they differ in at most this many bytes (the deal's: the seat number, 22 bytes).
ALIKE_BYTES = 192

Writes = list[tuple[int, bytes]]


def common_picture(pictures: list[bytes]) -> bytes:
    """The bytes where every picture agrees, and 0 where any two differ (in C: one integer xor a picture)."""
    first = int.from_bytes(pictures[0], "big")
    differ = 0
    for picture in pictures[1:]:
        differ |= first ^ int.from_bytes(picture, "big")
    keep = differ.to_bytes(sb.SCREEN_BYTES, "big").translate(_KEEP_WHERE_ZERO)
    return (first & int.from_bytes(keep, "big")).to_bytes(sb.SCREEN_BYTES, "big")


def alike_group(pictures: dict[int, bytes]) -> list[int]:
    """The largest set of addresses whose pictures are all alike one of them (the seats' deal screens, not the
    judge's remote beside them): a stage of everything would keep only what they all share, often nothing."""
    ints = {a: int.from_bytes(p, "big") for a, p in pictures.items()}
    best: list[int] = []
    for ia in ints.values():
        near = [b for b, ib in ints.items()
                if (ia ^ ib).to_bytes(sb.SCREEN_BYTES, "big").count(0) >= sb.SCREEN_BYTES - ALIKE_BYTES]
        if len(near) > len(best):
            best = near
        if 2 * len(best) > len(ints):
            break  # a majority: no other group can be larger
    return sorted(best)


def plain_writes(old: bytes, new: bytes) -> Writes:
    return [(sb.DISPLAY_RLE, payload) for payload in rle_payloads(old, new)]


def wire_cost(writes: Writes) -> int:
    """Bytes on the wire of these commands and their ACKs, an exchange's turnaround counted as bytes too."""
    return sum(2 * sb.OVERHEAD + len(payload) + EXCHANGE_BYTES for _, payload in writes)


@dataclass
class Plan:
    """What the master sends for the pictures handed over: ``broadcast`` (encoded STAGE frames) first, then each
    node's ``writes``; ``fallback`` maps a DISPLAY_STAGED payload to the plain frames that replace it when its
    node answers NAK_NO_STAGE."""

    broadcast: list[bytes] = field(default_factory=list)
    writes: dict[int, Writes] = field(default_factory=dict)
    fallback: dict[int, tuple[bytes, Writes]] = field(default_factory=dict)


class Stager:
    """The pictures waiting for the next command slot, by address: (what the node shows, the new picture)."""

    def __init__(self) -> None:
        self.pending: dict[int, tuple[bytes, bytes]] = {}
        self._stage = 0

    def offer(self, address: int, old: bytes, new: bytes) -> None:
        """A new picture for the node at ``address``; a picture not sent yet is replaced (from what it showed)."""
        before = self.pending.get(address)
        self.pending[address] = (before[0] if before else bytes(old), bytes(new))

    def forget(self, address: int) -> None:
        """The node is repainted whole (restored after a reboot): its waiting picture is in that repaint."""
        self.pending.pop(address, None)

    def take(self) -> dict[int, tuple[bytes, bytes]]:
        """Every waiting picture, now on its way (the caller holds the master's lock)."""
        pending, self.pending = self.pending, {}
        return pending

    def plan(self, pending: dict[int, tuple[bytes, bytes]], stageable: set[int], seq: int) -> Plan:
        """Decide how the ``pending`` pictures (:meth:`take`) go. ``stageable``: the addresses that may take a
        stage now (up, saying ``CAP_STAGE``, no stage of theirs still queued); ``seq``: the STAGE frames' SEQ."""
        out = Plan()
        plain = {a: plain_writes(old, new) for a, (old, new) in pending.items()}
        changed = {a: new for a, (old, new) in pending.items() if a in stageable and old != new}
        group = alike_group(changed) if len(changed) >= MIN_SEATS else []
        if len(group) >= MIN_SEATS:
            self._stage_group(group, pending, plain, seq, out)
        for address, writes in plain.items():
            if address not in out.writes:
                out.writes[address] = writes
        return out

    def _stage_group(self, group: list[int], pending: dict[int, tuple[bytes, bytes]], plain: dict[int, Writes],
                     seq: int, out: Plan) -> None:
        base = common_picture([pending[a][1] for a in group])
        own: dict[int, list[bytes]] = {}
        for address in group:
            own[address] = rle_payloads(base, pending[address][1], sb.STAGED_STREAM_MAX)
        members = [a for a in group if len(own[a]) <= 1]  # a seat whose own part needs two frames goes plain
        if len(members) < MIN_SEATS:
            return
        if len(members) < len(group):
            base = common_picture([pending[a][1] for a in members])
            own = {a: rle_payloads(base, pending[a][1], sb.STAGED_STREAM_MAX) for a in members}
            if any(len(own[a]) > 1 for a in members):
                return
        limit = sb.stage_stream_max(len(members))
        parts = [sb.decode_display_rle(p) for p in rle_payloads(BLANK, base, limit)] or [(0, b"")]  # or blank
        if len(parts) > sb.STAGE_PARTS_MAX:
            return
        stage = self._stage % 255 + 1
        # DISPLAY_STAGED: the stage and its picture's CRC, then the seat's own changes (DISPLAY_RLE's offset, ops)
        check = sb.crc32(base)
        staged = {a: sb.encode_display_staged(stage, check, *(sb.decode_display_rle(own[a][0]) if own[a] else (0, b"")))
                  for a in members}
        cost = sum(sb.OVERHEAD + 6 + len(members) + len(stream) for _, stream in parts)
        cost += wire_cost([(sb.DISPLAY_STAGED, p) for p in staged.values()])
        if cost >= sum(wire_cost(plain[a]) for a in members):
            return
        self._stage = stage
        for i, (offset, stream) in enumerate(parts):
            out.broadcast.append(sb.encode_frame(sb.BROADCAST, seq, sb.STAGE, sb.encode_stage(
                stage, i, len(parts), members, offset, stream)))
        for address in members:
            out.writes[address] = [(sb.DISPLAY_STAGED, staged[address])]
            out.fallback[address] = (staged[address], plain[address])
