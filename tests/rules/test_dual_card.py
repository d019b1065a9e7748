"""The dual-card versions: D1 and D3 (version 6.0, ``dual-card-6.0``).

The table used throughout (9 players, 18 cards, D3's own example): each seat's hand, first identity first.

    seat 1 K+C   seat 2 K+D (an evil doctor: doctor 1)   seat 3 C+K   seat 4 P+C   seat 5 P+J (sniper 1)
    seat 6 D+C (doctor 2)   seat 7 J+P (sniper 2)   seat 8 C+C   seat 9 C+C

Night order (D3): kill, check, needle_1, needle_2, shoot_1, shoot_2.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import engine
from controller.rules.actions import Eject, GroupPick, Pick, Rejected, Timeout
from controller.rules.events import Acted, CardLost, Dawn, Died, HandsDealt, HandsSettled
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game
from tests.rules.test_properties import play_checked

ROLE = {"K": "killer", "P": "police", "D": "doctor", "J": "sniper", "C": "civilian"}
TABLE = "K+C K+D C+K P+C P+J D+C J+P C+C C+C"


class Dual(Game):
    """``Game`` for two cards a seat: ``hands`` as in the module docstring; ``first`` maps a seat to the card
    (1 or 2) it plays first (the others keep the dealt order at the deadline)."""

    def __init__(self, hands: str = TABLE, first: dict[int, int] | None = None, variant: str = "dual-card-6.0",
                 **options: object) -> None:
        cards = [ROLE[c] for hand in hands.split() for c in hand.split("+")]
        counts: dict[str, int] = {}
        for r in cards:
            counts[r] = counts.get(r, 0) + 1
        self.config = configure(load_variant(variant), len(cards) // 2, options, counts)
        self.state, self.events = engine.new_game(self.config, roles=cards)
        self.check_result = ""
        for seat, which in (first or {}).items():
            self.do(Pick(seat, which))
        if self.waiting and self.waiting.kind == "first_identity":
            self.do(Timeout())

    def role(self, seat: int) -> str:
        return self.state.role_of(seat)


# ---- D1: two cards, the first identity chosen at the deal ----------------------------------------------------

def test_d1_each_player_is_dealt_two_cards_secretly_and_chooses_the_first_identity():
    config = configure(load_variant("dual-card-6.0"), 9)
    state, events = engine.new_game(config, random.Random(3))
    dealt = next(e for e in events if isinstance(e, HandsDealt))
    assert len(dealt.hands) == 9 and all(len(h) == 2 for h in dealt.hands) and not HandsDealt.public
    p = engine.pending(state)
    assert p.kind == "first_identity" and p.seats == tuple(range(1, 10)) and p.choices == (1, 2)
    state, _ = engine.step(state, Pick(4, 2))
    assert 4 not in engine.pending(state).seats
    with pytest.raises(Rejected):
        engine.step(state, Pick(4, 1))  # one choice each


def test_d1_the_chosen_card_is_the_first_identity_and_at_the_deadline_the_card_dealt_first_is():
    g = Dual(first={3: 2})
    assert g.role(3) == "killer" and g.role(1) == "killer" and g.role(4) == "police"
    assert g.of(HandsSettled)[0].cards[2] == ("killer", "civilian")


def test_d1_a_night_kill_hits_the_current_card_and_the_second_takes_over():
    g = Dual()
    g.night(kill=4)
    assert g.of(CardLost)[-1].seat == 4 and g.of(Dawn)[-1].deaths == ()
    assert 4 in g.alive and g.role(4) == "civilian"


def test_d1_the_second_cards_death_takes_the_player_out():
    g = Dual()
    g.night(kill=8)
    g.talk()
    g.hands({})
    g.night(kill=8)
    assert (8, "killed") in g.of(Dawn)[-1].deaths and 8 not in g.alive


def test_d1_a_check_answers_for_the_current_card():
    g = Dual()
    g.night(kill=9, check=3)  # seat 3 plays civilian first, a killer second
    assert g.check_result == "shake"
    g.talk()
    g.hands({})
    g.night(kill=3)
    g.talk()
    g.hands({})
    g.night(kill=9, check=3)
    assert g.check_result == "nod"


def test_d1_a_second_card_killer_wakes_with_the_killers_once_turned_up():
    g = Dual()
    g.night(kill=3)
    g.talk()
    g.hands({})
    assert g.step == "kill" and g.waiting.seats == (1, 2, 3)


def test_d3_a_player_voted_out_shows_the_first_identity_and_plays_on_with_the_second():
    g = Dual()
    g.night(kill=9)
    g.talk()
    g.hands({1: [3, 4, 5, 6, 7, 8]})
    lost = g.of(CardLost)[-1]
    assert (lost.seat, lost.cause, lost.shown) == (1, "executed", "killer") and CardLost.public
    assert 1 in g.alive and g.role(1) == "civilian" and not g.of(Died)


def test_d3_one_vote_per_person_whatever_the_cards():
    g = Dual()
    g.night(kill=9)
    g.talk()
    assert sorted(g.waiting.seats) == list(range(1, 10))


# ---- D3: two doctors and two snipers, each on its own ----------------------------------------------------------

def test_d3_night_order_and_a_step_whose_card_is_not_active_wakes_nobody():
    g = Dual()
    steps = []
    while g.waiting and g.waiting.kind == "night":
        steps.append((g.step, g.waiting.seats))
        g.do(Timeout())
    # doctor 1 (seat 2's second card) and sniper 1 (seat 5's second card) are not active
    assert steps == [("kill", (1, 2)), ("check", (4, 5)), ("needle_2", (6,)), ("shoot_2", (7,))]


def test_d3_the_doctors_needle_saves_the_killers_victim():
    g = Dual()
    g.night(kill=4, needle_2=4)
    assert not g.of(CardLost) and g.role(4) == "police"


def test_d3_two_needles_of_one_doctor_on_one_card_kill_it_a_saving_needle_counts_too():
    g = Dual()
    g.night(kill=4, needle_2=4)  # saved, and one needle
    g.talk()
    g.hands({})
    g.night(kill=9, needle_2=4)  # the second needle from doctor 2
    assert {e.seat: e.cause for e in g.of(CardLost)}[4] == "needles"


def test_d3_needles_of_different_doctors_are_counted_apart():
    g = Dual(first={2: 2})  # seat 2 plays doctor 1 first
    g.night(kill=9, needle_1=8, needle_2=8)
    assert 8 not in [e.seat for e in g.of(CardLost)]
    assert g.state.marks["needles:needle_1:8.0"] == 1 and g.state.marks["needles:needle_2:8.0"] == 1


def test_d3_doctors_may_needle_each_other():
    g = Dual(first={2: 2})
    g.night(kill=9, needle_1=6, needle_2=2)
    assert g.state.marks["needles:needle_1:6.0"] == 1 and g.state.marks["needles:needle_2:2.0"] == 1


def test_d3_the_sniper_is_asked_and_may_not_shoot():
    g = Dual()
    while g.step != "shoot_2":
        g.do(Timeout())
    assert None in g.waiting.choices
    g.act("shoot_2", None)
    assert g.of(Dawn)[-1].deaths == () and not g.of(CardLost)


def test_d3_two_snipers_shoot_independently_and_a_needle_does_not_stop_a_shot():
    g = Dual(first={5: 2})  # seat 5 plays sniper 1 first
    g.night(kill=9, needle_2=8, shoot_1=8, shoot_2=4)
    lost = {e.seat: e.cause for e in g.of(CardLost)}
    assert lost[8] == "shot" and lost[4] == "shot" and lost[9] == "killed"


def test_d3_an_evil_doctor_plays_the_doctor_card_alone_not_with_the_killers():
    g = Dual(first={2: 2})
    assert g.role(2) == "doctor" and g.waiting.seats == (1,)  # the killers' step: seat 1 only
    g.night(kill=9)
    assert g.of(Dawn)  # the night went on in order


# ---- D3: police and killer in one hand --------------------------------------------------------------------------

def test_d3_swap_a_shuffled_deal_never_leaves_police_and_killer_in_one_hand():
    config = configure(load_variant("dual-card-6.0"), 9)
    for seed in range(60):
        _, events = engine.new_game(config, random.Random(seed))
        hands = next(e for e in events if isinstance(e, HandsDealt)).hands
        assert not any({"police", "killer"} <= {c.split("#")[0] for c in h} for h in hands)


def test_d3_swap_a_physical_deal_with_police_and_killer_in_one_hand_goes_back_to_the_judge():
    with pytest.raises(Rejected) as err:
        Dual("K+P K+D C+K C+C P+J D+C J+P C+C C+C")
    assert err.value.code == "police_killer_hand"


def test_d3_choose_the_player_keeps_the_chosen_identity_and_the_other_card_becomes_a_civilian():
    g = Dual("K+P K+D C+K C+C P+J D+C J+P C+C C+C", first={1: 2}, **{"dual.police_killer": "choose"})
    assert g.of(HandsSettled)[0].cards[0] == ("police", "civilian")
    assert g.role(1) == "police"


# ---- D3: the end ------------------------------------------------------------------------------------------------

def test_d3_killers_win_when_all_three_police_cards_are_dead_turned_up_or_not():
    g = Dual()
    g.do(Eject(4))
    g.do(Eject(5))
    assert g.winner is None  # seat 7's second card is a police card
    g.do(Eject(7))
    assert g.winner == "killers"


def test_d3_killers_win_when_every_civilian_card_is_dead():
    g = Dual("K+D K+J K+J P+D P+P C+C C+C C+C C+C")
    for seat in (6, 7, 8):
        g.do(Eject(seat))
    assert g.winner is None
    g.do(Eject(9))
    assert g.winner == "killers"


def test_d3_the_good_side_wins_when_all_three_killer_cards_are_dead():
    g = Dual()
    g.do(Eject(1))
    g.do(Eject(2))
    assert g.winner is None  # seat 3's second card is a killer
    g.do(Eject(3))
    assert g.winner == "good"


def test_c5_every_dual_card_step_forfeits_at_its_deadline():
    g = Dual(first={2: 2, 5: 2})
    steps = []
    while g.waiting and g.waiting.kind == "night":
        steps.append(g.step)
        g.do(Timeout())
    assert steps == ["kill", "check", "needle_1", "needle_2", "shoot_1", "shoot_2"]
    assert g.of(Dawn)[-1].deaths == ()


def test_group_pick_of_the_killers_hits_a_card():
    g = Dual()
    g.do(GroupPick(6))
    g.night()
    assert g.of(CardLost)[-1].seat == 6 and g.role(6) == "civilian"


# ---- properties (as tests/rules/test_properties.py, more often for this version) -------------------------------

@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(6, 20), st.sampled_from(["uninformed", "random", "heuristic"]), st.integers(0, 2**32 - 1),
       st.sampled_from([None, "day"]), st.sampled_from(["swap", "choose"]), st.booleans())
def test_property_dual_card_games_end_the_dead_never_act_and_replay(players, policy, seed, first, clash, talk):
    config = configure(load_variant("dual-card-6.0"), players, {"dual.police_killer": clash}, talk=talk)
    play_checked(config, policy, seed, first)


# ---- D2: seed 001's 5.0, both cards live (``dual-card-5.0``) ----------------------------------------------------
# Places (cards) 1..16 for 8 players; player k holds places 2k-1 and 2k. The table:
#   1 K  2 C | 3 K  4 D | 5 U  6 C | 7 B  8 C | 9 P 10 C | 11 P 12 D | 13 S 14 C | 15 S 16 C
# (K killer, U undercover, B butterfly, P police, D doctor, S secret police, C civilian).

D2 = {"K": "killer", "U": "undercover_killer", "B": "butterfly", "P": "police", "D": "doctor", "S": "secret_police",
      "C": "civilian"}
D2_TABLE = "K C K D U C B C P C P D S C S C"


def d2(cards: str = D2_TABLE) -> Game:
    roles = [D2[c] for c in cards.split()]
    counts: dict[str, int] = {}
    for r in roles:
        counts[r] = counts.get(r, 0) + 1
    g = Game.__new__(Game)
    g.config = configure(load_variant("dual-card-5.0"), len(roles) // 2, {}, counts)
    g.state, g.events = engine.new_game(g.config, roles=roles)
    g.check_result = ""
    return g


def test_d2_every_card_is_a_place_two_a_player():
    g = d2()
    assert g.state.players == 16 and g.config.players == 16
    from controller.rules.cards import player_of

    assert [player_of(p) for p in (1, 2, 3, 16)] == [1, 1, 2, 8]


#: The rows where no table with police : killers : doctors = 1:1:1 fits between 4:5 and 5:5 (4 + 3k role cards
#: would have to lie between players and 10/9 x players), each with the ratio its file gives the reason for.
UNFITTABLE = {8: 0.6, 11: 9 / 13, 14: 0.75, 17: 15 / 19}


@pytest.mark.parametrize("players", range(8, 21))
def test_d2_civilians_to_role_cards_between_4_to_5_and_5_to_5_at_every_size(players):
    """001 5.0: 「平民总和和花色牌总和的比例是4：5，这个比例比较合适 … 当然，可以5：5也是非常好玩的。」 with
    「警察、杀手、医生 … 比例为1：1：1」 and 「秘密警察 2个」, 「法官、花蝴蝶、卧底不论参加游戏人数都固定一个」."""
    variant = load_variant("dual-card-5.0")
    c = dict(configure(variant, players).composition)
    assert c["killer"] == c["police"] == c["doctor"] and c["secret_police"] == 2
    assert c["butterfly"] == c["undercover_killer"] == 1
    roles = sum(n for r, n in c.items() if r != "civilian")
    assert roles + c["civilian"] == 2 * players
    ratio = c["civilian"] / roles
    if players in UNFITTABLE:  # no whole k fits: the nearer one, with the reason written beside the row
        assert not any(players <= 4 + 3 * k <= 2 * players / 1.8 for k in range(1, 8))
        assert ratio == pytest.approx(UNFITTABLE[players])
        row = next(r for r in variant.role_tables["default"] if r.low <= players <= r.high)
        assert row.low == row.high == players  # a row of its own, so its reason is beside it
    else:
        assert 0.8 <= ratio <= 1.0, (players, c)


def test_d2_a_player_who_draws_killer_and_police_voids_the_deal():
    with pytest.raises(Rejected) as err:
        d2("K P K D U C B C C C P D S C S C")
    assert err.value.code == "killer_police_hand"
    config = configure(load_variant("dual-card-5.0"), 8)
    for seed in range(40):
        roles = engine.new_game(config, random.Random(seed))[0].roles
        assert not any({roles[k], roles[k + 1]} == {"killer", "police"} for k in range(0, 16, 2))


def test_d2_night_one_the_killers_meet_the_undercover_and_later_nights_they_do_not():
    g = d2()
    assert g.waiting.kind == "recognition" and g.waiting.seats == (1, 3, 5)
    g.night()
    g.hands({})
    assert g.state.night == 2 and g.step == "hug"
    assert [e.step for e in g.of(Acted)].count("recognise.killers") == 1


def test_d2_each_killer_card_points_separately_and_each_victim_dies():
    g = d2()
    g.do(Timeout())  # recognition
    g.do(Timeout())  # the butterfly skips
    g.do(Pick(1, 10))
    g.do(Pick(3, 14))
    g.night()
    assert {d for d, _ in g.of(Dawn)[-1].deaths} == {10, 14}


def test_d2_killers_agreeing_on_one_card_kill_one():
    g = d2()
    g.do(Timeout())
    g.do(Timeout())
    g.do(Pick(1, 10))
    g.do(Pick(3, 10))
    g.night()
    assert g.of(Dawn)[-1].deaths == ((10, "killed"),)


def test_d2_a_player_is_out_only_when_both_cards_are_dead_and_votes_are_living_cards():
    g = d2()
    g.do(Timeout())
    g.do(Timeout())
    g.do(Pick(1, 9))
    g.do(Pick(3, 10))  # both of player 5's cards
    g.night()
    assert 9 not in g.alive and 10 not in g.alive
    assert len(g.waiting.seats) == 14  # one vote per living card


def test_d2_a_hugged_killer_card_kills_nothing():
    g = d2()
    g.do(Timeout())
    g.act("hug", 3)  # the butterfly hugs killer card 3: its kill fails
    g.do(Pick(1, 14))
    g.do(Pick(3, 10))
    g.night()
    assert g.of(Dawn)[-1].deaths == ((14, "killed"),)


def test_d2_the_hugged_card_cannot_be_killed():
    g = d2()
    g.do(Timeout())
    g.act("hug", 10)
    g.act("kill", 10)
    g.night()
    assert g.of(Dawn)[-1].deaths == ()


def test_d2_if_the_butterfly_is_killed_the_hugged_card_dies_with_it():
    g = d2()
    g.do(Timeout())
    g.act("hug", 10)
    g.act("kill", 7)
    g.night()
    assert dict(g.of(Dawn)[-1].deaths) == {7: "killed", 10: "with_butterfly"}


def test_d2_the_doctor_saves_the_killers_victim_unless_hugged_and_a_wrong_save_costs_nothing():
    g = d2()
    g.do(Timeout())
    g.night(kill=10, save=10)
    assert g.of(Dawn)[-1].deaths == ()
    g.hands({})
    g.act("hug", 4)  # doctor card 4 is hugged: it cannot save
    g.act("kill", 10)
    g.do(Timeout())  # the police's check lapses
    g.do(Pick(4, 10))
    g.do(Pick(12, 16))  # a wrong save: nothing happens
    g.night()
    assert g.of(Dawn)[-1].deaths == ((10, "killed"),)


def test_d2_the_secret_police_comes_back_until_it_used_its_one_kill_on_anyone():
    g = d2()
    g.do(Timeout())
    g.do(Timeout())
    g.act("kill", 13)
    g.night()
    assert g.of(Dawn)[-1].deaths == () and 13 in g.alive
    g.hands({})
    g.do(Timeout())
    g.act("kill", 16)
    g.night(secret=6)  # one kill, on anyone: here a civilian card
    assert dict(g.of(Dawn)[-1].deaths) == {6: "secret_police", 16: "killed"}
    g.hands({})
    g.do(Timeout())
    g.act("kill", 13)
    g.night()
    assert (13, "killed") in g.of(Dawn)[-1].deaths


def test_d2_a_hugged_secret_police_cannot_use_the_power_that_night():
    g = d2()
    g.do(Timeout())
    g.act("hug", 13)
    g.act("kill", 10)
    g.do(Timeout())
    g.do(Timeout())
    assert g.step == "secret"
    g.do(Pick(13, 1))
    g.night()
    assert 1 in g.alive and g.state.marks.get("spent:13") == 0


def test_d2_the_police_check_with_the_undercover_among_them_and_may_check_partners():
    g = d2()
    g.do(Timeout())
    g.do(Timeout())
    g.act("kill", 10)
    assert g.step == "check" and g.waiting.seats == (5, 9, 11) and 11 in g.waiting.choices
    g.act("check", 5)
    assert g.check_result == "nod"


def test_d2_the_police_side_wins_when_killers_and_undercover_are_dead():
    g = d2()
    for place in (1, 3):
        g.do(Eject(place))
    assert g.winner is None
    g.do(Eject(5))
    assert g.winner == "good"


def test_d2_the_killers_win_when_police_and_secret_police_are_dead():
    g = d2()
    for place in (9, 11, 13):
        g.do(Eject(place))
    assert g.winner is None
    g.do(Eject(15))
    assert g.winner == "killers"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(8, 14), st.sampled_from(["uninformed", "random", "heuristic"]), st.integers(0, 2**32 - 1),
       st.sampled_from([None, "day"]))
def test_property_d2_games_end_the_dead_never_act_and_replay(players, policy, seed, first):
    config = configure(load_variant("dual-card-5.0"), players, talk=False)
    play_checked(config, policy, seed, first)
