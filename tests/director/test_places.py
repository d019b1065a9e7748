"""D2 (dual-card 5.0, both cards live) at a table of one seat per player: each seat acts for its two card places
(player k holds places 2k-1 and 2k), card 1 first, on its one screen and buttons."""

from __future__ import annotations

import pytest

from controller.director.places import MAX_PLACES, PlaceTable, check_table, places_of, seat_of
from controller.ports import Button
from controller.rules.events import VoteClosed
from controller.screens import render
from controller.screens import views as v
from controller.screens.numbering import seat_and_card
from tests.director.helpers import play, session


def table_at(step: str, seed: int = 3):
    s = session("dual-card-5.0", 8, seed, None)
    s.start()
    d = s.director
    s.clock.run(until=lambda: d.window is not None and d.window.step == step and not d.beats
                and d.beat_handle is None, max_time=600)
    assert d.window is not None and d.window.step == step
    return s, d


def test_eight_seats_hold_sixteen_places_card_one_and_card_two():
    s = session("dual-card-5.0", 8, 1, None)
    assert isinstance(s.table, PlaceTable)
    assert len(s.physical.seats) == 8 and len(s.table.seats) == 16
    assert [places_of(k) for k in (1, 8)] == [(1, 2), (15, 16)]
    assert [seat_of(p) for p in (1, 2, 15, 16)] == [1, 1, 8, 8]


def test_a_killer_card_points_from_its_own_seat_and_the_seat_then_shows_its_other_card():
    s, d = table_at("kill")
    killer = d.window.seats[0]
    seat = seat_of(killer)
    assert s.table.shown[seat] == killer  # the seat acts for its killer card
    assert isinstance(d.ui[killer].drawn, v.NightChoice)
    target = next(c for c in engine_choices(d) if c is not None and seat_of(c) != seat)
    while d.ui[killer].cursor != target:
        s.physical.click(seat, Button.NEXT)
    s.physical.click(seat, Button.OK)
    assert d.state.picks.get(killer) == target or any(a.actors == (killer,) for a in d.state.acts)
    other = next(p for p in places_of(seat) if p != killer)
    if d.window is not None and other in d.window.seats and other not in d.state.picks:
        assert s.table.shown[seat] == other  # two killer cards in one hand: card 2 points next


def engine_choices(d):
    from controller.rules import engine

    return engine.pending(d.state).choices


def test_a_player_with_two_living_cards_raises_a_hand_twice_for_two_votes():
    s, d = table_at("vote")
    w = d.window
    s.clock.run(until=lambda: w.call is not None and w.window_open, max_time=s.clock.now() + 60)
    candidate = w.call[0]
    seat = next(k for k in range(1, 9) if all(p in d.state.alive for p in places_of(k)))
    s.physical.click(seat, Button.OK)
    s.physical.click(seat, Button.OK)
    assert {d.state.picks.get(p) for p in places_of(seat)} == {candidate}
    s.physical.click(seat, Button.OK)  # a third hand: nobody is left to vote at this seat
    assert sum(1 for p in places_of(seat) if p in d.state.picks) == 2


@pytest.mark.parametrize("policy", ["heuristic", "random", "uninformed"])
def test_d2_plays_to_the_end_with_bots_pressing_the_eight_seats(policy):
    r = play(session("dual-card-5.0", 8, 4, policy))
    assert r["winner"] in ("killers", "good", "draw") and r["players"] == 16


def test_a_table_whose_votes_the_voice_cannot_count_is_refused_clearly():
    """Every living card votes: 21 players' 42 cards could give one card 42 hands, the packs count up to 40 (no
    role table of the variant goes that far; a club's own variant file could)."""
    with pytest.raises(ValueError, match=r"42 card places.*42 hands.*counts votes up to 40.*at most 20 players"):
        check_table("dual-card-5.0", 42)
    check_table("dual-card-5.0", 32)  # the largest hardware profile (16 seats)
    check_table("dual-card-5.0", MAX_PLACES)


@pytest.mark.parametrize("players", [16, 20])
def test_the_largest_tables_play_to_the_end_with_the_bots_that_pile_up_hands(players):
    """16 players (the largest hardware profile) and 20 (the variant's largest row, on the simulated table):
    uninformed bots vote as one, so a card may get a hand from every living card; the voice says every count."""
    s = session("dual-card-5.0", players, 4, "uninformed")
    r = play(s)
    assert r["players"] == 2 * players and len(s.physical.seats) == players
    hands = max(n for e in s.director.events if isinstance(e, VoteClosed) for _p, n in e.tally)
    assert 20 < hands <= MAX_PLACES  # more hands than the packs could once count


def test_a_seat_screen_names_a_card_place_as_the_seat_and_its_card():
    """An 8-player table votes on place 13: every physical seat reads "7-1" (seat 7, card 1), never "13"."""
    s, d = table_at("vote")
    w = d.window
    s.clock.run(until=lambda: w.call is not None and w.window_open, max_time=s.clock.now() + 60)
    assert d.label is seat_and_card
    for seat in range(1, 9):
        place = s.table.shown[seat]
        drawn = d.ui[place].drawn
        if isinstance(drawn, v.VoteCall):
            assert s.physical.seats[seat].image.tobytes() == render(drawn, d.lang, label=seat_and_card).tobytes()
            assert s.physical.seats[seat].image.tobytes() != render(drawn, d.lang).tobytes()
            break
    else:
        pytest.fail("no seat shows the vote call")


def test_the_voice_says_a_card_place_as_its_seat_and_card():
    """D2: the director's place 13 is seat 7's first card, said "7号 第一张牌" / "Seat seven, first card"."""
    from controller.director.places import place_parts

    assert place_parts(["dawn.deaths", "seat.13", "seat.4"]) == [
        "dawn.deaths", "seat.7", "card.first", "seat.2", "card.second"]
