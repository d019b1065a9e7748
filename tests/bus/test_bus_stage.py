"""Alike screens of many seats sent once (stage.py): the deal's opening screens as one stage and each seat's own
number, over the simulated bus with the real firmware, and what the stage may hold."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import Image, ImageDraw

from controller.bus import seatbus as sb
from controller.bus.display import rle_ops, ssd1306_bytes
from controller.bus.sim import SimTable, start_sim_table
from controller.bus.stage import BLANK, Stager, common_picture
from controller.ports import InputEvent


def deal_screen(seat: int, secret: str = "") -> Image.Image:
    """The deal's "tap your card" screen: the same words on every seat, its own number, and maybe a secret."""
    im = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(im)
    draw.rectangle((0, 0, 127, 63), outline=1)
    draw.text((6, 6), "Tap your card", fill=1)
    draw.text((6, 22), "on the reader", fill=1)
    draw.text((90, 44), f"#{seat}", fill=1)
    if secret:
        draw.text((6, 44), secret, fill=1)
    return im


def judge_screen() -> bytes:
    im = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(im)
    for row in range(5):
        draw.text((2, 2 + 12 * row), f"seat {row + 1}: waiting for a card", fill=1)
    return ssd1306_bytes(im)


def picture(seat: int, secret: str = "") -> bytes:
    return ssd1306_bytes(deal_screen(seat, secret))


def stage_of(plan_broadcast: list[bytes]) -> tuple[bytes, list[int]]:
    """The picture the STAGE frames draw, and the addresses they name."""
    fb = bytearray(BLANK)
    named: list[int] = []
    for wire in plan_broadcast:
        (frame,) = sb.Decoder().feed(wire)
        assert frame.addr == sb.BROADCAST and frame.mtype == sb.STAGE
        _, _, _, addresses, offset, stream = sb.decode_stage(frame.payload)
        named = list(addresses)
        sb.decode_rle_into(fb, offset, stream)
    return bytes(fb), named


def test_sixteen_deal_screens_go_as_one_stage_and_each_seats_own_number() -> None:
    stager = Stager()
    for seat in range(1, 17):
        stager.offer(seat, BLANK, picture(seat))
    stager.offer(100, BLANK, judge_screen())  # the judge's remote, unlike the seats
    plan = stager.plan(stager.take(), set(range(1, 17)) | {100}, seq=5)
    stage, named = stage_of(plan.broadcast)
    assert named == list(range(1, 17)), "the judge's remote is not in the seats' stage"
    assert [t for t, _ in plan.writes[100]] == [sb.DISPLAY_RLE] * len(plan.writes[100])
    staged_bytes = sum(len(w) for w in plan.broadcast)
    for seat in range(1, 17):
        (mtype, payload), = plan.writes[seat]
        assert mtype == sb.DISPLAY_STAGED
        stage_number, check, offset, stream = sb.decode_display_staged(payload)
        assert check == sb.crc32(stage) and stage_number == sb.decode_stage(sb.Decoder().feed(plan.broadcast[0])[0].payload)[0]
        shown = bytearray(stage)
        sb.decode_rle_into(shown, offset, stream)
        assert bytes(shown) == picture(seat)
        staged_bytes += len(payload) + sb.OVERHEAD
        assert plan.fallback[seat][0] == payload, "a seat that misses the stage gets its plain frames"
    plain = sum(len(p) + sb.OVERHEAD for seat in range(1, 17) for _, p in plan.fallback[seat][1])
    assert staged_bytes * 3 < plain


def test_a_stage_holds_only_what_every_seat_it_names_is_about_to_show() -> None:
    """Seat 2's screen carries its role: no other seat's node may keep a byte of it."""
    stager = Stager()
    for seat in (1, 2, 3, 4):
        stager.offer(seat, BLANK, picture(seat, "killer" if seat == 2 else ""))
    plan = stager.plan(stager.take(), {1, 2, 3, 4}, seq=5)
    stage, named = stage_of(plan.broadcast)
    assert named == [1, 2, 3, 4]
    for seat in named:
        mine = picture(seat, "killer" if seat == 2 else "")
        assert all(s == 0 or s == m for s, m in zip(stage, mine, strict=True))
    assert stage == common_picture([picture(1), picture(2, "killer"), picture(3), picture(4)])
    killer_only = [i for i, (a, b) in enumerate(zip(picture(2, "killer"), picture(2), strict=True)) if a != b]
    assert killer_only and all(stage[i] == picture(1)[i] for i in killer_only)


def test_two_seats_changing_are_sent_their_own_frames() -> None:
    stager = Stager()
    stager.offer(1, BLANK, picture(1))
    stager.offer(2, BLANK, picture(2))
    plan = stager.plan(stager.take(), {1, 2}, seq=5)
    assert plan.broadcast == [] and plan.fallback == {}
    assert {t for w in plan.writes.values() for t, _ in w} == {sb.DISPLAY_RLE}


def test_a_picture_replaced_before_it_went_is_sent_from_what_the_node_shows() -> None:
    stager = Stager()
    stager.offer(1, BLANK, picture(1))
    stager.offer(1, picture(1), picture(1, "vote"))
    assert stager.take() == {1: (BLANK, picture(1, "vote"))}


@pytest.fixture
def table4() -> Iterator[SimTable]:
    events: list[InputEvent] = []
    sim = start_sim_table(4)
    sim.table.start(events.append)
    sim.table.run_for(0.1)
    yield sim
    sim.close()


def deal(sim: SimTable) -> None:
    for seat in (1, 2, 3, 4):
        sim.table.seats[seat].display(deal_screen(seat))
    sim.table.run_for(0.1)


def test_the_deal_reaches_four_seats_as_one_stage(table4: SimTable) -> None:
    sim = table4
    deal(sim)
    for seat in (1, 2, 3, 4):
        assert sim.bus.nodes[seat].screen() == picture(seat)
    assert sim.master.stats.stages >= 1 and sim.master.stats.stage_misses == 0


def test_seats_that_missed_the_stage_get_their_plain_frames(table4: SimTable) -> None:
    sim = table4
    write = sim.bus.write

    def lose_stages(data: bytes) -> None:
        if data[4] != sb.STAGE:
            write(data)

    sim.bus.write = lose_stages  # type: ignore[method-assign]
    deal(sim)
    for seat in (1, 2, 3, 4):
        assert sim.bus.nodes[seat].screen() == picture(seat)
    assert sim.master.stats.stage_misses == 4


def test_older_firmware_without_a_stage_gets_its_screens_as_before(table4: SimTable) -> None:
    sim = table4
    for node in sim.master.nodes.values():
        assert node.identity is not None
        node.identity["caps"] = int(node.identity["caps"]) & ~sb.CAP_STAGE  # type: ignore[call-overload]  # 0.4
    deal(sim)
    for seat in (1, 2, 3, 4):
        assert sim.bus.nodes[seat].screen() == picture(seat)
    assert sim.master.stats.stages == 0


def test_a_node_that_comes_up_gets_its_display_settings_in_one_frame() -> None:
    """luma's set-up queues several display commands for each seat before the nodes answer; the repaint at
    the first IDENTITY carries the newest of each in one frame instead of all of them, one by one."""
    with start_sim_table(2) as sim:
        sent: list[bytes] = []
        write = sim.bus.write

        def record(data: bytes) -> None:
            sent.append(data)
            write(data)

        sim.bus.write = record  # type: ignore[method-assign]
        sim.table.start(lambda event: None)
        sim.table.run_for(0.1)
        commands = [f for f in sent if f[4] == sb.DISPLAY_CMD]
        assert sorted(f[2] for f in commands) == [1, 2]
        assert all(ops == sim.table.seats[f[2]].screen.interface.restore_frames()[0][1]
                   for f in commands for ops in [f[5:-4]])


def test_rle_ops_of_a_stage_never_start_with_a_skip() -> None:
    """A STAGE part, like a DISPLAY_RLE frame, begins where it first writes."""
    stage = common_picture([picture(1), picture(2), picture(3)])
    assert rle_ops(BLANK, stage)[0][1][0] < 0xC0


def test_a_picture_waiting_for_its_stage_counts_as_queued(table4: SimTable) -> None:
    """The simulator skips over a quiet table; a picture not yet planned must keep it awake (and the master's
    LISTEN window short) as a queued frame does."""
    sim = table4
    sim.table.seats[1].display(deal_screen(1))
    assert sim.master.queued() and sim.master.pending_commands() == 1
    assert not sim.quiet()
    sim.table.run_for(0.05)
    assert not sim.master.queued()
    assert sim.bus.nodes[1].screen() == picture(1)
