"""The dual-card versions at the table (D1, D3): the first identity chosen at the deal with the seat's own
buttons, the hand on the seat's own screen, a card lost at night or by a vote."""

from __future__ import annotations

from controller.director import announce
from controller.director.clock import VirtualScheduler
from controller.director.director import Director
from controller.ports import Button
from controller.rules.events import CardLost, HandsDealt
from controller.screens import views as v
from controller.screens.render import render
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack
from tests.director.helpers import game_config, session


def digital_table(variant: str, players: int, seed: int = 1) -> tuple[Director, SimTable, VirtualScheduler]:
    clock = VirtualScheduler()
    table = SimTable(players, clock.now)
    d = Director(table, NullVoice(clock.now, load_voice_pack("en")), clock, game_config(variant, players),
                 lang="en", seed=seed)
    d.start()
    clock.run(until=lambda: d.window is not None, max_time=120)
    return d, table, clock


def test_d1_seat_1_chooses_its_second_card_with_next_and_ok_the_others_keep_the_card_dealt_first():
    d, table, clock = digital_table("dual-card-6.0", 9)
    assert d.window is not None and d.window.kind == "first_identity"
    hands = next(e.hands for e in d.events if isinstance(e, HandsDealt))
    shown = d.ui[1].drawn
    assert isinstance(shown, v.HandChoice) and shown.cards == hands[0] and shown.chosen == 1
    table.click(1, Button.NEXT)
    assert d.ui[1].drawn == v.HandChoice(hands[0], 2, shown.countdown)
    table.click(1, Button.OK)
    assert isinstance(d.ui[1].drawn, v.HandChoice) and d.ui[1].drawn.confirmed
    clock.run(until=lambda: d.state is not None and d.state.phase == "night", max_time=clock.now() + 60)
    s = d.state
    assert s is not None
    assert s.cards[0][0] == hands[0][1]  # seat 1 plays its second card first
    for seat in range(2, 10):  # C5: nobody else chose by the deadline: the card dealt first plays
        assert s.cards[seat - 1] == hands[seat - 1]


def test_d1_holding_ok_shows_the_whole_hand_on_the_own_screen_only():
    d, _table, clock = digital_table("dual-card-6.0", 9)
    clock.run(until=lambda: d.state is not None and d.state.phase == "day" and not d.night_shown,
              max_time=clock.now() + 600)
    s = d.state
    assert s is not None
    d.ui[3].peeking = True  # seat 3 holds OK (by day: at night a sleeping seat stays dark)
    d.seats.refresh()
    view = d.ui[3].drawn
    assert isinstance(view, v.RoleReveal) and view.hand == s.cards[2] and view.role == s.role_of(3)
    for lang in ("zh", "en"):
        render(view, lang, strict=True)
    assert not any(isinstance(d.ui[x].drawn, v.RoleReveal) for x in d.ui if x != 3)


def test_d1_a_card_lost_at_night_is_not_announced_a_card_voted_out_shows_the_first_identity():
    assert announce.for_event(CardLost(4, "killed")) == []
    assert announce.for_event(CardLost(4, "executed", "doctor")) == ["seat.4", "execution.voted_out",
                                                                    "seat.4", "identity.is", "role.doctor.name"]


def test_d1_the_owner_alone_sees_the_card_that_turned_up():
    for seed in range(1, 6):
        s = session("dual-card-6.0", 9, seed, "heuristic")
        d = s.director
        seen: list[tuple[int, v.View]] = []
        original = d.seats.refresh

        def refresh(original=original, d=d, seen=seen) -> None:
            original()
            lost = [e.seat for e in d.events if isinstance(e, CardLost)]
            seen.extend((seat, ui.drawn) for seat, ui in d.ui.items()
                        if isinstance(ui.drawn, v.RoleReveal) and seat in lost)

        d.seats.refresh = refresh  # type: ignore[method-assign]
        s.start()
        s.run(max_time=100_000)
        lost = [e for e in d.events if isinstance(e, CardLost)]
        if lost:
            assert {seat for seat, _ in seen} >= {e.seat for e in lost}
            assert all(view.seat == seat for seat, view in seen)  # type: ignore[attr-defined]
            return
    raise AssertionError("no card was lost in five games")


