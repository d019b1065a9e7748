"""Three seats on their own chips (the rp2 image on emulated RP2040s) with POLL_ALL and LISTEN on: the deal's
screens as one stage, read as one burst once the line went quiet (firmware/lib/rs485.py), and presses of all
three at the same moment, each heard (firmware/PROTOCOL.md, "Slot timing": neighbours' answers may still collide
on the chip, and the master then polls every seat by name)."""

from __future__ import annotations

from pathlib import Path

from controller.bus import seatbus as sb
from controller.bus.display import ssd1306_bytes
from controller.ports import ButtonEvent
from controller.screens.render import render
from controller.screens.views import TapCard

from .test_emulated_seat import boot, table

SEATS = [2, 3, 4]


def test_three_seats_take_the_deals_screens_as_one_stage_and_press_in_the_same_window(
    tmp_path: Path, firmware: bytes
) -> None:
    bus, picos = boot(tmp_path, firmware, SEATS)
    try:
        bus_table, events = table(bus, SEATS)
        bus_table.run_for(0.2)
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
    finally:
        bus.close()
