"""The real firmware's stage (STAGE, DISPLAY_STAGED) under the micropython binary: a screen many seats share is
drawn apart, shown only by the seat's own frame, and only ever kept by a seat it names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.bus import seatbus as sb
from controller.bus.display import rle_payloads
from controller.bus.sim import SimNode, find_micropython, node_config

BLANK = bytes(1024)


@pytest.fixture
def seat3(tmp_path: Path):
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(node_config(3)))
    node = SimNode(find_micropython(), cfg, tmp_path)
    yield node
    node.kill()


def replies(node: SimNode, now: int, wire: bytes) -> list[sb.Frame]:
    return sb.Decoder().feed(node.step(now, wire))


def command(node: SimNode, now: int, seq: int, mtype: int, payload: bytes = b"") -> sb.Frame:
    got = replies(node, now, sb.encode_frame(3, seq, mtype, payload))
    assert len(got) == 1, got
    return got[0]


def deal_layout() -> bytes:
    """What every seat's deal screen shares: a lit frame and a line of text, in two stage parts' worth."""
    picture = bytearray(1024)
    picture[0:128] = b"\xff" * 128
    picture[896:1024] = b"\xff" * 128
    picture[300:420] = bytes((i * 37) & 0xFF for i in range(120))  # text: no runs to code short
    picture[520:640] = bytes((i * 91 + 5) & 0xFF for i in range(120))
    return bytes(picture)


def stage_frames(stage: int, picture: bytes, addresses: list[int], seq: int = 40) -> list[bytes]:
    parts = [sb.decode_display_rle(p) for p in rle_payloads(BLANK, picture, sb.stage_stream_max(len(addresses)))]
    return [sb.encode_frame(sb.BROADCAST, seq, sb.STAGE, sb.encode_stage(stage, i, len(parts), addresses, off, ops))
            for i, (off, ops) in enumerate(parts)]


def staged(stage: int, base: bytes, mine: bytes) -> bytes:
    """Seat 3's DISPLAY_STAGED: its own differences from the stage (its seat number)."""
    own = rle_payloads(base, mine, sb.STAGED_STREAM_MAX)
    assert len(own) == 1
    return sb.encode_display_staged(stage, sb.crc32(base), *sb.decode_display_rle(own[0]))


def with_seat_number(base: bytes) -> bytes:
    mine = bytearray(base)
    mine[700:706] = b"\x3e\x41\x41\x3e\x00\x7f"  # "3"
    return bytes(mine)


def test_a_seat_says_it_keeps_a_stage(seat3: SimNode) -> None:
    ident = sb.decode_identity(command(seat3, 1, 1, sb.IDENTIFY).payload)
    assert int(ident["caps"]) & sb.CAP_STAGE  # type: ignore[call-overload]


def test_seat_3_shows_the_deal_layout_and_its_own_number_only_when_its_own_frame_comes(seat3: SimNode) -> None:
    command(seat3, 1, 1, sb.IDENTIFY)
    base = deal_layout()
    frames = stage_frames(7, base, [1, 2, 3, 4])
    assert len(frames) == 2, "the layout takes two STAGE frames"
    for i, frame in enumerate(frames):
        assert replies(seat3, 2 + i, frame) == [], "nobody answers a broadcast"
    assert seat3.screen() == BLANK, "the stage is not shown before its time"
    mine = with_seat_number(base)
    assert command(seat3, 5, 2, sb.DISPLAY_STAGED, staged(7, base, mine)).mtype == sb.ACK
    assert seat3.screen() == mine


def test_a_stage_naming_other_seats_is_not_kept_by_seat_3(seat3: SimNode) -> None:
    command(seat3, 1, 1, sb.IDENTIFY)
    base = deal_layout()
    for i, frame in enumerate(stage_frames(7, base, [1, 2, 4])):
        replies(seat3, 2 + i, frame)
    reply = command(seat3, 5, 2, sb.DISPLAY_STAGED, staged(7, base, with_seat_number(base)))
    assert reply.mtype == sb.NAK and reply.payload[0] == sb.NAK_NO_STAGE
    assert seat3.screen() == BLANK


def test_a_stage_missing_a_part_is_refused_and_plain_frames_still_paint_the_screen(seat3: SimNode) -> None:
    command(seat3, 1, 1, sb.IDENTIFY)
    base = deal_layout()
    replies(seat3, 2, stage_frames(7, base, [1, 2, 3, 4])[1])  # the first part was lost on the line
    mine = with_seat_number(base)
    reply = command(seat3, 5, 2, sb.DISPLAY_STAGED, staged(7, base, mine))
    assert reply.mtype == sb.NAK and reply.payload[0] == sb.NAK_NO_STAGE
    for seq, payload in enumerate(rle_payloads(BLANK, mine), start=3):
        assert command(seat3, 3 + seq, seq, sb.DISPLAY_RLE, payload).mtype == sb.ACK
    assert seat3.screen() == mine


def test_an_old_stage_with_the_same_number_is_never_shown_for_a_new_one(seat3: SimNode) -> None:
    """A master that restarted counts its stages from 1 again; the node still holds a stage 1 it never showed."""
    command(seat3, 1, 1, sb.IDENTIFY)
    old = deal_layout()
    for i, frame in enumerate(stage_frames(1, old, [3])):
        replies(seat3, 2 + i, frame)
    new = bytes(b ^ 0x0F for b in old)
    reply = command(seat3, 5, 2, sb.DISPLAY_STAGED, staged(1, new, with_seat_number(new)))
    assert reply.mtype == sb.NAK and reply.payload[0] == sb.NAK_NO_STAGE
    assert seat3.screen() == BLANK


def test_a_retransmitted_display_staged_is_acked_but_not_shown_twice(seat3: SimNode) -> None:
    command(seat3, 1, 1, sb.IDENTIFY)
    base = deal_layout()
    for i, frame in enumerate(stage_frames(9, base, [3])):
        replies(seat3, 2 + i, frame)
    payload = staged(9, base, with_seat_number(base))
    assert command(seat3, 5, 2, sb.DISPLAY_STAGED, payload).mtype == sb.ACK
    assert command(seat3, 6, 2, sb.DISPLAY_STAGED, payload).mtype == sb.ACK  # the same SEQ: our ACK was lost
    assert seat3.screen() == with_seat_number(base)


def test_a_quiet_display_staged_sent_again_is_confirmed_again_but_shown_once(seat3: SimNode) -> None:
    """PROTOCOL.md, "Quiet commands": a host that missed the confirmation sends the command again with its SEQ.
    A DISPLAY_STAGED applied twice would be refused (its stage is used up), so an ACK both times means once."""
    command(seat3, 1, 1, sb.IDENTIFY)
    base = deal_layout()
    for i, frame in enumerate(stage_frames(9, base, [3])):
        replies(seat3, 2 + i, frame)
    quiet = sb.encode_frame(3, 2, sb.DISPLAY_STAGED | sb.QUIET, staged(9, base, with_seat_number(base)))
    listen = sb.encode_frame(sb.BROADCAST, 3, sb.LISTEN, sb.encode_listen(250, 1000, 5, 0, b"\x03", []))
    for now in (5, 7):
        assert replies(seat3, now, quiet) == [], "a quiet command is not answered"
        seat3.step(now, listen, now * 1000 + 300)
        [(_, frame, _)] = seat3.later
        [answer] = sb.Decoder().feed(frame)
        assert (answer.mtype, answer.seq) == (sb.ACK, 2)
    assert seat3.screen() == with_seat_number(base)
