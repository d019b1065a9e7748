"""A ◀/▶ press at night redraws only what changed: the pressing seat's screen, not its partners' nor the
judge's remote (the press-to-screen latency, benchmarks/director_latency.py)."""

from __future__ import annotations

import pytest

from controller.ports import Button
from controller.screens import views as v
from tests.director.helpers import ScriptedTable

CARDS = "K K P P C C C C"  # killers 1, 2


def test_killer_1_moves_the_pointer_and_only_seat_1_is_redrawn_within_the_same_second():
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    w = t.until_window("night", "kill")
    assert w.deadline - t.clock.now() == pytest.approx(30.0)  # the window opens now; the next tick is 1 s on
    t.run_for(0.5)
    remote, partner = t.table.remote.frames, t.table.seats[2].frames
    for _ in range(5):
        before = t.table.seats[1].frames
        t.table.click(1, Button.NEXT)
        assert t.table.seats[1].frames == before + 1
    assert t.table.seats[2].frames == partner, "the other killer's screen did not change"
    assert t.table.remote.frames == remote, "the remote shows nothing that a pointer move changes"


def test_the_countdown_on_the_screen_counts_whole_seconds():
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    w = t.until_window("night", "kill")
    t.run_for(2.4)
    t.table.click(1, Button.NEXT)
    shown = t.screen(1)
    assert isinstance(shown, v.NightChoice)
    assert shown.countdown.remaining == float(int(w.deadline - t.clock.now()) + 1)
