"""Deck enrollment and checking end to end on the sim table, with scripted taps and presses."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import pytest

from controller.config.decks import Card, Deck, DeckCheck, load_deck, save_deck
from controller.diag.deck import DeckCheckRun, Enrollment, describe, role_from_text
from controller.diag.people import SimPeople, card_uid
from controller.diag.script import Script, ScriptRunner
from controller.director.clock import VirtualScheduler
from controller.ports import Button
from controller.screens.render import render
from controller.screens.strings import Lang
from controller.screens.views import Message
from controller.sim.table import SimTable

ROLES = ("killer", "police", "civilian")


def drive(table: SimTable, clock: VirtualScheduler, script: Script,
          people: SimPeople | None = None) -> object:
    runner = ScriptRunner(clock, script)
    if people is not None:
        runner.listeners.append(people.on_wait)
    table.start(runner.handle)
    runner.start()
    clock.run()
    assert runner.done
    return runner.result


def pile(*roles: str) -> list[tuple[str, str]]:
    return [(card_uid(i), role) for i, role in enumerate(roles, start=1)]


def test_people_enroll_a_deck_by_choosing_each_cards_role_on_the_seat() -> None:
    clock = VirtualScheduler()
    table = SimTable(3, clock.now, remote=False)
    cards = pile("killer", "police", "civilian", "civilian", "killer")
    enroll = Enrollment(table, "club-red", ROLES, Lang.EN, variant="standard-2.0")
    deck = drive(table, clock, enroll.script(), SimPeople(table, clock, pile=cards))
    assert isinstance(deck, Deck)
    assert [(c.uid, c.role) for c in deck.cards] == cards
    assert deck.variant == "standard-2.0"
    assert table.seats[2].image.tobytes() == render(Message("Enrollment done", "5 cards"), Lang.EN).tobytes()


def test_a_card_with_an_ndef_role_is_enrolled_without_choosing() -> None:
    clock = VirtualScheduler()
    table = SimTable(2, clock.now, remote=False)
    texts = {card_uid(1): ["杀手"], card_uid(2): ["Police"]}
    enroll = Enrollment(table, "tagged", ROLES, Lang.EN, card_texts=lambda seat, uid: done(texts.get(uid, [])))
    deck = drive(table, clock, enroll.script(), SimPeople(table, clock, pile=pile("killer", "police")))
    assert isinstance(deck, Deck)
    assert [c.role for c in deck.cards] == ["killer", "police"]
    assert not any(e for e in table.inputs if getattr(e, "button", None) is Button.NEXT), "no role was chosen"


def done(texts: list[str]) -> Future[tuple[str, ...]]:
    """A read that has already finished (the sim table has no reader thread)."""
    future: Future[tuple[str, ...]] = Future()
    future.set_result(tuple(texts))
    return future


def script_of(table: SimTable, clock: VirtualScheduler, steps: list[tuple[float, Callable[[], None]]]) -> None:
    for at, action in steps:
        clock.call_at(at, action)


def test_seat_2_taps_an_enrolled_card_again_and_is_told_so() -> None:
    clock = VirtualScheduler()
    table = SimTable(2, clock.now, remote=False)
    enroll = Enrollment(table, "d", ROLES, Lang.EN)
    script_of(table, clock, [
        (1.0, lambda: table.tap(1, "04AABBCC")),
        (2.0, lambda: table.click(1, Button.NEXT)),  # killer -> police
        (3.0, lambda: table.click(1, Button.OK)),
        (4.0, lambda: table.tap(2, "04:aa:bb:cc")),  # the same card, written another way
        (5.0, lambda: table.click(1, Button.OK)),  # done
    ])
    seen: list[bytes] = []
    clock.call_at(4.5, lambda: seen.append(table.seats[2].image.tobytes()))
    deck = drive(table, clock, enroll.script())
    assert isinstance(deck, Deck)
    assert deck.cards == (Card("04AABBCC", "police"),)
    assert seen == [render(Message("Already enrolled", "Police"), Lang.EN).tobytes()]


def test_a_card_whose_role_is_never_chosen_is_not_enrolled_and_nothing_hangs() -> None:
    clock = VirtualScheduler()
    table = SimTable(1, clock.now, remote=False)
    notes: list[str] = []
    enroll = Enrollment(table, "d", ROLES, Lang.EN, choose_s=10, idle_s=30, note=notes.append)
    clock.call_at(1.0, lambda: table.tap(1, "04AABBCC"))
    deck = drive(table, clock, enroll.script())
    assert isinstance(deck, Deck)
    assert deck.cards == ()
    assert enroll.skipped == ["04AABBCC"]
    assert any("no role chosen in time" in n for n in notes)
    assert clock.now() == pytest.approx(1.0 + 10 + 30)


def test_enroll_stops_after_count_cards() -> None:
    clock = VirtualScheduler()
    table = SimTable(2, clock.now, remote=False)
    enroll = Enrollment(table, "d", ROLES, Lang.EN, count=2)
    deck = drive(table, clock, enroll.script(), SimPeople(table, clock, pile=pile("civilian", "killer", "police")))
    assert isinstance(deck, Deck)
    assert [c.role for c in deck.cards] == ["civilian", "killer"]


@pytest.mark.parametrize("text, role", [("killer", "killer"), ("杀手", "killer"), ("KILLER", "killer"),
                                        ("Civilian", "civilian"), ("good", "civilian"), ("bandit", "killer"),
                                        ("wizard", None), ("", None)])
def test_role_from_a_cards_text(text: str, role: str | None) -> None:
    assert role_from_text(text, ROLES) == role


# --- check ---------------------------------------------------------------------------------------------------
def club_deck() -> Deck:
    cards = tuple(Card(uid, role, f"#{i}") for i, (uid, role) in enumerate(pile("killer", "police", "civilian"), 1))
    return Deck("club", cards, None, "", {c.uid: c for c in cards})


def test_every_card_tapped_means_the_deck_is_complete() -> None:
    clock = VirtualScheduler()
    table = SimTable(3, clock.now, remote=False)
    check = drive(table, clock, DeckCheckRun(table, club_deck(), Lang.EN).script(),
                  SimPeople(table, clock, pile=pile("killer", "police", "civilian")))
    assert isinstance(check, DeckCheck)
    assert check.ok
    assert table.seats[3].image.tobytes() == render(
        Message("Deck complete", "missing 0 · twice 0 · foreign 0"), Lang.EN).tobytes()


def test_check_finds_the_missing_the_twice_tapped_and_the_foreign_card() -> None:
    clock = VirtualScheduler()
    table = SimTable(3, clock.now, remote=False)
    notes: list[str] = []
    run = DeckCheckRun(table, club_deck(), Lang.EN, note=notes.append)
    script_of(table, clock, [
        (1.0, lambda: table.tap(1, card_uid(1))),
        (2.0, lambda: table.tap(3, "04FFFFFFFF")),  # not in the deck
        (3.0, lambda: table.tap(2, card_uid(1))),  # again
        (4.0, lambda: table.tap(1, card_uid(2))),
        (5.0, lambda: table.click(2, Button.OK)),  # card 3 is lost
    ])
    check = drive(table, clock, run.script())
    assert isinstance(check, DeckCheck)
    assert [c.role for c in check.missing] == ["civilian"]
    assert check.duplicated == (card_uid(1),)
    assert check.foreign == ("04FFFFFFFF",)
    assert "seat 3: foreign card 04FFFFFFFF: not in deck club" in notes
    assert "seat 2: card 04D1A600000001 (killer) was already tapped on seat 1" in notes
    assert describe(check, club_deck()) == [
        f"missing: {card_uid(3)} civilian (printed #3)",
        f"tapped twice: {card_uid(1)} killer",
        "foreign: 04FFFFFFFF is not in deck club",
        "deck club: missing 1 · twice 1 · foreign 1",
    ]


def test_the_foreign_card_is_named_on_the_seat_where_it_was_tapped() -> None:
    clock = VirtualScheduler()
    table = SimTable(3, clock.now, remote=False)
    run = DeckCheckRun(table, club_deck(), Lang.EN, idle_s=5)
    clock.call_at(1.0, lambda: table.tap(3, "04FFFFFFFF"))
    seen: list[bytes] = []
    clock.call_at(1.5, lambda: seen.append(table.seats[3].image.tobytes()))
    drive(table, clock, run.script())
    assert seen == [render(Message("Foreign card!", "not in deck club"), Lang.EN).tobytes()]


def test_an_enrolled_deck_is_saved_and_loads_back(tmp_path: Path) -> None:
    clock = VirtualScheduler()
    table = SimTable(2, clock.now, remote=False)
    cards = pile("killer", "police", "civilian")
    deck = drive(table, clock, Enrollment(table, "club-red", ROLES, Lang.ZH, variant="standard-2.0").script(),
                 SimPeople(table, clock, pile=cards))
    assert isinstance(deck, Deck)
    save_deck(deck, tmp_path / "club-red.toml")
    loaded = load_deck("club-red", roles=ROLES, decks_dir=tmp_path)
    assert [(c.uid, c.role) for c in loaded.cards] == cards
    assert loaded.role_of(card_uid(2)) == "police"
