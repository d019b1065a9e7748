"""The 狼人杀 day (RULES.md W12-W14) on the werewolf-9 board, played seat by seat: the W13 tie (the tied speak
again, the others vote among them, a second tie and nobody is out), W12's last words (the first night's dead and
every death by day, not the night's dead after night 1) and W14's two win tables (屠边, or 屠城 with win.all)."""

from __future__ import annotations

from controller.rules import win
from controller.rules.actions import Pick, Vote
from controller.rules.events import Died, Opened, TieRound, VoteClosed
from controller.rules.state import evolve
from tests.rules.table import Game

BOARD = "werewolf-9"  # a built-in variant (controller/variants/)
#: Seats 1-3 werewolves, 4 the seer, 5 the witch, 6 the hunter, 7-9 villagers.
CARDS = "werewolf werewolf werewolf seer witch hunter villager villager villager"


def a_first_day(options: dict[str, object] | None = None) -> Game:
    """Night 1: the werewolves kill seat 7, the witch keeps her potions, the seer checks seat 1; seat 7's last
    words and the speeches are over: the day's vote is open."""
    g = Game(BOARD, CARDS, options)
    g.night(kill=7, check=1)
    assert g.step == "last_words" and g.speakers() == [7]  # W12: the first night's dead leave last words
    g.talk()
    assert g.step == "vote"
    return g


def test_a_tie_the_tied_speak_again_and_only_the_others_vote_among_them_a_second_tie_nobody_is_out() -> None:
    g = a_first_day()
    g.hands({1: [4, 5], 8: [2, 3]})
    closed = g.of(VoteClosed)[-1]
    assert sorted(closed.tally) == [(1, 2), (8, 2)] and closed.out is None and sorted(closed.tied) == [1, 8]
    assert g.of(TieRound)[-1] == TieRound("others_revote", 1, closed.tied)  # W13
    assert g.step == "tie.speak" and sorted(g.speakers()) == [1, 8]
    g.talk()
    assert g.step == "revote" and g.waiting is not None
    assert sorted(g.waiting.seats) == [2, 3, 4, 5, 6, 9]  # the tied seats 1 and 8 do not vote
    assert sorted(c for c in g.waiting.choices if c is not None) == [1, 8]
    assert g.rejects(Vote(1, 8)) == "not_voter"
    g.hands({1: [4, 5], 8: [2, 3]})
    assert g.of(TieRound)[-1].outcome == "nobody_out"  # W13: a second tie, nobody is out
    assert not [e for e in g.of(Died) if e.cause == "executed"]
    assert g.state.phase == "night" and g.state.night == 2


def test_a_revote_that_decides_puts_the_player_out() -> None:
    g = a_first_day()
    g.hands({1: [4, 5], 8: [2, 3]})
    g.talk()
    g.hands({1: [4, 5, 6]})
    assert g.of(Died)[-1] == Died(1, "executed")


def test_the_night_s_dead_after_night_1_leave_no_last_words_the_voted_out_and_the_shot_do() -> None:
    g = a_first_day()
    g.hands({5: [1, 2, 3]})  # the witch voted out on day 1
    assert g.step == "last_words.executed"
    g.talk()
    g.night(kill=8, check=2)
    assert g.state.night_dead == (8,)
    assert g.step == "speeches" and 8 not in g.speakers()  # W12: no words for night 2's dead
    g.talk()
    g.hands({6: [1, 2, 3]})  # the hunter voted out on day 2
    assert g.step == "last_words.executed" and g.speakers() == [6]  # W12
    g.talk()
    assert g.step == "on_death.hunter"  # W8: after the last words
    g.do(Pick(6, 1))
    assert g.of(Died)[-1] == Died(1, "shot")
    assert g.step == "last_words.shot" and g.speakers() == [1]  # W12: shot by day, last words


def test_with_every_villager_dead_the_werewolves_win_by_the_side_and_play_on_with_win_all() -> None:
    for options, expected in (({}, "killers"), ({"win.all": True}, None)):
        g = Game(BOARD, CARDS, options)
        no_villager = evolve(g.state, alive=frozenset({1, 2, 3, 4, 5, 6}))
        result = win.check(no_villager)
        assert (result[0] if result else None) == expected  # W14: 屠边, or 屠城 plays on
        no_good = evolve(g.state, alive=frozenset({1, 2}))
        assert win.check(no_good) is not None and win.check(no_good)[0] == "killers"  # type: ignore[index]


def test_the_first_vote_s_step_is_announced_as_a_vote_of_everyone_alive() -> None:
    g = a_first_day()
    opened = [e for e in g.events if isinstance(e, Opened) and e.kind == "vote"][-1]
    assert sorted(opened.seats) == [1, 2, 3, 4, 5, 6, 8, 9]  # W13: each living player with a vote
