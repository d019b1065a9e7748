"""Classic 1.0, the entry game: V1.1–V1.4."""

from controller.rules.events import Dawn, Died, GameEnded
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game


def test_v1_1_six_to_ten_players_get_two_killers_eleven_to_twenty_three():
    v = load_variant("classic-1.0")
    assert dict(configure(v, 6).composition) == {"killer": 2, "civilian": 4}
    assert dict(configure(v, 10).composition) == {"killer": 2, "civilian": 8}
    assert dict(configure(v, 11).composition) == {"killer": 3, "civilian": 8}
    assert dict(configure(v, 20).composition) == {"killer": 3, "civilian": 17}


def test_v1_1_the_judge_is_never_counted():
    # "a 13-person game" is a judge and 12 card holders: 12 cards are dealt.
    g = Game("classic-1.0", "K K C C C C C C C C C C")
    assert len(g.state.roles) == 12 and g.state.players == 12


def test_v1_2_killers_agree_on_one_victim_who_leaves_the_game():
    g = Game("classic-1.0", "K K C C C C")
    assert g.step == "kill" and g.waiting.seats == (1, 2)
    g.night(kill=5)
    dawn = g.of(Dawn)[0]
    assert dawn.deaths == ((5, "killed"),)
    assert 5 not in g.alive


def test_v1_3_the_vote_executes_one_suspect_good_or_killer_and_every_dead_may_speak():
    g = Game("classic-1.0", "K K C C C C C")
    g.night(kill=5)
    assert g.step == "last_words"  # V1.3 decision: every dead player speaks once
    g.talk()
    g.hands({3: [1, 2, 4, 6]})  # an innocent is voted out
    assert g.of(Died)[-1].seat == 3 and g.of(Died)[-1].cause == "executed"
    assert g.step == "last_words.executed"


def test_v1_3_ties_are_revoted():
    g = Game("classic-1.0", "K K C C C C C")
    g.night(kill=5)
    g.talk()
    g.hands({3: [1, 2], 4: [6, 7]})
    assert g.step == "revote" and [c for c in g.waiting.choices if c] and set(g.waiting.choices) == {3, 4, None}


def test_v1_4_good_wins_when_all_killers_are_found():
    g = Game("classic-1.0", "K K C C C C C")
    g.night(kill=7)
    g.talk()
    g.hands({1: [2, 3, 4, 5, 6]})
    g.talk()
    g.night(kill=6)
    g.talk()
    g.hands({2: [3, 4, 5]})
    assert g.winner == "good" and g.of(GameEnded)[0].winner == "good"


def test_v1_4_killers_win_when_all_good_players_are_dead():
    g = Game("classic-1.0", "K K C C", )
    g.night(kill=3)
    g.talk()
    g.hands({4: [1, 2]})
    assert g.winner == "killers"
