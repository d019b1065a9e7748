"""Text wraps and shrinks to fit; nothing is ever clipped silently (strict rendering raises on any overflow,
missing glyph or pixel off the screen). Hypothesis throws every role, action, seat number and countdown the
table can produce at the layouts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.screens import ScreenOverflow, render
from controller.screens import views as v
from controller.screens.canvas import Canvas, wrap
from controller.screens.fonts import MEDIUM, SMALL
from controller.screens.strings import ACTIONS, ROLES, SIDES, Lang

seats = st.integers(min_value=1, max_value=20)
langs = st.sampled_from(list(Lang))
countdowns = st.builds(v.Countdown, st.floats(min_value=0, max_value=600), st.sampled_from([3.0, 30.0, 600.0]))
roles = st.sampled_from(sorted(ROLES))
picks = st.lists(st.tuples(seats, st.one_of(st.none(), seats)), max_size=4).map(tuple)

any_seat_view = st.one_of(
    st.builds(v.CheckIn, seats, st.booleans()),
    st.builds(v.TapCard, seats, st.booleans()),
    st.builds(v.RoleReveal, seats, roles, st.lists(seats, max_size=4, unique=True).map(tuple), st.booleans()),
    st.builds(v.CardProblem, st.sampled_from(list(v.CardProblemKind)), seats,
              st.lists(st.tuples(roles, st.integers(1, 9)), max_size=2, unique_by=lambda t: t[0]).map(tuple),
              st.lists(st.tuples(roles, st.integers(1, 9)), max_size=1).map(tuple)),
    st.builds(v.NightChoice, st.sampled_from(sorted(ACTIONS)), st.one_of(st.none(), seats), countdowns, picks,
              st.booleans()),
    st.builds(v.PoliceAnswer, seats, st.sampled_from(list(v.Answer))),
    st.builds(v.Dead, seats),
    st.builds(v.Speaking, seats, countdowns, st.booleans()),
    st.builds(v.YourSpeech, countdowns, st.booleans(), st.booleans()),
    st.builds(v.VoteCall, seats, countdowns, st.booleans(), st.one_of(st.none(), seats)),
    st.builds(v.VoteFeedback, st.sampled_from(list(v.VoteResult)), seats),
    st.builds(v.Tally, st.lists(st.tuples(seats, st.integers(0, 20)), max_size=20, unique_by=lambda t: t[0])
              .map(tuple), st.one_of(st.none(), seats), st.lists(seats, max_size=6, unique=True).map(tuple)),
    st.builds(v.GameOver, st.sampled_from(sorted(SIDES)), roles, st.one_of(st.none(), st.booleans())),
)


@settings(max_examples=300, deadline=None)
@given(view=any_seat_view, lang=langs)
def test_every_seat_view_fits_the_screen(view: v.View, lang: Lang) -> None:
    image = render(view, lang, strict=True)
    assert image.size == (128, 64) and image.mode == "1"


def test_night_is_fully_dark() -> None:
    """Non-waking seats at night light no pixel at all: no light leak past closed eyes, no burn-in."""
    for lang in Lang:
        assert render(v.Dark(), lang).getbbox() is None


def test_a_long_message_is_truncated_loudly_not_clipped() -> None:
    long = v.Message("A very long title that cannot possibly fit on one line of the screen", "word " * 80)
    with pytest.raises(ScreenOverflow, match="Message\\[en\\]"):
        render(long, "en", strict=True)
    image = render(long, "en")  # in a live game: drawn, truncated with an ellipsis, and logged
    assert image.getbbox() is not None


def test_a_character_without_a_glyph_is_reported() -> None:
    with pytest.raises(ScreenOverflow, match=r"no .* glyph"):
        render(v.Message("𝄞 music"), "en", strict=True)


def test_unknown_view_type_names_the_known_ones() -> None:
    class Strange(v.View):
        pass

    with pytest.raises(TypeError, match="no screen layout for Strange"):
        render(Strange())


def test_bad_language_is_named() -> None:
    with pytest.raises(ValueError, match="'fr' is not one of: zh, en"):
        render(v.Dark(), "fr")


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("杀手警察平民，。 abcdefghij OK12 ")), max_size=60),
       width=st.integers(min_value=24, max_value=128))
def test_wrapping_keeps_every_character_and_respects_the_width(text: str, width: int) -> None:
    for face in (SMALL, MEDIUM):
        lines = wrap(text, face, width)
        assert all(face.width(line) <= width for line in lines)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_chinese_closing_punctuation_never_starts_a_line() -> None:
    lines = wrap("每人只刷一张牌，请等法官处理。", MEDIUM, 7 * 16)
    assert all(not line.startswith(("，", "。")) for line in lines), lines


def test_fit_shrinks_before_it_wraps_too_far() -> None:
    canvas = Canvas.new("test")
    face = canvas.fit("Secret police", (0, 0, 128, 32), (MEDIUM, SMALL))
    assert face is MEDIUM and not canvas.problems
