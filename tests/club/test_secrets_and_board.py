"""The club learns a game's roles only once it has ended (C4), and the board's standings say what they should."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.board.words import board_lines
from controller.club.record import build_record
from controller.rules.events import GameEnded
from tests.club.helpers import played_events


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 5000), cut=st.floats(0, 1), players=st.integers(8, 16))
def test_no_record_and_so_no_role_reaches_the_club_before_the_game_has_ended(seed, cut, players):
    events = played_events(seed, players=players)
    n = int(cut * len(events))
    prefix = events[:n]
    record = build_record(prefix, [], table="t", journal_game=1)
    ended = any(isinstance(e, GameEnded) for e in prefix)
    assert (record is not None) == ended
    if record is not None:
        assert record.winner in ("good", "killers", "draw")


def test_between_games_the_board_ranks_the_evening():
    facts = {"gesture": "standings", "standings": [{"rank": 1, "member": "Ming", "points": 18.013},
                                                   {"rank": 2, "member": "Hua", "points": 17.0}]}
    zh = [line.text for line in board_lines(facts, "zh")]
    en = [line.text for line in board_lines(facts, "en")]
    assert zh == ["今晚积分榜", "1. Ming  18分", "2. Hua  17分"]
    assert en == ["Tonight's standings", "1. Ming  18", "2. Hua  17"]
    assert [line.text for line in board_lines({"gesture": "standings", "standings": []}, "en")] == [
        "Tonight's standings", "No game has ended tonight"]
