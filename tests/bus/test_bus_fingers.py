"""The simulated table's fingers land when they land (issue 34's press figure): a press timed in the middle of the
master's poll round reaches its node at that moment, not at the table's next turn, and the nodes run at the line's
baud. The press-to-director figure of ``benchmarks/bus_timing.py`` is only as honest as these two."""

from __future__ import annotations

import json

import pytest

from controller.bus import seatbus as sb
from controller.bus.sim import SimTable, start_sim_table
from controller.ports import Button, ButtonEvent, InputEvent


@pytest.fixture
def table4():
    sim = start_sim_table(4)
    sim.master.noisy_for = 0.0  # a clean line: long LISTEN windows at once
    sim.table.start(lambda event: None)
    sim.table.run_for(0.3)
    assert all(n.status == "up" for n in sim.master.nodes.values())
    yield sim
    sim.close()


def round_s(sim: SimTable) -> float:
    m = sim.master
    return (len(m.nodes) * m.slot_us + m.gap_us) / 1e6


def test_seat_4_presses_while_the_master_sleeps_in_its_window_and_is_heard_in_the_next_slot(table4: SimTable) -> None:
    sim = table4
    master = sim.master
    arrived: list[tuple[float, InputEvent]] = []
    master.sink = lambda event: arrived.append((sim.bus.now(), event))
    master.poll_round(hold_until=sim.bus.now() + 0.001)  # a window is open
    span = master._span
    assert span is not None
    press_at = span.opened + 0.0371  # some moment of the window; the master is asleep in one read meanwhile
    sim.bus.at(press_at, lambda at: sim.press(4, Button.OK, True, at))
    master.cycle()  # one read, to the next master slot after the answer
    pressed = [t for t, e in arrived if isinstance(e, ButtonEvent) and e.pressed and e.seat == 4]
    assert pressed, "the press was heard in the window it was made in"
    slot_frame = sb.POLL_ALL_SLOT_BYTES * 10 / master.baud
    assert 0 < pressed[0] - press_at <= round_s(sim) + slot_frame + 0.0003


def test_a_press_made_at_a_past_moment_of_the_line_still_starts_its_debounce_then(table4: SimTable) -> None:
    """The master's frame moves the line's clock to its end at once; a finger that landed while it was on the
    wire is handed to the node at its own moment, as a real node's pin sees it."""
    sim = table4
    landed: list[float] = []
    at = sim.bus.now() + 0.0001
    sim.bus.at(at, lambda when: landed.append(when))
    sim.bus.write(sb.encode_frame(1, 0, sb.SET_LED, bytes(3)) * 8)  # a long frame: the clock jumps past ``at``
    sim.bus.read(0.002)
    assert landed == [at]


def test_bus_sim_at_2_mbaud_gives_its_nodes_2_mbaud_and_they_answer_in_their_listen_slots() -> None:
    sim = start_sim_table(3, baud=2_000_000)
    try:
        configs = [json.loads(node.config_path.read_text()) for node in sim.bus.nodes.values()]
        assert configs
        sim.master.noisy_for = 0.0
        sim.table.start(lambda event: None)
        sim.table.run_for(0.3)
        sim.press(2, Button.OK)
        sim.table.run_for(0.2)
        assert sim.master.stats.events_in_windows >= 1, "the press came in its LISTEN slot, not by a poll by name"
        assert all(c["uart"]["baud"] == 2_000_000 for c in configs)
    finally:
        sim.close()


def test_an_ftdi_adapter_holds_what_the_line_brought_until_its_latency_timer_runs_out() -> None:
    """benchmarks/bus_timing.py --links ftdi:1: an FTDI chip hands the host what it received only when its latency
    timer runs out (1 ms as systemd/99-tianhei.rules sets it), whenever the bytes came."""
    sim = start_sim_table(2)
    try:
        bus = sim.bus
        bus.adapter_tick = 0.001
        start = bus.now()
        bus.noise(b"\x55", after=0.0002)
        while not bus.read(0.005):
            pass
        tick = bus.now()
        assert start + 0.0002 < tick <= start + 0.0012
        bus.noise(b"\x55", after=0.0001)  # a byte just after a tick waits for the whole next one
        while not bus.read(0.005):
            pass
        assert bus.now() - tick == pytest.approx(0.001)
    finally:
        sim.close()


def test_the_pis_own_uart_hands_the_master_each_answer_a_fixed_moment_after_its_last_byte() -> None:
    """benchmarks/bus_timing.py --links uart:0.2: the PL011 has no latency timer; the master reads what the line
    brought once the UART's receive timeout and Linux's tty layer have passed it on, the same short wait every
    time, wherever the master is in its cycle."""
    sim = start_sim_table(2)
    try:
        bus = sim.bus
        bus.host_delay = 0.0002
        for after in (0.0001, 0.00037, 0.0009):
            start = bus.now()
            bus.noise(b"\x55", after=after)
            while not bus.read(0.005):
                pass
            assert bus.now() - start == pytest.approx(after + 0.0002)
    finally:
        sim.close()


def test_a_node_on_its_own_chip_answers_when_its_loop_comes_round_not_at_once() -> None:
    """benchmarks/bus_timing.py --node-replies: each answer to a frame addressed to a node starts as long after the
    frame as one drawn from what the emulated Picos took (benchmarks/node_reply.py --save-replies)."""
    def answered_after(draw: float) -> float:
        sim = start_sim_table(1)
        try:
            bus = sim.bus
            bus.turnaround_draw = lambda: draw
            start = bus.now()
            bus.write(sb.encode_frame(1, 7, sb.IDENTIFY, b""))
            heard = b""
            while not sb.Decoder().feed(heard):
                heard += bus.read(0.02)
            return bus.now() - start
        finally:
            sim.close()

    assert answered_after(0.0031) - answered_after(0.0002) == pytest.approx(0.0029)


def test_a_node_on_its_own_chip_takes_a_listen_before_it_can_answer_in_its_slots(table4: SimTable) -> None:
    """benchmarks/bus_timing.py --node-replies: a node takes a LISTEN in interpreted MicroPython, so the slots of
    the window that go by meanwhile are not its. Seat 2's colour, sent quietly ahead of a window, is confirmed in
    the first of its slots after ``listen_ready``, at that slot's moment (the window still counts from the
    LISTEN's end), not in the first round."""
    sim = table4
    master = sim.master
    sim.bus.listen_ready = 0.0045
    master.quiet = True
    master._topology += 1
    confirmed: list[float] = []
    master.on_command = lambda address, mtype, when: confirmed.append(when)
    master.poll_round(hold_until=sim.bus.now() + 0.001)  # asleep in a window
    sim.table.seats[2].set_led((0, 9, 0))
    master.cycle()  # the window closes at the master slot...
    master.poll_round(hold_until=sim.bus.now())  # ...the colour goes out quietly, then a new LISTEN
    span = master._span
    assert span is not None and not confirmed
    master.poll_round(hold_until=span.opened + 0.02)
    [at] = confirmed
    answer = sb.OVERHEAD * 10 / master.baud
    slot = span.group.index(master.nodes[2]) * span.slot
    rounds = (at - answer - sim.bus.turnaround - span.opened - slot) / span.round  # (the driver's turnaround)
    assert at - answer >= span.opened + 0.0045
    assert rounds == pytest.approx(round(rounds), abs=0.05), "at its slot's moment in a later round"
    assert sim.bus.nodes[2].led == (0, 9, 0)
