"""PROTOCOL.md, "POLL_ALL's lead": a node on its own chip needs about a millisecond to take a POLL_ALL, so the
master begins the slots a lead after the frame while every seat in it says POLL_LEAD (firmware 0.9)."""

from __future__ import annotations

import pytest

from controller.bus import seatbus as sb
from controller.bus.sim import SimTable, start_sim_table
from controller.ports import Button, ButtonEvent, InputEvent

PICO_READY_S = 0.0013  # an idle emulated Pico answered no slot that began sooner after the POLL_ALL


@pytest.fixture
def table4():
    """Four seats polled with POLL_ALL cycles (no LISTEN windows), each as slow to take a POLL_ALL as a Pico."""
    events: list[InputEvent] = []
    sim = start_sim_table(4, baud=2_000_000)
    sim.master.noisy_for = 0.0
    sim.master.listen = False
    sim.bus.poll_all_ready = PICO_READY_S
    sim.table.start(events.append)
    sim.table.run_for(0.3)
    assert all(n.status == "up" for n in sim.master.nodes.values())
    yield sim, events
    sim.close()


def presses(events: list[InputEvent]) -> list[tuple[int, bool]]:
    return [(e.seat, e.pressed) for e in events if isinstance(e, ButtonEvent)]


def test_seat_2s_press_is_heard_in_the_next_poll_all_when_its_slots_wait_for_the_seats(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    sim, _ = table4
    master = sim.master
    assert master.lead_us == sb.POLL_ALL_LEAD_US, "every seat says POLL_LEAD"
    slots_before = master.stats.poll_alls
    sim.press(2, Button.OK)
    pressed_at = sim.bus.now()
    arrived = []
    master.sink = lambda event: arrived.append(sim.bus.now())
    while not arrived:
        master.cycle()
    # one cycle at most, then the POLL_ALL, its lead and the slots
    assert arrived[0] - pressed_at <= master.min_cycle + (sb.POLL_ALL_LEAD_US + 4 * master.slot_us) / 1e6 + 0.001
    assert master.stats.poll_alls > slots_before
    assert sim.bus.counters.collisions == 0


def test_without_the_lead_the_seats_miss_every_slot_and_a_press_waits_for_a_roll_call(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    """The same table with slots timed from the frame's end, as before firmware 0.9: a seat as slow as a Pico
    reaches none of them (at 2 Mbaud the fourth slot is over 0.5 ms after the frame)."""
    sim, events = table4
    master = sim.master
    master.poll_lead_us = 0
    master._topology += 1
    sim.table.run_for(0.05)
    assert master.lead_us == 0
    sim.press(2, Button.OK)
    sim.table.run_for(0.02)
    assert presses(events)[-1:] != [(2, True)], "two cycles and no slot reached"


def test_the_lead_is_given_only_while_every_seat_in_the_poll_all_takes_it(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    sim, _ = table4
    master = sim.master
    caps = int(master.nodes[3].identity["caps"])  # type: ignore[index,call-overload]
    master.nodes[3].identity["caps"] = caps & ~sb.CAP_POLL_LEAD  # type: ignore[index]  # seat 3 is still on 0.8
    master._topology += 1
    sim.table.run_for(0.05)
    assert master.lead_us == 0
    master.nodes[3].identity["caps"] = caps  # type: ignore[index]
    master._topology += 1
    sim.table.run_for(0.05)
    assert master.lead_us == sb.POLL_ALL_LEAD_US
