"""Three seats on their own chips (the rp2 image on emulated RP2040s) with POLL_ALL and LISTEN on: the deal's
screens as one stage, read as one burst once the line went quiet (firmware/lib/rs485.py), and presses of all
three at the same moment, each heard (firmware/PROTOCOL.md, "Slot timing": neighbours' answers may still collide
on the chip, and the master then polls every seat by name)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from controller.bus import seatbus as sb
from controller.bus.display import ssd1306_bytes
from controller.ports import ButtonEvent
from controller.screens.render import render
from controller.screens.views import TapCard

from .test_emulated_seat import boot, table

SEATS = [2, 3, 4]


@pytest.fixture
def three_seats(tmp_path: Path, firmware: bytes):
    """Seats 2, 3 and 4 on emulated Picos at a table with POLL_ALL and LISTEN on, 0.2 s after they booted."""
    bus, picos = boot(tmp_path, firmware, SEATS)
    try:
        bus_table, events = table(bus, SEATS)
        bus_table.run_for(0.2)
        yield bus, picos, bus_table, events
    finally:
        bus.close()


def test_three_seats_take_the_deals_screens_as_one_stage_and_press_in_the_same_window(three_seats) -> None:
    _, picos, bus_table, events = three_seats
    master = bus_table.master
    assert all(master.supports(a, sb.CAP_SLOT_TIMED) for a in SEATS), "firmware 0.6 on the chip"
    pictures = {a: render(TapCard(seat=a)) for a in SEATS}
    for a in SEATS:
        bus_table.seats[a].display(pictures[a])
    bus_table.run_for(0.4)
    assert master.stats.stages > 0 and master.stats.stage_misses == 0, "one stage, held whole by every seat"
    for pico, a in zip(picos, SEATS, strict=True):
        assert bytes(pico.screen.ram) == ssd1306_bytes(pictures[a].convert("1"))
    bus_table.run_for(0.3)  # a quiet table: LISTEN windows
    for pico in picos:  # all three press OK at the same moment
        pico.button("ok", True)
    bus_table.run_for(0.1)
    pressed = sorted(e.seat for e in events if isinstance(e, ButtonEvent) and e.pressed)
    assert pressed == SEATS


def driven(edges: dict[str, list]) -> list[tuple[int, int]]:
    """(DE's rise, its fall) in ns, each time a Pico drove the line."""
    levels = edges["pin"]
    return [(t, u) for (t, a), (u, b) in itertools.pairwise(levels) if a == 1 and b == 0]


def test_three_seats_pressing_at_once_answer_at_their_slots_microsecond_in_the_short_guard_slots(three_seats) -> None:
    """PROTOCOL.md, "Slot timing" (firmware 0.7): each seat's answer is begun at its slot's start in machine code,
    so the master gives slots the 40 µs guard (and, since 0.9.11, its LISTEN windows a lead); three seats pressing
    at once, again and again, answer in their slots of the LISTEN windows without a garbled frame; DE rises just
    before the first start bit and falls just after the last stop bit (interpreted, it rose 17-24 µs before and
    fell 10-11 µs after), and never two seats drive the line at once."""
    bus, picos, bus_table, events = three_seats
    master = bus_table.master
    assert all(master.supports(a, sb.CAP_SLOT_EXACT) for a in SEATS), "firmware 0.7 on the chip"
    assert master.slot_us == sb.poll_all_slot_us(1_000_000, sb.POLL_ALL_SHORT_GUARD_US) == 210
    assert all(master.supports(a, sb.CAP_LISTEN_LEAD) for a in SEATS), "firmware 0.9.11 on the chip asks for a lead"
    assert all(master.supports(a, sb.CAP_QUICK_LEAD) for a in SEATS), "firmware 0.9.15 takes one within 1.5 ms"
    assert master.listen_lead_us == sb.LISTEN_QUICK_LEAD_US, "its windows begin a lead after the LISTEN"
    for pico in picos:
        bus.call({"op": "edges", "pico": pico.index, "gpio": pico.config["uart"]["de"]})
    garbled = master.stats.corrupt_detected + master.stats.collisions
    for moment in range(4):  # press, lift, press, lift: each time all three at once
        pressed = moment % 2 == 0
        for pico in picos:
            pico.button("ok", pressed)
        bus_table.run_for(0.05 + 0.013 * moment)  # the next moment falls elsewhere in a window
    assert master.stats.corrupt_detected + master.stats.collisions == garbled, "no answer landed on another"
    presses = [(e.seat, e.pressed) for e in events if isinstance(e, ButtonEvent)]
    assert sorted(presses) == sorted([(a, p) for a in SEATS for p in (True, False)] * 2)
    host = [(done, frame.addr) for done, data in bus.said for frame in sb.Decoder().feed(data)]
    spans = []
    slotted = 0
    for pico in picos:
        edges = bus.call({"op": "edges", "pico": pico.index, "take": True})
        for rise, fall in driven(edges):
            spans.append((rise, fall))
            asked = [addr for done, addr in host if done <= rise]
            if asked and asked[-1] == pico.config["address"]:
                continue  # an answer to a frame by name (a poll, a command): the interpreted write, no slot
            slotted += 1
            sent = [t for t in edges["tx"] if rise < t <= fall]
            assert sent, "DE up with nothing sent"
            first_start = sent[0] - bus.byte_ns
            assert 0 <= first_start - rise <= 5_000, f"DE rose {(first_start - rise) / 1000} µs before the byte"
            assert 0 <= fall - sent[-1] <= 5_000, f"DE fell {(fall - sent[-1]) / 1000} µs after the last stop bit"
    assert slotted >= 4 * len(SEATS), "every seat answered each moment in a window"
    spans.sort()
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), "two seats drove the line at once"
