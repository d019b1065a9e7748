"""The "five identities" variant: F1 (roles), F2 (the night: police, informant, doctor, bandits), F3 (wins)."""

from __future__ import annotations

from controller.rules.actions import GroupPick, Surrender
from controller.rules.events import Acted, Dawn, GameEnded
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game

#: seats 1-2 bandits, 3-4 police, 5 doctor, 6 informant, 7-10 civilians
TEN = "K K P P D I C C C C"


def five(cards: str = TEN) -> Game:
    return Game("five-identities", cards)


def _acted(g: Game, step: str) -> Acted:
    return [e for e in g.of(Acted) if e.step == step][-1]


# ---- F1 roles -------------------------------------------------------------------------------------------------

def test_f1_two_police_two_bandits_one_doctor_one_informant_and_civilians_the_rest():
    v = load_variant("five-identities")
    for players in (7, 10, 16):
        c = dict(configure(v, players).composition)
        assert c == {"killer": 2, "police": 2, "doctor": 1, "informant": 1, "civilian": players - 6}


def test_f1_police_know_each_other_bandits_know_each_other_the_informant_knows_nobody():
    g = five()
    assert g.state.partners(3) == (4,) and g.state.partners(1) == (2,)
    assert g.state.partners(6) == () and g.state.partners(5) == ()


# ---- F2 the night ---------------------------------------------------------------------------------------------

def test_f2_the_night_runs_police_informant_doctor_then_the_bandits():
    g = five()
    order = []
    while g.state.phase == "night":
        order.append((g.step, g.waiting.seats))
        g.act(g.step, None if g.step == "kill" else 7)
    assert order == [("check", (3, 4)), ("inform", (6,)), ("save", (5,)), ("kill", (1, 2))]


def test_f2_police_check_learns_bandit_or_not_bandit_and_the_informant_shakes():
    g = five()
    g.act("check", 1)
    assert g.check_result == "nod"
    g = five()
    g.act("check", 6)
    assert g.check_result == "shake"  # the informant helps the bandits but is not one


def test_f2_police_remove_bandits_only_by_vote_their_check_kills_nobody():
    g = five()
    g.night(check=1, inform=7, save=5, kill=None)
    assert g.of(Dawn)[0].deaths == () and 1 in g.alive


def test_f2_the_informant_checks_one_player_to_help_the_bandits():
    g = five()
    g.act("check", 7)
    g.act("inform", 3)
    assert _acted(g, "inform").result == "shake"
    g = five()
    g.act("check", 7)
    g.act("inform", 2)
    assert _acted(g, "inform").result == "nod"


def test_f2_the_informant_does_not_check_themself():
    g = five()
    g.act("check", 7)
    assert g.step == "inform" and 6 not in g.waiting.choices


def test_f2_the_informant_loses_the_power_when_dead():
    g = five()
    g.night(check=7, inform=3, save=8, kill=6)
    g.talk()
    g.hands({})
    assert g.step == "check"
    g.act("check", 8)
    assert g.step == "save"  # no informant wakes


def test_f2_the_doctor_saves_the_bandits_victim_self_allowed():
    g = five()
    g.night(check=7, inform=3, save=8, kill=8)
    assert g.of(Dawn)[0].deaths == ()
    g = five()
    g.act("check", 7)
    g.act("inform", 3)
    assert 5 in g.waiting.choices
    g.act("save", 5)
    g.act("kill", 5)
    assert g.of(Dawn)[0].deaths == ()


def test_f2_the_doctor_loses_the_power_when_dead():
    g = five()
    g.night(check=7, inform=3, save=8, kill=5)
    assert g.of(Dawn)[0].deaths == ((5, "killed"),)
    g.talk()
    g.hands({})
    g.act("check", 8)
    g.act("inform", 3)
    assert g.step == "kill"  # no doctor wakes


def test_f2_the_bandits_may_kill_one_or_skip():
    g = five()
    g.act("check", 7)
    g.act("inform", 3)
    g.act("save", 8)
    assert None in g.waiting.choices
    g.do(GroupPick(None))
    assert _acted(g, "kill").how == "skipped" and g.of(Dawn)[0].deaths == ()


def test_f2_the_day_is_as_in_2_0_last_words_speeches_and_a_vote():
    g = five()
    g.night(check=7, inform=3, save=8, kill=9)
    assert g.step == "last_words"
    g.talk()
    assert g.step == "vote"


# ---- F3 wins --------------------------------------------------------------------------------------------------

def test_f3_both_bandits_dead_the_police_side_wins():
    g = five()
    g.night(check=1, kill=9)
    g.talk()
    g.hands({1: [3, 4, 5, 7]})
    g.talk()
    g.night(check=2, kill=10)
    g.talk()
    g.hands({2: [3, 4, 5]})
    assert g.winner == "good"


def test_f3_both_police_dead_by_night_or_vote_the_bandits_win():
    g = five()
    g.night(kill=3)
    g.talk()
    g.hands({4: [1, 2, 6, 7]})
    assert g.winner == "killers" and "police" in g.of(GameEnded)[0].reason


def test_f3_bandits_at_least_all_others_win_and_the_informant_counts_among_the_others():
    g = five("K K P P D I C C")
    g.night(kill=7)
    g.talk()
    g.hands({8: [1, 2, 6]})
    g.talk()
    g.night(kill=5)  # bandits 2; police 2 and the informant: 3 others
    assert g.winner is None
    g.talk()
    g.hands({6: [1, 2, 3]})  # the informant is voted out: 2 bandits, 2 police
    assert g.winner == "killers" and "at_least_others" in g.of(GameEnded)[0].reason


def test_v2_11_the_informant_alone_cannot_surrender_for_the_bandits():
    g = five()
    assert g.rejects(Surrender(6)) == "no_team"  # the informant has no partners, but the bandits are two
    assert g.rejects(Surrender(5)) == "no_team"  # nor the doctor for the police side
