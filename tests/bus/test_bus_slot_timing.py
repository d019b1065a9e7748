"""The LISTEN round's length (firmware/PROTOCOL.md, "Slot timing"): the figure the protocol states, and a press at
any moment of a window at a full table within one round and its frame."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from controller.bus import seatbus as sb
from controller.bus.sim import SimTable, start_sim_table
from controller.ports import Button, ButtonEvent, InputEvent

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "firmware" / "PROTOCOL.md"
MBAUD = 1_000_000
PRESS_FRAME_US = sb.POLL_ALL_SLOT_BYTES * 10  # an EVENTS frame with one press, at 1 Mbaud


def test_the_listen_round_at_16_seats_and_the_remote_is_the_figure_protocol_md_states() -> None:
    slot, gap = sb.poll_all_slot_us(MBAUD), sb.listen_gap_us(MBAUD)
    round_us = 17 * slot + gap
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    stated = re.search(r"17 × (\d+) µs \+ ([\d,]+) µs = \*\*([\d,]+) µs\*\*", text)
    assert stated, "PROTOCOL.md states the LISTEN round at 16 seats and the remote"
    assert [int(x.replace(",", "")) for x in stated.groups()] == [slot, gap, round_us]


def test_a_press_fits_its_slot_with_the_guard_to_spare() -> None:
    slot = sb.poll_all_slot_us(MBAUD)
    press = sb.encode_frame(3, 0, sb.EVENTS, sb.encode_events([sb.encode_event(1, sb.EV_PRESS, 0, bytes([sb.BTN_OK]))]), True)
    assert len(press) * 10 + sb.POLL_ALL_GUARD_US <= slot


@pytest.fixture
def table16():
    events: list[InputEvent] = []
    sim = start_sim_table(16)
    sim.master.noisy_for = 0.0  # a clean line: long windows at once
    sim.table.start(events.append)
    sim.table.run_for(0.3)
    assert all(n.status == "up" for n in sim.master.nodes.values())
    yield sim, events
    sim.close()


def round_s(sim: SimTable) -> float:
    m = sim.master
    return (len(m.nodes) * m.slot_us + m.gap_us) / 1e6


def test_sixteen_seats_pressing_at_random_moments_each_reach_the_master_within_a_round_and_a_frame(
    table16: tuple[SimTable, list[InputEvent]],
) -> None:
    sim, _ = table16
    master = sim.master
    assert master.slot_us == sb.poll_all_slot_us(MBAUD, sb.POLL_ALL_SHORT_GUARD_US)  # the simulated seats: 0.7
    arrived: list[tuple[float, InputEvent]] = []
    master.sink = lambda event: arrived.append((sim.bus.now(), event))
    rng = random.Random(34)
    waits = []
    for seat in rng.sample(range(1, 17), 8):
        master.poll_round(hold_until=sim.bus.now() + 0.001)  # a window is open, the master asleep in it
        span = master._span
        assert span is not None
        master.poll_round(hold_until=span.opened + rng.uniform(0.0, 0.09))
        arrived.clear()
        pressed_at = sim.bus.now()
        sim.press(seat, Button.OK)
        while not any(isinstance(e, ButtonEvent) and e.pressed for _, e in arrived):
            master.cycle()
        at = next(t for t, e in arrived if isinstance(e, ButtonEvent) and e.pressed)
        waits.append(at - pressed_at)
        sim.press(seat, Button.OK, False)
        sim.table.run_for(0.05)
    assert max(waits) <= round_s(sim) + PRESS_FRAME_US / 1e6 + 0.0002, [round(w * 1000, 2) for w in waits]
    assert sim.bus.counters.collisions == 0


def test_slots_get_the_short_guard_only_while_every_node_that_is_up_starts_its_answers_exactly(
    table16: tuple[SimTable, list[InputEvent]],
) -> None:
    """PROTOCOL.md, "Slot timing": firmware 0.7 says CAP_SLOT_EXACT; the host gives slots the 40 µs guard while
    every node that is up says it, and the 80 µs guard again as soon as one does not (a seat on older firmware,
    whose interpreted wait may start its answer 100-200 µs late); a press arrives either way."""
    sim, events = table16
    master = sim.master
    idents = [master.nodes[a].identity for a in sorted(master.nodes)]
    assert all(ident is not None for ident in idents)
    caps = {a: int(master.nodes[a].identity["caps"]) for a in master.nodes}  # type: ignore[call-overload,index]
    assert all(c & sb.CAP_SLOT_EXACT for c in caps.values()), "the simulator's driver answers at each slot's µs"
    assert master.slot_us == sb.poll_all_slot_us(MBAUD, sb.POLL_ALL_SHORT_GUARD_US) == 210
    master.nodes[7].identity["caps"] = caps[7] & ~sb.CAP_SLOT_EXACT  # type: ignore[index]  # seat 7 is still on 0.6
    master._topology += 1
    master.abandon_span()
    sim.table.run_for(0.1)
    assert master.slot_us == 250
    sim.click(7, Button.OK)
    sim.table.run_for(0.2)
    assert [(e.seat, e.pressed) for e in events if isinstance(e, ButtonEvent)][-2:] == [(7, True), (7, False)]


def test_a_press_fits_the_short_guards_slot_with_the_guard_to_spare() -> None:
    slot = sb.poll_all_slot_us(MBAUD, sb.POLL_ALL_SHORT_GUARD_US)
    press = sb.encode_frame(3, 0, sb.EVENTS, sb.encode_events([sb.encode_event(1, sb.EV_PRESS, 0, bytes([sb.BTN_OK]))]), True)
    assert len(press) * 10 + sb.POLL_ALL_SHORT_GUARD_US <= slot == 210
