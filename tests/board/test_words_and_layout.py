"""What the big screen says and where: both languages, every glyph present, and every line inside the screen
whatever the state and the screen's size (a 12-seat ending on a small HDMI panel still fits)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.board.layout import base_scales, face, layout
from controller.board.words import GESTURES, Size, Tone, board_lines, every_word
from controller.screens.strings import ROLES, SIDES

from .samples import SAMPLES, TWELVE


def texts(public: dict[str, object], lang: str) -> list[str]:
    return [p.text for p in layout(public, (1280, 720), lang)]


def test_chinese_is_the_default_and_english_is_there_too() -> None:
    speech = SAMPLES["speech"]
    assert texts(speech, "zh") == [p.text for p in layout(speech, (1280, 720))]
    assert texts(speech, "zh")[:2] == ["第1天 · 发言", "6号  87秒"]
    assert texts(speech, "en")[:2] == ["Day 1 · Speech", "Seat 6  87s"]


def test_at_night_the_headline_counts_nights_not_days() -> None:
    assert texts(SAMPLES["night"], "zh") == ["第1夜 · 天黑请闭眼"]
    assert texts(SAMPLES["night"], "en") == ["Night 1 · Night: eyes closed"]


def test_a_vote_on_seat_3_and_the_announced_tally() -> None:
    said = texts(SAMPLES["vote"], "zh")
    assert "投3号？" in said and "计票：3号4票  7号2票" in said and "3号出局" in said


def test_a_tie_names_the_tied_seats_and_no_one_out() -> None:
    said = texts(SAMPLES["tie"], "en")
    assert "Tie: #3  #7" in said and not any("is out" in t for t in said)


def test_at_the_end_the_winner_and_every_seat_with_its_role_in_words() -> None:
    said = " ".join(texts(SAMPLES["over"], "zh"))
    assert "好人胜" in said and "1号 杀手" in said and "5号 秘密警察" in said and "12号 杀手" in said
    said_en = " ".join(texts(SAMPLES["over"], "en"))
    assert "Good side won" in said_en and "5: Secret police" in said_en and "killer" not in said_en


def test_a_draw_is_said_as_a_draw() -> None:
    assert "平局" in texts({**SAMPLES["over"], "winner": "draw"}, "zh")


def test_the_deal_shows_no_day_and_an_unknown_gesture_shows_itself() -> None:
    assert board_lines({"gesture": "deal"}, "zh")[0].text == "发牌"
    assert board_lines({"gesture": "sunrise", "day": 1, "night": 1}, "en")[0].text == "Day 1 · sunrise"


def test_every_board_word_and_every_role_and_side_has_a_glyph() -> None:
    f = face(1)
    words = every_word() + [w for table in (ROLES, SIDES) for pair in table.values() for w in pair]
    missing = {w: f.missing(w) for w in words if f.missing(w)}
    assert not missing, f"board words with no Unifont glyph: {missing}"


def test_a_1080p_screen_draws_headlines_at_x11_and_details_at_x4() -> None:
    assert base_scales(1080) == {Size.BIG: 11, Size.SMALL: 4}
    head = layout(SAMPLES["speech"], (1920, 1080), "zh")[0]
    assert (head.scale, head.tone, head.height) == (11, Tone.ACCENT, 176)


def test_a_list_wraps_between_seats_never_inside_one() -> None:
    placed = layout(SAMPLES["over"], (640, 360), "zh")
    role_lines = [p.text for p in placed if p.text.startswith(("1号", "7号"))]
    assert len(role_lines) == 2
    items = [item for line in role_lines for item in line.split("  ")]
    assert items[:2] == ["1号 杀手", "2号 平民"] and items[-1] == "12号 杀手"


facts = st.fixed_dictionaries(
    {"gesture": st.sampled_from(sorted(GESTURES)), "night": st.integers(0, 20), "day": st.integers(0, 20),
     "dead": st.lists(st.integers(1, 20), max_size=19, unique=True)},
    optional={"speaker": st.integers(1, 20), "seconds": st.integers(0, 600), "candidate": st.integers(1, 20),
              "tally": st.lists(st.tuples(st.integers(1, 20), st.integers(1, 20)).map(list), min_size=1,
                                max_size=10),
              "tied": st.lists(st.integers(1, 20), max_size=6), "out": st.integers(1, 20),
              "winner": st.sampled_from(sorted(SIDES)),
              "roles": st.lists(st.sampled_from(sorted(set(TWELVE) | set(ROLES))), min_size=4, max_size=20)
              .map(lambda rs: {str(i): r for i, r in enumerate(rs, start=1)})})


@settings(max_examples=150, deadline=None)
@given(public=facts, lang=st.sampled_from(["zh", "en"]),
       size=st.sampled_from([(1920, 1080), (1280, 720), (1024, 768), (800, 480), (640, 360)]))
def test_every_line_fits_the_screen_and_none_overlap(public: dict[str, object], lang: str,
                                                     size: tuple[int, int]) -> None:
    w, h = size
    placed = layout(public, size, lang)
    assert placed[0].tone is Tone.ACCENT  # the gesture always leads
    for above, below in itertools.pairwise(placed):
        assert above.y + above.height <= below.y, f"{above.text!r} overlaps {below.text!r}"
    for p in placed:
        assert p.x >= 0 and p.x + p.width <= w, f"{p.text!r} is {p.width} px wide on a {w} px screen"
    assert placed[-1].y + placed[-1].height <= h, f"{len(placed)} lines overflow a {h} px screen"


def test_d2_the_board_names_card_places_as_seat_and_card_like_the_voice_and_the_seats() -> None:
    """dual-card-5.0 at 8 players: place 13 is seat 7's first card; the room sees "7-1", never "13"."""
    public = {"gesture": "vote", "day": 2, "night": 2, "numbering": "seat_and_card", "candidate": 13,
              "dead": [4, 9], "tally": [[13, 5], [6, 2]], "out": 13}
    en = texts(public, "en")
    assert "Vote for seat 7-1?" in en
    assert en == ["Day 2 · Vote", "Vote for seat 7-1?", "Out: 2-2  5-1", "Votes: 7-1:5  3-2:2", "Seat 7-1 is out"]
    assert "投7-1号？" in texts(public, "zh")


def test_d2_the_public_facts_say_their_numbers_are_card_places() -> None:
    from controller.board.public import public_facts
    from controller.rules.engine import new_game
    from controller.rules.setup import configure
    from controller.rules.variant import load_variant

    d2, _ = new_game(configure(load_variant("dual-card-5.0"), 16), seed=1)
    single, _ = new_game(configure(load_variant("standard-2.0"), 12), seed=1)
    assert public_facts(d2, [])["numbering"] == "seat_and_card"
    assert "numbering" not in public_facts(single, [])


def test_the_idiots_card_voted_out_is_on_the_board_until_the_end() -> None:
    """W9: voted out, the idiot shows his card to the room and stays: the board shows it in the board's words;
    nothing else of a role is public before the end."""
    from controller.board.public import public_facts
    from tests.rules.table import Game

    g = Game("werewolf-12", "werewolf werewolf werewolf werewolf seer witch hunter idiot villager villager villager "
                            "villager", {"sheriff": False})  # the election is tests/rules/test_sheriff.py's
    g.night()
    g.talk()
    g.hands({8: [1, 2, 3, 4, 5, 6, 7]})
    g.night()
    facts = public_facts(g.state, g.events)
    assert facts["shown"] == {"8": "idiot"} and "roles" not in facts
    zh = [(line.text, line.items) for line in board_lines(facts, "zh")]
    assert ("亮牌：", ("8号 白痴",)) in zh
    assert ("Shown: ", ("8: Idiot",)) in [(line.text, line.items) for line in board_lines(facts, "en")]
