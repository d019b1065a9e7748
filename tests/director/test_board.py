"""The public big screen (Board port; 004 §3.2, §3.10, §3.13): the day, who died, whose speech, the vote and the
judge's gestures; never a role or a night choice before the end (C4)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.board.sim import SimBoard
from controller.rules.events import NightFell
from controller.screens import views as v
from tests.director.helpers import ScriptedTable, play, session
from tests.director.test_scenarios import CARDS, first_day

PUBLIC_KEYS = {"gesture", "night", "day", "dead", "speaker", "seconds", "candidate", "tally", "out", "tied"}


def test_the_board_shows_night_then_the_dead_the_last_words_the_vote_and_at_the_end_every_role():
    t = first_day(kill=5, check=1)
    board = SimBoard()
    t.director.board = board
    t.until_window("last_words")
    assert board.last["dead"] == [5] and board.last["gesture"] == "last_words" and board.last["speaker"] == 5
    t.talk()
    w = t.until_window("vote", open_=True)
    assert board.last["gesture"] == "vote" and board.last["candidate"] == w.call[0]
    assert "roles" not in board.last
    t.menu("abort")  # the judge ends the game: now the room may see every role
    assert board.last["gesture"] == "over"
    assert board.last["roles"] == {str(s): r for s, r in t.roles.items()}


def test_at_night_the_board_shows_only_that_eyes_are_closed():
    t = first_day(kill=6, check=2)
    board = SimBoard()
    t.director.board = board
    t.talk()
    t.run_until(lambda: t.director.state.phase == "night")
    t.until_window("night", "check")
    assert board.last == {"gesture": "eyes_closed", "night": 2, "day": 1, "dead": board.last["dead"]}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from([("classic-1.0", 10), ("standard-2.0", 12), ("v3.0", 13), ("five-identities", 12)]),
       seed=st.integers(0, 10_000))
def test_nothing_on_the_board_before_the_end_reveals_a_role_or_a_night_choice(variant, seed):
    name, players = variant
    s = session(name, players, seed=seed)
    board = SimBoard()
    s.director.board = board
    play(s)
    d = s.director
    role_ids = set(d.config.variant.roles)
    before_end = [h for h in board.history if h.get("gesture") != "over"]
    assert before_end and board.last["gesture"] == "over"
    night = None
    for shown in before_end:
        assert set(shown) <= PUBLIC_KEYS, f"not public: {set(shown) - PUBLIC_KEYS}"
        text = json.dumps(shown)
        assert not any(f'"{r}"' in text for r in role_ids), text
        if shown.get("gesture") == "eyes_closed":
            # nothing moves on the board while eyes are closed: no pick, no check, no death before dawn
            if night is not None and night[0] == shown["night"]:
                assert shown == night[1]
            night = (shown["night"], shown)
    nights = sum(1 for e in d.events if isinstance(e, NightFell))
    assert nights == 0 or any(h.get("gesture") == "eyes_closed" for h in before_end)


def test_the_pygame_board_draws_each_public_state(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    pygame_board = pytest.importorskip("controller.board.pygame_board")
    board = pygame_board.PygameBoard((320, 180))
    try:
        for facts in ({"gesture": "deal"}, {"gesture": "eyes_closed", "night": 1, "day": 0, "dead": []},
                      {"gesture": "speech", "night": 1, "day": 1, "dead": [5], "speaker": 6, "seconds": 87},
                      {"gesture": "vote", "night": 1, "day": 1, "dead": [5], "candidate": 3,
                       "tally": [[3, 4]], "out": 3, "tied": []},
                      {"gesture": "over", "night": 2, "day": 2, "dead": [3, 5], "winner": "good",
                       "roles": {"1": "killer", "2": "civilian"}}):
            board.show(facts)
        assert board.frames == 5
        assert board.screen.get_at((0, 0))[:3] == pygame_board.BACKGROUND
    finally:
        board.close()


def test_while_the_police_see_their_answer_the_board_still_shows_the_night_not_its_victim():
    """The police's eyes are open while they read their answer: the board must not show the night's victim (nor
    that day has broken) before the voice says dawn (004 §3.2: who died is told at dawn)."""
    t = ScriptedTable("standard-2.0", CARDS)
    board = SimBoard()
    t.director.board = board
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 6)
    t.point(2, 6)
    t.until_window("night", "check")
    night = dict(board.last)
    t.point(3, 1)
    t.point(4, 1)
    t.run_for(0.1)  # the answer is on the police's screens; the engine has already reached the day
    assert t.director.state.phase == "day" and isinstance(t.screen(3), v.PoliceAnswer)
    assert board.last == night and 6 not in board.last["dead"]
    t.until_window("last_words")
    assert board.last["gesture"] == "last_words" and board.last["dead"] == [6]
    seen = [h for h in board.history if 6 in h.get("dead", [])]
    assert all(h["gesture"] != "eyes_closed" for h in seen)
