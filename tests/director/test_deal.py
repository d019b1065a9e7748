"""The card deal (C1): every player taps their card; every mistake is shown on the seat where it happened and
on the judge's remote; the judge can order a redeal."""

from __future__ import annotations

from controller.director.timing import Timings
from controller.screens import views as v
from tests.director.helpers import ScriptedTable, card_uid

CARDS = "K K P P C C C C"


def test_each_seat_sees_only_its_own_role_when_it_taps_its_card():
    t = ScriptedTable("standard-2.0", CARDS)
    assert all(t.screen(s) == v.TapCard(s) for s in t.director.ui)
    t.table.tap(3, card_uid(3))
    assert t.screen(3) == v.RoleReveal(3, "police", (), hint=True)
    assert all(t.screen(s) == v.TapCard(s) for s in t.director.ui if s != 3)
    t.run_for(Timings().reveal_s)
    assert isinstance(t.screen(3), v.Message)  # "card read, waiting for others": the role is hidden again
    t.table.tap(3, card_uid(3))  # tapping one's own card again shows it again, no complaint
    assert t.screen(3) == v.RoleReveal(3, "police", (), hint=True)


def test_an_unknown_card_is_named_on_that_seat_and_the_remote():
    t = ScriptedTable("standard-2.0", CARDS)
    t.table.tap(6, "deadbeef")
    assert t.screen(6) == v.CardProblem(v.CardProblemKind.UNKNOWN)
    assert all(t.screen(s) == v.TapCard(s) for s in t.director.ui if s != 6)
    assert "seat 6: card deadbeef is not in this deck" in t.remote_told()
    t.run_for(10)
    assert "error.unknown_card" in t.said()
    assert t.screen(6) == v.CardProblem(v.CardProblemKind.UNKNOWN)  # it stays until the right card comes
    t.table.tap(6, card_uid(6))
    assert t.screen(6) == v.RoleReveal(6, "civilian", (), hint=True)


def test_the_same_card_at_two_seats():
    t = ScriptedTable("standard-2.0", CARDS)
    t.table.tap(1, card_uid(1))
    t.table.tap(2, card_uid(1))
    assert t.screen(2) == v.CardProblem(v.CardProblemKind.DUPLICATE, other_seat=1)
    assert t.screen(1) == v.RoleReveal(1, "killer", (), hint=True)  # seat 1 is not disturbed
    assert f"seat 2: card {card_uid(1)} is already at seat 1" in t.remote_told()
    assert t.director.dealt_cards == {1: card_uid(1)}


def test_a_seat_that_taps_a_second_card():
    t = ScriptedTable("standard-2.0", CARDS)
    t.table.tap(5, card_uid(5))
    t.table.tap(5, card_uid(6))
    assert t.screen(5) == v.CardProblem(v.CardProblemKind.TAPPED_TWICE)
    assert "seat 5: tapped one card too many (card 2)" in t.remote_told()
    assert t.director.dealt_cards == {5: card_uid(5)}
    t.table.tap(6, card_uid(6))  # the card is still free for its owner
    assert t.screen(6) == v.RoleReveal(6, "civilian", (), hint=True)


def test_a_deck_that_does_not_match_the_table_then_a_redeal():
    t = ScriptedTable("standard-2.0", CARDS)
    t.director.deck["04ffff01"] = "killer"  # a killer card from another deck box slipped in
    for seat in range(1, 9):
        t.table.tap(seat, "04ffff01" if seat == 7 else card_uid(seat))
    problem = v.CardProblem(v.CardProblemKind.DECK_MISMATCH, missing=(("civilian", 1),), extra=(("killer", 1),))
    assert all(t.screen(s) == problem for s in t.director.ui)
    assert any(line.startswith("deck mismatch") for line in t.remote_told())
    t.run_for(60)
    assert t.director.stage == "deal" and t.director.state is None  # the game does not start
    t.menu("redeal")
    assert all(t.screen(s) == v.TapCard(s) for s in t.director.ui)
    said = t.said()
    assert said[-2:] == ["setup.redeal", "setup.tap_card"]
    t.deal()
    assert t.director.state.roles == ("killer", "killer", "police", "police") + ("civilian",) * 4


def test_a_redeal_in_the_middle_of_the_reveals_shows_tap_card_again():
    """A role shown before the redeal must not come back as "card read" once the judge restarted the deal."""
    t = ScriptedTable("standard-2.0", CARDS)
    t.table.tap(1, card_uid(1))
    t.director.redeal()
    t.run_for(Timings().reveal_s + 1)
    assert t.screen(1) == v.TapCard(1)
