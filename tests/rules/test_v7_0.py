"""Version 7.0: angel and devil (V7.1–V7.3). Clashes of effects: test_night_matrix.py.

Table (10 players): 1-2 killers, 3-4 police, 5 angel, 6 devil, 7-10 civilians.
"""

from __future__ import annotations

import pytest

from controller.rules import clash
from controller.rules.actions import Pass, Pick, Timeout
from controller.rules.events import Acted, Dawn, Died
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game

TEN = "K K P P A V C C C C"


def v7(cards: str = TEN, **options) -> Game:
    return Game("v7.0", cards, options)


def quiet_day(g: Game) -> None:
    g.talk()
    g.hands({})


# ---- V7.1 ---------------------------------------------------------------------------------------------------

def test_v7_1_night_order_killers_police_then_the_angel_alone():
    g = v7()
    order = []
    while g.state.phase == "night":
        order.append((g.step, g.waiting.seats))
        g.act(g.step, 7 if g.step != "revive" else None)
    assert order == [("kill", (1, 2)), ("check", (3, 4)), ("revive", (5,))]  # the devil waits: killers live


def test_v7_1_the_angel_and_the_devil_see_the_police_answer():
    g = v7()
    g.night(kill=7, check=1)
    check = next(e for e in g.of(Acted) if e.step == "check")
    assert check.result == "nod"
    assert clash.learners(g.state, g.state.acts[1]) == (3, 4, 5, 6)


@pytest.mark.parametrize("seat", [5, 6])
def test_v7_1_decision_a_check_on_the_angel_or_the_devil_is_a_shake(seat):
    g = v7()
    g.night(kill=7, check=seat)
    assert g.check_result == "shake"


def test_v7_1_the_killers_can_kill_the_angel_but_not_the_devil():
    g = v7()
    g.night(kill=6)
    assert g.of(Dawn)[-1].deaths == ()
    g = v7()
    g.night(kill=5, take=None)
    assert g.of(Dawn)[-1].deaths == ((5, "killed"),)


def test_v7_1_the_devil_kills_only_after_all_killers_are_dead_and_cannot_kill_the_angel():
    g2 = v7("K P P A V C C C C C")  # one killer
    g2.night(kill=6)
    g2.talk()
    g2.hands({1: [2, 3, 4, 7, 8]})  # the last killer is voted out; the devil is now active
    g2.talk()
    g2.night(check=8, late_kill=4)
    assert g2.of(Dawn)[-1].deaths == ()  # the devil cannot kill the angel
    quiet_day(g2)
    g2.night(check=9, late_kill=7)
    assert g2.of(Dawn)[-1].deaths == ((7, "killed"),)


def test_v7_1_the_angel_dying_at_night_takes_one_along_who_leaves_no_last_words():
    g = v7()
    g.night(kill=5, take=8)
    assert g.of(Dawn)[-1].deaths == ((5, "killed"), (8, "taken_along"))
    assert g.waiting.kind == "last_words" and list(g.state.queue) == [5]


def test_v7_1_the_angel_voted_out_chooses_before_it_goes():
    g = v7()
    g.night(kill=7, revive=None)
    g.talk()
    g.hands({5: [1, 2, 3, 6]})
    assert g.waiting.kind == "night" and g.waiting.step == "take" and g.waiting.seats == (5,)
    assert 5 in g.state.alive
    g.do(Pick(5, 1))
    assert g.of(Died)[-2:] == [Died(5, "executed"), Died(1, "taken_along")]


def test_v7_1_the_revival_is_once_per_game_and_blind():
    g = v7()
    assert g.step == "kill"
    g.act("kill", 9)
    g.act("check", 1)
    assert g.waiting.choices == (5, None)  # "revive" or not: the angel is not shown the victim
    g.act("revive", 5)
    assert g.of(Dawn)[-1].deaths == ()
    quiet_day(g)
    g.act("kill", 9)
    g.act("check", 2)
    assert g.state.phase == "day"  # the angel did not wake again
    assert g.of(Dawn)[-1].deaths == ((9, "killed"),)


def test_v7_1_the_take_along_step_times_out_like_any_other():
    g = v7()
    g.night(kill=5)  # the angel's take step runs out of time
    take = next(e for e in g.of(Acted) if e.step == "take")
    assert take.how == "forfeited"
    assert g.of(Dawn)[-1].deaths == ((5, "killed"),)


# ---- V7.2 win -------------------------------------------------------------------------------------------------

def test_v7_2_killers_win_when_the_angel_and_all_police_are_dead():
    g = v7("K P A V C C C C C")
    g.night(kill=2)
    g.talk()
    g.hands({3: [1, 4, 5, 6]})
    g.do(Pick(3, None))  # the angel takes nobody
    assert g.winner == "killers"


def test_v7_2_the_police_side_wins_when_all_killers_and_the_devil_are_dead():
    g = v7("K P A V C C C C C")
    g.night(kill=5)
    g.talk()
    g.hands({1: [2, 3, 4, 6]})
    assert not g.winner  # the devil lives
    g.talk()
    g.night(check=4, late_kill=6)
    g.talk()
    g.hands({4: [2, 3, 7, 8]})
    assert g.winner == "good"


def test_v7_2_decision_the_angel_and_the_devil_alone_is_a_draw():
    g = v7("K A V C")
    g.night(kill=4)
    g.talk()
    g.hands({1: [2, 3]})
    assert g.winner == "draw"


# ---- V7.3 configurations --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "police", "killers", "civilians", "words"), [
    (10, 2, 2, 4, 3), (14, 3, 3, 6, 4), (18, 4, 4, 8, 5), (12, 2, 2, 6, 3), (13, 3, 3, 5, 4), (17, 4, 4, 7, 5)])
def test_v7_3_configurations_and_last_words(players, police, killers, civilians, words):
    config = configure(load_variant("v7.0"), players)
    assert dict(config.composition) == {"police": police, "killer": killers, "angel": 1, "devil": 1,
                                        "civilian": civilians}
    assert config.quota == words


def test_v7_3_the_three_last_words_are_the_first_three_deaths_the_taken_along_included():
    """000 7.0: 「10人局情況下是2警察2殺手1天使1魔鬼4平民，一驗一殺一投3遺言」; 「天使死時，可以抱走一人，並且此人沒有
    遺言」; V2.3 (003 §3.10): 「前面三個死人（包括被殺者和被公決者）可留遺言」. The player taken along gives no words
    but is one of the first three deaths."""
    g = v7()
    g.night(kill=5, take=8)  # deaths 1 and 2: the angel (words), seat 8 taken along (none)
    assert g.talk()[0] == 5
    g.hands({7: [1, 2, 3]})  # death 3: the last with words
    assert g.step == "last_words.executed" and g.speakers() == [7]
    g.talk()
    g.night(kill=9)  # death 4: 其後死的人沒有遺言
    assert g.step == "speeches" and 9 not in g.speakers()
    spoken = [e.seats for e in g.events if getattr(e, "kind", "") == "last_words"]
    assert spoken == [(5,), (7,)]


def test_v7_3_one_check_one_kill_one_vote_each_round():
    g = v7()
    g.night(kill=7, check=1, revive=None)
    assert [e.step for e in g.of(Acted)] == ["kill", "check", "revive"]
    g.talk()
    g.hands({8: [1, 2, 3]})
    assert [d.seat for d in g.of(Died)] == [8]
    assert g.waiting.kind in ("last_words", "night")
    if g.waiting.kind == "last_words":
        g.do(Pass(8))
    assert g.state.phase == "night"
    g.do(Timeout())
