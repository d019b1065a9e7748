"""The host's bus adapter against real firmware nodes (micropython processes) on a simulated RS-485 bus."""

from __future__ import annotations

import random

import pytest
from luma.core.device import dummy
from PIL import Image, ImageDraw

from controller.bus import seatbus as sb
from controller.bus.sim import SimTable, start_sim_table
from controller.ports import Button, ButtonEvent, CardEvent, InputEvent, LinkEvent, RemoteKey, RemoteKeyEvent

KEY = bytes(range(16))


def panel_bytes(image: Image.Image) -> bytes:
    """What an SSD1306 holds for this image (luma's page layout), via luma's own dummy device."""
    dev = dummy(width=128, height=64, mode="1")
    dev.display(image)
    img = dev.image
    out = bytearray(1024)
    for page in range(8):
        for x in range(128):
            b = 0
            for bit in range(8):
                if img.getpixel((x, page * 8 + bit)):
                    b |= 1 << bit
            out[page * 128 + x] = b
    return bytes(out)


def name_card(text: str) -> Image.Image:
    im = Image.new("1", (128, 64))
    ImageDraw.Draw(im).text((4, 4), text, fill=1)
    return im


@pytest.fixture
def table4():
    events: list[InputEvent] = []
    sim = start_sim_table(4, remote_key=KEY)
    sim.table.start(events.append)
    sim.table.run_for(0.1)
    yield sim, events
    sim.close()


def inputs(events: list[InputEvent]) -> list[InputEvent]:
    return [e for e in events if not isinstance(e, LinkEvent)]


def test_every_node_is_found_and_reported_up(table4: tuple[SimTable, list[InputEvent]]) -> None:
    _, events = table4
    ups = sorted(e.seat for e in events if isinstance(e, LinkEvent) and e.up)
    assert ups == [0, 1, 2, 3, 4]


def test_seat_2_presses_ok_once_and_the_director_hears_it_once(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    sim, events = table4
    sim.click(2, Button.OK)
    sim.table.run_for(0.1)
    got = [(e.seat, e.button, e.pressed) for e in inputs(events) if isinstance(e, ButtonEvent)]
    assert got == [(2, Button.OK, True), (2, Button.OK, False)]


def test_a_card_tapped_on_seat_3_arrives_with_its_uid(table4: tuple[SimTable, list[InputEvent]]) -> None:
    sim, events = table4
    sim.tap(3, bytes.fromhex("04a1b2c3"))
    sim.table.run_for(0.5)
    sim.tap(3, None)
    sim.table.run_for(0.5)
    got = [(e.seat, e.uid, e.present) for e in inputs(events) if isinstance(e, CardEvent)]
    assert got == [(3, "04a1b2c3", True), (3, "04a1b2c3", False)]


def test_screen_and_led_reach_the_node(table4: tuple[SimTable, list[InputEvent]]) -> None:
    sim, _ = table4
    image = name_card("Seat 1: killer")
    sim.table.seats[1].display(image)
    sim.table.seats[1].set_led((0, 0, 255))
    sim.table.run_for(0.05)
    assert sim.bus.nodes[1].screen() == panel_bytes(image)
    assert sim.bus.nodes[1].led == (0, 0, 255)


def test_the_judges_remote_key_arrives_authenticated(table4: tuple[SimTable, list[InputEvent]]) -> None:
    sim, events = table4
    sim.key(100, "center")
    sim.table.run_for(0.1)
    got = [e for e in inputs(events) if isinstance(e, RemoteKeyEvent)]
    assert [(e.key, e.pressed) for e in got] == [(RemoteKey.CENTER, True)]
    assert sim.master.stats.auth_rejected == 0


def test_a_forged_or_replayed_remote_reply_is_ignored_and_reported(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    sim, events = table4
    master = sim.master
    node = master.nodes[100]
    press = sb.encode_events([sb.encode_event(50, sb.EV_PRESS, 0, bytes([sb.KEY_MENU]))])
    forged = sb.Frame(100, 9, sb.AUTH, sb.seal(b"wrong key 123456", 100, 9, 10**9, sb.EVENTS, press), True)
    master._events(node, forged)
    good = sb.Frame(100, 9, sb.AUTH, sb.seal(KEY, 100, 9, node.auth_counter + 1, sb.EVENTS, press), True)
    master._events(node, good)
    master._events(node, good)  # the same frame again, as a radio replay would send it
    keys = [e for e in inputs(events) if isinstance(e, RemoteKeyEvent)]
    assert len(keys) == 1
    assert master.stats.auth_rejected == 2
    assert any("bad MAC" in a for a in master.alerts) and any("replayed" in a for a in master.alerts)


def test_a_node_with_the_wrong_role_is_refused_with_a_clear_message() -> None:
    events: list[InputEvent] = []
    with start_sim_table(2) as sim:
        sim.master.nodes[2].spec.seat = 0  # the controller expects the remote at address 2; a seat is there
        sim.master.nodes[2].spec.key = KEY
        sim.table.start(events.append)
        sim.table.run_for(0.1)
    refusals = [e for e in events if isinstance(e, LinkEvent) and not e.up]
    assert len(refusals) == 1
    assert "configured as a seat" in refusals[0].reason and "config.json" in refusals[0].reason


def test_a_power_cut_pauses_the_seat_and_its_screen_and_led_come_back() -> None:
    events: list[InputEvent] = []
    with start_sim_table(3) as sim:
        sim.table.start(events.append)
        sim.table.run_for(0.05)
        image = name_card("vote: seat 2")
        sim.table.seats[3].display(image)
        sim.table.seats[3].set_led((0, 255, 0))
        sim.table.run_for(0.05)
        sim.bus.power_cycle(3, off_for=0.5)
        sim.table.run_for(0.3)
        down = [e for e in events if isinstance(e, LinkEvent) and e.seat == 3 and not e.up]
        assert down and "seat 3" in down[0].reason
        sim.table.run_for(0.5)
        ups = [e for e in events if isinstance(e, LinkEvent) and e.seat == 3 and e.up]
        assert len(ups) == 2 and "power-on" in ups[-1].reason
        assert sim.bus.nodes[3].screen() == panel_bytes(image)
        assert sim.bus.nodes[3].led == (0, 255, 0)
        sim.click(3, Button.NEXT)
        sim.table.run_for(0.1)
        presses = [e for e in inputs(events) if isinstance(e, ButtonEvent)]
        assert [(e.seat, e.button, e.pressed) for e in presses] == [
            (3, Button.NEXT, True),
            (3, Button.NEXT, False),
        ]


def test_a_hung_node_is_reset_by_its_watchdog_and_comes_back_saying_why() -> None:
    """Seat 2's main loop hangs (a driver stuck in a loop): it stops answering and is reported down; its 2 s
    watchdog resets it, it answers again, says its last reset was the watchdog, and gets its screen back."""
    events: list[InputEvent] = []
    with start_sim_table(3) as sim:
        sim.table.start(events.append)
        sim.table.run_for(0.05)
        image = name_card("seat 2")
        sim.table.seats[2].display(image)
        sim.table.run_for(0.05)
        sim.bus.nodes[2].hang()
        sim.table.run_for(0.3)
        down = [e for e in events if isinstance(e, LinkEvent) and e.seat == 2 and not e.up]
        assert down and "seat 2 (address 2) stopped answering" in down[0].reason
        sim.table.run_for(1.5)
        assert [e for e in events if isinstance(e, LinkEvent) and e.seat == 2][-1] == down[0]  # still hung
        sim.table.run_for(0.5)
        back = [e for e in events if isinstance(e, LinkEvent) and e.seat == 2 and e.up][-1]
        assert back.at > down[0].at and "last reset: watchdog" in back.reason
        sim.table.run_for(0.1)
        assert sim.bus.nodes[2].screen() == panel_bytes(image)


@pytest.mark.parametrize("seed", [1, 2])
def test_with_5_percent_faults_no_input_is_lost_or_doubled(seed: int) -> None:
    """Corrupt, drop and delay 5% of frames both ways; the director still sees every press exactly once."""
    events: list[InputEvent] = []
    rng = random.Random(seed)
    with start_sim_table(4, fault_rate=0.05, seed=seed) as sim:
        sim.table.start(events.append)
        sim.table.run_for(0.1)
        expected = []
        for _ in range(12):
            seat = rng.randint(1, 4)
            button = rng.choice(list(Button))
            sim.click(seat, button)
            sim.table.run_for(0.05)
            expected += [(seat, button, True), (seat, button, False)]
        sim.tap(1, bytes.fromhex("deadbeef"))
        sim.table.run_for(0.6)
        sim.table.run_for(0.2)
        got = [(e.seat, e.button, e.pressed) for e in inputs(events) if isinstance(e, ButtonEvent)]
        assert got == expected
        assert [e.uid for e in inputs(events) if isinstance(e, CardEvent)] == ["deadbeef"]
        counters = sim.bus.counters
        assert counters.corrupted + counters.dropped + counters.delayed > 0
        assert sim.master.stats.retransmits > 0


def test_seat_4_in_a_window_hears_the_host_talk_to_seat_3_and_leaves_the_window(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    """On the cable every node hears every frame, and any frame of the host ends a LISTEN window: seat 4, which
    took a LISTEN and then heard the host send seat 3 its LED, says nothing in that window's slots when it presses
    (the host is sending commands there), but waits to be asked. The simulator once gave a frame to its addressee
    only, and seat 4 answered in a window nobody listened to any more."""
    sim, _ = table4
    bus, master = sim.bus, sim.master
    master.abandon_span()
    listen = sb.encode_frame(sb.BROADCAST, 200, sb.LISTEN, sb.encode_listen(
        master.slot_us, master.gap_us, 20, 0, bytes((1, 2, 3, 4)), []))
    bus.write(listen)
    bus.read(0.0003)  # the nodes take it
    bus.write(sb.encode_frame(3, 201, sb.SET_LED, bytes((1, 2, 3))))  # the window is over: seat 3's LED
    sim.press(4, Button.OK)
    heard = sb.Decoder().feed(bus.read(0.02) + bus.read(0.02))
    assert [(f.addr, f.mtype) for f in heard] == [(3, sb.ACK)]


def test_the_lines_trace_shows_the_hosts_frame_and_seat_3s_answer(table4: tuple[SimTable, list[InputEvent]]) -> None:
    """What ``benchmarks/bus_timing.py --trace`` prints the slow presses with: every transmission on the line."""
    sim, _ = table4
    line: list[tuple[float, float, bytes]] = []
    sim.bus.on_air = lambda start, end, data: line.append((start, end, data))
    sim.master.abandon_span()
    sim.bus.write(sb.encode_frame(3, 201, sb.SET_LED, bytes((1, 2, 3))))
    sim.bus.read(0.02)
    said = [(f.addr, f.mtype, f.from_node) for _, _, data in line for f in sb.Decoder().feed(data)]
    assert said == [(3, sb.SET_LED, False), (3, sb.ACK, True)]
    assert all(start < end for start, end, _ in line) and line[0][1] <= line[1][0]
