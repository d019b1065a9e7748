"""D2 (RULES D2, dual-card-5.0): the engine's card places are drawn as the seat the room sees and which of its
two cards ("7-1"), never as a place number a player cannot find; every other version keeps plain seat numbers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.director.places import places_of, seat_of
from controller.rules.variant import load_variant
from controller.screens import render
from controller.screens import views as v
from controller.screens.numbering import label_for, labels, plain, seat_and_card
from controller.screens.story import story
from controller.screens.strings import Lang

from .test_fit import any_seat_view

#: Places at the largest D2 table the role table allows (20 players, 40 cards).
places = st.integers(min_value=1, max_value=40)


def test_seat_seven_holds_places_thirteen_and_fourteen_drawn_as_its_first_and_second_card():
    assert [seat_and_card(p) for p in (1, 2, 13, 14, 31, 32)] == ["1-1", "1-2", "7-1", "7-2", "16-1", "16-2"]
    assert labels((13, 4), seat_and_card) == "7-1 2-2"


@given(places)
def test_a_place_label_names_the_seat_the_voice_names_and_its_card(place: int):
    seat, card = seat_and_card(place).split("-")
    assert int(seat) == seat_of(place)
    assert places_of(seat_of(place))[int(card) - 1] == place


def test_no_two_places_share_a_label():
    assert len({seat_and_card(p) for p in range(1, 41)}) == 40


def test_place_zero_is_refused_clearly():
    with pytest.raises(ValueError, match="card place 0"):
        seat_and_card(0)


@pytest.mark.parametrize(("variant", "label"), [
    ("dual-card-5.0", seat_and_card), ("dual-card-6.0", plain), ("standard-2.0", plain)])
def test_only_d2_labels_places_as_seat_and_card(variant: str, label):
    assert label_for(load_variant(variant)) is label


@settings(max_examples=200, deadline=None)
@given(view=any_seat_view, lang=st.sampled_from(list(Lang)))
def test_plain_labels_draw_exactly_what_the_single_card_versions_always_drew(view: v.View, lang: Lang):
    assert render(view, lang).tobytes() == render(view, lang, label=plain).tobytes()


d2_views = st.one_of(
    st.builds(v.NightChoice, st.sampled_from(["kill", "check", "save", "hug", "secret_kill"]),
              st.one_of(st.none(), places), st.builds(v.Countdown, st.floats(0, 60), st.just(30.0)),
              st.lists(st.tuples(places, st.one_of(st.none(), places)), max_size=4).map(tuple), st.booleans()),
    st.builds(v.VoteCall, places, st.builds(v.Countdown, st.floats(0, 2), st.just(2.0)), st.booleans(),
              st.one_of(st.none(), places)),
    st.builds(v.VoteFeedback, st.sampled_from(list(v.VoteResult)), places),
    st.builds(v.Tally, st.lists(st.tuples(places, st.integers(0, 40)), max_size=40, unique_by=lambda t: t[0])
              .map(tuple), st.one_of(st.none(), places), st.lists(places, max_size=6, unique=True).map(tuple)),
    st.builds(v.RoleReveal, places, st.sampled_from(["killer", "undercover_killer", "secret_police"]),
              st.lists(places, max_size=5, unique=True).map(tuple), st.booleans()),
    st.builds(v.PoliceAnswer, places, st.sampled_from(list(v.Answer))),
    st.builds(v.Dead, places),
    st.builds(v.JudgeSeats, st.lists(st.builds(v.JudgeSeat, places, st.sampled_from(["killer", "doctor"]),
                                               st.booleans()), max_size=40).map(tuple)),
)


@settings(max_examples=300, deadline=None)
@given(view=d2_views, lang=st.sampled_from(list(Lang)))
def test_every_d2_screen_fits_with_places_up_to_forty(view: v.View, lang: Lang):
    """The seat-and-card label is longer than a number: strict rendering proves it still fits (no clipping, every
    glyph present), from "1-1" to "20-2"."""
    image = render(view, lang, strict=True, label=seat_and_card)
    assert image.size == (128, 64)


def test_the_judges_story_names_places_as_seat_and_card():
    from controller.rules.events import Died, VoteClosed, Voted

    events = [Voted(14, 13), Voted(3, 13), VoteClosed(((13, 2),), 13, ()), Died(13, "executed")]
    lines = story(events, "en", seat_and_card)
    assert "#7-1 <- 2-1 7-2" in lines and "Vote: 7-1 is out" in lines and "7-1 voted out" in lines
