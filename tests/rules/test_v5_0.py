"""Version 5.0 "Infernal Affairs" (V5.1–V5.5): the bosses, the two undercovers, the first-night recognition
sequence, majorities in which the undercover's vote counts, the end-game rules and the win conditions.

The table used throughout (12 players, V5.1's "13-person game" with the judge):
seat 1 ♠A killer boss, 2–3 killers, 4 big joker (undercover police, wakes with the killers), 5 ♥K police boss,
6–7 police, 8 small joker (undercover killer, wakes with the police), 9–12 civilians.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.actions import Eject, GroupPick, Pass, Pick, Timeout
from controller.rules.events import Acted, Dawn, GameEnded, Opened
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game
from tests.rules.test_properties import play_checked

ROLE = {"KB": "killer_boss", "K": "killer", "UP": "undercover_police", "PB": "police_boss", "P": "police",
        "UK": "undercover_killer", "C": "civilian"}
TABLE = "KB K K UP PB P P UK C C C C"


class Infernal(Game):
    """``Game`` with the 5.0 card letters (KB, PB, UP, UK as well as K, P, C)."""

    def __init__(self, cards: str = TABLE, **options: object) -> None:
        from controller.rules import engine

        roles = [ROLE[c] for c in cards.split()]
        counts: dict[str, int] = {}
        for r in roles:
            counts[r] = counts.get(r, 0) + 1
        self.config = configure(load_variant("v5.0-infernal"), len(roles), options, counts)
        self.state, self.events = engine.new_game(self.config, roles=roles)
        self.check_result = ""

    def to_night_two(self) -> None:
        """Night 1 is recognition only (everyone acknowledges); day 1 passes with nobody voted out."""
        while self.waiting and self.waiting.kind == "recognition":
            for seat in self.waiting.seats:
                self.do(Pass(seat))
        self.talk()
        self.hands({})
        assert self.state.night == 2


# ---- V5.1 ------------------------------------------------------------------------------------------------------

def test_v5_1_twelve_players_are_three_police_three_killers_four_civilians_and_one_undercover_each():
    config = configure(load_variant("v5.0-infernal"), 12)
    assert dict(config.composition) == {"killer_boss": 1, "killer": 2, "undercover_killer": 1, "police_boss": 1,
                                        "police": 2, "undercover_police": 1, "civilian": 4}


def test_v5_1_the_undercover_police_is_on_the_police_side_and_the_undercover_killer_on_the_killers_side():
    g = Infernal()
    assert g.state.side_of(4) == "good" and g.state.side_of(8) == "killers"


# ---- V5.2 ------------------------------------------------------------------------------------------------------

def test_v5_2_the_first_night_is_four_recognitions_with_exactly_these_groups_and_no_kill_or_check():
    g = Infernal()
    groups = []
    while g.waiting and g.waiting.kind == "recognition":
        groups.append(g.waiting.seats)
        for seat in g.waiting.seats:
            g.do(Pass(seat))
    assert groups == [
        (4, 5),            # big joker, then ♥K
        (1, 8),            # small joker, then ♠A
        (1, 2, 3, 4),      # all A's and the big joker
        (5, 6, 7, 8),      # all K's and the small joker
    ]
    assert not [e for e in g.of(Acted) if e.ability in ("kill", "check")]
    assert g.of(Dawn)[0].deaths == () and g.state.phase == "day"  # then day


def test_v5_2_a_recognition_ends_at_its_deadline_too():
    g = Infernal()
    g.do(Timeout())
    assert g.waiting.seats == (1, 8)


# ---- V5.3 ------------------------------------------------------------------------------------------------------

def test_v5_3_from_night_two_the_killers_kill_and_the_undercover_police_wakes_with_them_and_votes():
    g = Infernal()
    g.to_night_two()
    assert g.step == "kill" and g.waiting.seats == (1, 2, 3, 4)
    assert g.waiting.role == "killer"  # the judge calls "killers"; the boss and the big joker open as A's
    g.do(Pick(1, 9))
    g.do(Pick(2, 10))
    g.do(Pick(4, 10))  # the undercover police's vote counts (C6): 10 has two of three picks
    g.do(Timeout())
    assert [e for e in g.of(Acted) if e.step == "kill"][-1].target == 10


def test_v5_3_the_police_check_with_the_undercover_killer_among_them_by_majority():
    g = Infernal()
    g.to_night_two()
    g.act("kill", 9)
    assert g.step == "check" and g.waiting.seats == (5, 6, 7, 8)
    g.do(Pick(8, 11))
    g.do(Pick(6, 11))
    g.do(Pick(5, 2))
    g.do(Timeout())
    assert [e for e in g.of(Acted) if e.step == "check"][-1].target == 11


@pytest.mark.parametrize(("target", "answer"), [(1, "nod"), (2, "nod"), (4, "shake"), (9, "shake")])
def test_v5_3_decision_a_check_answers_with_the_true_side(target, answer):
    g = Infernal()
    g.to_night_two()
    g.act("kill", 9)
    g.act("check", target)
    assert g.check_result == answer


def test_v5_3_a_check_on_the_undercover_killer_nods_when_the_undercover_police_checks():
    g = Infernal()
    for seat in (5, 6, 7):
        g.do(Eject(seat))  # every open police is gone
    g.to_night_two()
    g.act("kill", 9)
    assert g.step == "late_check" and g.waiting.seats == (4,)
    g.act("late_check", 8)
    assert g.check_result == "nod"


# ---- V5.4 ------------------------------------------------------------------------------------------------------

def test_v5_4_the_last_killer_wakes_alone_and_may_not_kill_the_undercover_police():
    g = Infernal()
    g.do(Eject(2))
    g.do(Eject(3))
    g.to_night_two()
    assert g.step == "kill" and g.waiting.seats == (1,)  # the big joker no longer opens
    assert 4 not in g.waiting.choices
    assert g.rejects(GroupPick(4)) == "bad_target"


def test_v5_4_the_last_police_wakes_without_the_undercover_killer():
    g = Infernal()
    g.do(Eject(6))
    g.do(Eject(7))
    g.to_night_two()
    g.act("kill", 9)
    assert g.step == "check" and g.waiting.seats == (5,)


def test_v5_4_once_all_three_killers_are_dead_the_undercover_killer_kills_anyone_the_undercover_police_too():
    g = Infernal()
    for seat in (1, 2, 3):
        g.do(Eject(seat))
    g.to_night_two()
    assert g.step == "late_kill" and g.waiting.seats == (8,)
    assert g.waiting.role == "undercover_killer"
    g.act("late_kill", 4)
    g.night(check=9)
    assert (4, "killed") in g.of(Dawn)[-1].deaths


def test_v5_4_the_undercover_killer_does_not_kill_while_a_killer_lives():
    g = Infernal()
    g.do(Eject(2))
    g.do(Eject(3))
    g.to_night_two()
    steps = []
    while g.waiting and g.waiting.kind == "night":
        steps.append(g.step)
        g.do(Timeout())
    assert steps == ["kill", "check"]


def test_v5_4_decision_the_last_killer_alone_with_the_undercover_police_is_a_draw():
    g = Infernal("KB UP PB C")
    g.do(Eject(3))
    g.do(Eject(4))
    assert g.winner == "draw"


# ---- V5.5 ------------------------------------------------------------------------------------------------------

def test_v5_5_civilians_dying_out_is_no_loss():
    g = Infernal()
    for seat in (9, 10, 11, 12):
        g.do(Eject(seat))
    assert g.winner is None


def test_v5_5_the_police_side_loses_only_when_the_undercover_police_is_dead_too():
    g = Infernal()
    for seat in (5, 6, 7):
        g.do(Eject(seat))
    assert g.winner is None
    g.do(Eject(4))
    assert g.winner == "killers"


def test_v5_5_the_killers_side_loses_only_when_the_undercover_killer_is_dead_too():
    g = Infernal()
    for seat in (1, 2, 3):
        g.do(Eject(seat))
    assert g.winner is None
    g.do(Eject(8))
    assert g.winner == "good"
    assert g.of(GameEnded)[-1].winner == "good"


def test_v5_the_voice_calls_only_roles_it_knows():
    from controller.voice.prompts import ROLE_PROMPTS

    g = Infernal()
    g.to_night_two()
    for e in g.of(Opened):
        for role in filter(None, e.role.split("+")):
            want = "recognize" if e.kind == "recognition" else "act"
            assert want in ROLE_PROMPTS[role], (e.step, role)


# ---- properties (as tests/rules/test_properties.py, more often for this version) -------------------------------

@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(8, 20), st.sampled_from(["uninformed", "random", "heuristic"]), st.integers(0, 2**32 - 1),
       st.sampled_from([None, "day"]), st.booleans(), st.booleans())
def test_property_infernal_games_end_the_dead_never_act_and_replay(players, policy, seed, first, selfkill, talk):
    config = configure(load_variant("v5.0-infernal"), players, {"killers.selfkill": selfkill}, talk=talk)
    play_checked(config, policy, seed, first)
