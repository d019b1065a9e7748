"""Standard 2.0 with police: V2.1–V2.12, every club option."""

import pytest

from controller.rules.actions import (
    Ballot,
    ChooseDirection,
    Eject,
    GroupPick,
    Pass,
    Penalty,
    Pick,
    Surrender,
    Timeout,
    Vote,
)
from controller.rules.events import Dawn, Died, GameEnded, Penalised, TieRound, VoteClosed
from controller.rules.night import first_victim
from controller.rules.setup import configure
from controller.rules.variant import VariantError, load_variant
from tests.rules.table import Game

#: seats 1-3 killers, 4-6 police, 7-12 civilians
TWELVE = "K K K P P P C C C C C C"


def std(cards: str = TWELVE, **options):
    return Game("standard-2.0", cards, {k.replace("__", "."): v for k, v in options.items()})


# ---- V2.1 role tables ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "killers"), [(8, 2), (10, 2), (11, 3), (14, 3), (15, 4), (16, 4)])
def test_v2_1_roles_003_police_equal_killers_by_player_count(players, killers):
    c = dict(configure(load_variant("standard-2.0"), players, {"roles": "003"}).composition)
    assert c == {"killer": killers, "police": killers, "civilian": players - 2 * killers}


def test_v2_1_roles_004_covers_only_eleven_to_sixteen():
    v = load_variant("standard-2.0")
    assert dict(configure(v, 16, {"roles": "004"}).composition) == {"killer": 4, "police": 4, "civilian": 8}
    with pytest.raises(VariantError, match="no row for 10 players"):
        configure(v, 10, {"roles": "004"})


def test_v2_1_an_explicit_composition_overrides_the_table():
    c = dict(configure(load_variant("standard-2.0"), 12, roles={"killer": 2, "police": 3}).composition)
    assert c == {"killer": 2, "police": 3, "civilian": 7}


# ---- V2.2 night order ---------------------------------------------------------------------------------------

def test_v2_2_killers_wake_first_then_police_who_never_point_at_a_partner():
    g = std()
    assert g.step == "kill" and g.waiting.seats == (1, 2, 3)
    g.act("kill", 9)
    assert g.step == "check" and g.waiting.seats == (4, 5, 6)
    assert not {4, 5, 6} & set(g.waiting.choices)
    assert g.rejects(GroupPick(5)) == "bad_target"


def test_v2_2_police_check_a_killer_and_the_judge_nods():
    g = std()
    g.night(kill=9, check=2)
    assert g.check_result == "nod"


def test_v2_2_police_check_a_civilian_and_the_judge_shakes():
    g = std()
    g.night(kill=9, check=8)
    assert g.check_result == "shake"


# ---- V2.3 / V2.8 last words -----------------------------------------------------------------------------------

def test_v2_3_quota_the_first_n_deaths_leave_last_words_whatever_their_side():
    g = std()  # 3 police -> a quota of 3
    assert g.config.quota == 3
    g.night(kill=7, check=1)
    assert g.step == "last_words" and g.speakers() == [7]
    g.talk()
    g.hands({1: [4, 5, 6, 8, 9, 10]})  # a killer is the second to die: a killer speaks too
    assert g.step == "last_words.executed" and g.speakers() == [1]


def test_v2_3_quota_runs_out_after_the_nth_death():
    g = std()
    g.night(kill=7)
    assert g.step == "last_words"
    g.talk()  # seat 7's last words, then every speech
    g.hands({1: [4, 5, 6, 8, 9, 10]})  # death 2: killer 1 executed, speaks (quota 3)
    assert g.step == "last_words.executed"
    g.talk()
    g.night(kill=8)  # death 3
    assert g.step == "last_words"
    g.talk()
    g.hands({2: [4, 5, 6, 9, 10]})  # death 4: no last words
    assert g.step != "last_words.executed"
    assert g.state.lastwords_given == 3


def test_v2_3_quota_counts_deaths_an_ejected_player_uses_a_place_without_words():
    """004 §3.19: 「留遗言人数与警匪人数相同。即如果是4警4匪配置，则前面4个死人（包括被杀者和被公决者）可留遗言。其后
    死的人没有遗言。」 The quota counts the first N deaths, whatever their cause; it is not a count of words."""
    g = std()  # quota 3
    g.night(kill=7)  # death 1: last words
    assert g.speakers() == [7]
    g.do(Eject(12))  # death 2: ejected by the judge (V2.11), no last words, but a place all the same
    g.talk()
    g.hands({1: [4, 5, 6, 8, 9, 10]})  # death 3: the killer speaks
    assert g.step == "last_words.executed" and g.speakers() == [1]
    g.talk()
    g.night(kill=8)  # death 4: 其后死的人没有遗言
    assert g.step == "speeches"
    assert g.state.lastwords_given == 2


def test_v2_3_killer_silent_an_executed_killer_never_speaks_an_executed_good_player_does():
    g = std(lastwords="killer_silent")
    g.night(kill=7)
    assert g.step == "last_words"
    g.talk()
    g.hands({1: [4, 5, 6, 8, 9]})
    assert g.step == "kill" and g.state.night == 2  # no last words for the killer
    g = std(lastwords="killer_silent")
    g.night(kill=7)
    g.talk()
    g.hands({8: [1, 2, 3, 4, 5]})
    assert g.step == "last_words.executed"


# ---- V2.4 speeches --------------------------------------------------------------------------------------------

def test_v2_4_speeches_start_at_the_victims_right_hand_neighbour_and_go_counter_clockwise():
    g = std()
    g.night(kill=7)
    g.do(Pass(7))  # last words
    assert g.speakers() == [6, 5, 4, 3, 2, 1, 12, 11, 10, 9, 8]


def test_v2_4_nobody_died_speeches_start_at_seat_one():
    g = std(killers__selfkill=False)
    g.night()  # the killers and the police let their time run out (C5)
    assert g.of(Dawn)[0].deaths == ()
    assert g.speakers() == [1, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]


def test_v2_4_any_direction_the_judge_picks_clockwise():
    g = std(speech__any_direction=True)
    g.night(kill=7)
    g.talk()
    assert g.step == "speech.direction" and g.waiting.seats == (0,)
    g.do(ChooseDirection(clockwise=True))
    assert g.speakers() == [8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6]


def test_v2_4_nobody_speaks_out_of_turn():
    g = std()
    g.night(kill=7)
    g.do(Pass(7))
    assert g.rejects(Pass(5)) == "not_your_turn"  # seat 6 has the floor


# ---- C3 defence -----------------------------------------------------------------------------------------------

def test_c3_suspects_claim_a_defence_and_speak_before_the_vote():
    g = std(defence__suspects=True)
    g.night(kill=7)
    g.talk()
    assert g.step == "defence.claim"
    g.claim(2)
    g.claim(9)
    g.do(Timeout())
    assert g.step == "defence" and g.speakers() == [2, 9]  # in the day's speech order: 6, 5, 4, 3, 2, 1, 12...
    g.talk()
    assert g.step == "vote"


# ---- V2.5 vote order ------------------------------------------------------------------------------------------

def test_v2_5_reverse_calls_start_from_the_last_speaker():
    g = std(vote="reverse")
    g.night(kill=7)
    g.talk()
    assert g.waiting.choices == (8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6, None)


def test_v2_5_from_victim_calls_start_at_the_victims_right_hand_neighbour():
    g = std(vote="from_victim")
    g.night(kill=7)
    g.talk()
    assert g.waiting.choices == (6, 5, 4, 3, 2, 1, 12, 11, 10, 9, 8, None)


def test_v2_5_one_vote_each_and_not_for_the_dead():
    g = std()
    g.night(kill=7)
    g.talk()
    g.do(Vote(1, 9))
    assert g.rejects(Vote(1, 10)) == "already_voted"
    assert g.rejects(Vote(2, 7)) == "target_dead"
    assert g.rejects(Vote(2, 13)) == "unknown_seat"
    assert g.rejects(Vote(7, 9)) == "dead"


def test_v2_5_abstaining_is_allowed_and_if_nobody_votes_nobody_is_out():
    g = std()
    g.night(kill=7)
    g.talk()
    g.do(Vote(1, None))
    g.hands({})
    closed = g.of(VoteClosed)[-1]
    assert closed.out is None and closed.tally == ()
    assert g.state.night == 2


def test_v2_5_voting_for_yourself_is_allowed():
    g = std()
    g.night(kill=7)
    g.talk()
    g.hands({9: [9, 1, 2]})
    assert g.of(VoteClosed)[-1].out == 9


# ---- V2.6 follow-votes ----------------------------------------------------------------------------------------

def test_v2_6_a_hand_later_than_the_window_is_a_follow_vote_and_does_not_count():
    g = std(vote__window_s=1.5)
    g.night(kill=7)
    g.talk()
    assert g.rejects(Vote(1, 9, delay_s=1.6)) == "follow_vote"
    g.do(Vote(1, 9, delay_s=1.4))
    assert dict(g.state.picks) == {1: 9}


# ---- V2.7 ties ------------------------------------------------------------------------------------------------

def _tie_3_and_4(g):
    g.night(kill=7)
    g.talk()
    g.hands({9: [1, 2], 10: [4, 5]})


def test_v2_7_club_tied_speak_again_then_revote_others_speak_then_revote_third_tie_is_a_draw():
    g = std(tie="club")
    _tie_3_and_4(g)
    assert g.step == "tie.speak" and sorted(g.speakers()) == [9, 10]
    g.talk()
    assert g.step == "revote" and set(g.waiting.choices) == {9, 10, None}
    assert g.waiting.seats == tuple(g.alive)  # every living player votes in a revote
    g.hands({9: [1], 10: [4]})
    assert g.step == "tie.others" and sorted(g.speakers()) == [1, 2, 3, 4, 5, 6, 8, 11, 12]
    g.talk()
    g.hands({9: [1], 10: [4]})
    assert g.winner == "draw" and "three times" in g.of(GameEnded)[0].reason


def test_v2_7_club_a_second_tie_among_fewer_players_goes_to_the_others_speeches():
    """004 §4.5: 「若再次出现平票，则由平票人以外的其他人逐一发言，之后投票，得票多的人出局；若仍然平票，则本局将被
    系统硬性判定为平局」 (003 §3.13: 若再次出現平票，則由平票人以外的其他人逐一發言). Any second tie, not only the
    same tied set."""
    g = std(tie="club")
    g.night(kill=7)
    g.talk()
    g.hands({9: [1, 2], 10: [4, 5], 11: [6, 8]})  # a three-way tie
    assert g.step == "tie.speak" and sorted(g.speakers()) == [9, 10, 11]
    g.talk()
    g.hands({9: [1, 2], 10: [4, 5], 11: [6]})  # the revote ties again, now between two of them
    assert g.of(TieRound)[-1] == TieRound("club", 2, (9, 10))
    assert g.step == "tie.others" and sorted(g.speakers()) == [1, 2, 3, 4, 5, 6, 8, 11, 12]  # seat 11 too
    g.talk()
    assert g.step == "revote" and set(g.waiting.choices) == {9, 10, None}
    g.hands({9: [1], 10: [4]})  # 若仍然平票: a draw, a round earlier than a same-set rule would call it
    assert g.winner == "draw"


def test_v2_7_club_a_revote_that_decides_executes():
    g = std(tie="club")
    _tie_3_and_4(g)
    g.talk()
    g.hands({9: [1, 2, 3], 10: [4]})
    assert g.of(Died)[-1].seat == 9


def test_v2_7_revote_second_vote_at_once_then_defence_and_revote_until_decided():
    g = std(tie="revote")
    _tie_3_and_4(g)
    assert g.step == "revote"  # no speeches first
    g.hands({9: [1], 10: [4]})
    assert g.step == "tie.defence" and sorted(g.speakers()) == [9, 10]
    g.talk()
    g.hands({10: [1, 2]})
    assert g.of(Died)[-1].seat == 10


def test_v2_7_revote_ends_with_nobody_out_after_the_limit():
    g = std(tie="revote", tie__limit=2)
    _tie_3_and_4(g)
    g.hands({9: [1], 10: [4]})
    g.talk()
    g.hands({9: [1], 10: [4]})
    assert g.of(TieRound)[-1].outcome == "nobody_out" and g.state.night == 2


def test_v2_7_debate_first_tied_debate_at_once_then_revote():
    g = std(tie="debate_first")
    _tie_3_and_4(g)
    assert g.step == "tie.debate"
    g.talk()
    assert g.step == "revote"


def test_v2_7_top2_every_vote_has_two_rounds_top_and_next_debate():
    g = std(tie="top2")
    g.night(kill=7)
    g.talk()
    g.hands({9: [1, 2, 3], 10: [4, 5], 11: [6]})
    assert g.of(VoteClosed)[-1].tied == (9, 10)
    assert g.step == "tie.debate"
    g.talk()
    g.hands({10: [1, 2, 3, 4]})
    assert g.of(Died)[-1].seat == 10


def test_v2_7_top2_next_group_may_be_two_or_more_players():
    g = std(tie="top2")
    g.night(kill=7)
    g.talk()
    g.hands({9: [1, 2, 3], 10: [4], 11: [5]})
    assert set(g.of(VoteClosed)[-1].tied) == {9, 10, 11}


# ---- V2.9 wins ------------------------------------------------------------------------------------------------

def _kill_police(g):
    g.night(kill=4)
    g.talk()
    g.hands({5: [1, 2, 3, 7, 8, 9]})
    g.talk()
    g.night(kill=6)


def test_v2_9_club_all_police_dead_killers_win():
    g = std()
    _kill_police(g)
    assert g.winner == "killers"


def test_v2_9_club_all_killers_dead_good_wins():
    g = std("K P C C C C C C")
    g.night(kill=5)
    g.talk()
    g.hands({1: [2, 3, 4]})
    assert g.winner == "good"


def test_v2_9_club_all_civilians_dead_is_a_draw_and_civilians_lose_makes_it_a_killer_win():
    cards = "K K P P C P"
    for option, result in (("club", "draw"), ("civilians_lose", "killers"), ("police_only", None)):
        g = std(cards, win=option)
        g.night(kill=5)
        assert g.winner == result, option


# ---- V2.10 checks and the blind push --------------------------------------------------------------------------

def test_v2_10_limited_checks_are_used_up():
    g = std(checks=1)
    g.night(kill=8, check=9)
    g.talk()
    g.hands({})
    assert g.step == "kill"
    assert g.rejects(Pick(4, 11)) == "no_checks_left"
    g.act("kill", 10)
    assert g.state.phase == "day"  # the police did not wake again


def test_v2_10_recognition_first_night_then_a_day_one_blind_push():
    g = std(first_night="recognition")
    assert g.step == "recognise.killer" and g.waiting.seats == (1, 2, 3)
    g.night()
    assert g.of(Dawn)[0].deaths == () and g.state.phase == "day"
    g.talk()
    assert g.step == "vote"


def test_simulate_first_day_starts_with_a_day():
    g = Game("standard-2.0", TWELVE, first="day")
    assert g.state.phase == "day" and g.state.night == 0
    assert g.step == "speeches"


# ---- V2.11 club rules ----------------------------------------------------------------------------------------

def test_v2_11_004_the_first_night_victim_may_not_be_the_same_seat_twice_in_a_row():
    g = Game("standard-2.0", TWELVE, {"first_victim.max_repeat": 1}, history=[9])
    assert 9 not in g.waiting.choices
    assert g.rejects(GroupPick(9)) == "bad_target"


def test_v2_11_by_default_standard_2_0_plays_004s_rule_and_no_limit_stays_an_option():
    """004 §5.8: 「不允许连续两局第一轮杀同一个人。」 The default of standard-2.0; a club may choose no limit (0)."""
    assert load_variant("standard-2.0").options["first_victim.max_repeat"] == 1
    g = Game("standard-2.0", TWELVE, history=[3, 9])  # seat 9 was last game's first victim
    assert 9 not in g.waiting.choices and 3 in g.waiting.choices
    assert g.rejects(GroupPick(9)) == "bad_target"
    g = Game("standard-2.0", TWELVE, {"first_victim.max_repeat": 0}, history=[9, 9, 9])
    assert 9 in g.waiting.choices
    g.night(kill=9)  # no limit: the same first victim a fourth time
    assert g.of(Dawn)[-1].deaths == ((9, "killed"),)


def test_v2_11_000_two_in_a_row_allowed_not_three():
    """000 supplement 3: 「不允許連續三次或三次以上第一輪殺掉同一個人。」 (option value 2)."""
    g = Game("standard-2.0", TWELVE, {"first_victim.max_repeat": 2}, history=[9])
    assert 9 in g.waiting.choices
    g = Game("standard-2.0", TWELVE, {"first_victim.max_repeat": 2}, history=[9, 9])
    assert 9 not in g.waiting.choices


def test_v2_11_with_a_recognition_first_night_the_rule_binds_the_killers_first_kill_on_night_2():
    g = Game("standard-2.0", TWELVE, {"first_victim.max_repeat": 1, "first_night": "recognition"}, history=[9])
    g.night()  # V2.10: recognition only, nobody can be killed
    g.talk()
    g.hands({12: [1, 2, 3, 4, 5, 6, 7]})  # the day-one blind push
    g.talk()
    assert g.step == "kill" and g.state.night == 2
    assert 9 not in g.waiting.choices
    assert g.rejects(GroupPick(9)) == "bad_target"


def test_v2_11_the_first_night_victim_is_read_from_a_games_events():
    g = std()
    g.night(kill=9)
    assert first_victim(g.events) == 9
    g = Game("standard-2.0", TWELVE, {"first_night": "recognition"})
    g.night()
    assert first_victim(g.events) is None  # the game has not reached its first kill night yet
    g.talk()
    g.hands({12: [1, 2, 3, 4, 5, 6, 7]})
    g.talk()
    g.night(kill=4)
    assert first_victim(g.events) == 4


def test_v2_11_a_first_night_without_a_death_has_no_victim():
    g = std()
    g.night()  # the killers let the deadline pass: the kill is forfeited (C5)
    assert first_victim(g.events) is None


def test_v2_11_only_a_sides_last_survivor_may_surrender_and_civilians_never():
    g = std("K K P P C C C C")
    assert g.rejects(Surrender(1)) == "partners_alive"
    assert g.rejects(Surrender(5)) == "civilian_surrender"
    g.night(kill=5)
    g.talk()
    g.hands({2: [1, 3, 4, 6, 7]})
    g.talk()
    g.do(Surrender(1))
    assert g.winner == "good"


def test_v2_11_the_judge_ejects_a_player_and_gives_penalty_points():
    g = std()
    g.do(Penalty(8))
    g.do(Penalty(8))
    assert g.of(Penalised)[-1].total == 2
    g.do(Eject(9, "opened eyes at night"))
    assert 9 not in g.alive and g.of(Died)[-1].cause == "ejected"
    assert g.rejects(GroupPick(9)) == "target_dead"  # the killers' step was already open


def test_v2_11_a_candidate_ejected_during_the_vote_gets_no_hands_in_the_judges_count():
    g = std()
    g.night(kill=12)
    g.talk()
    assert g.step == "vote"
    g.do(Eject(9, "spoke out of turn again"))
    g.do(Ballot(((1, 9), (2, 9), (3, 9), (4, 5))))  # the count still names seat 9, who is out of the game
    closed = g.of(VoteClosed)[-1]
    assert (closed.tally, closed.out) == (((5, 1),), 5)


# ---- V2.12 self-kill ------------------------------------------------------------------------------------------

def test_v2_12_killers_may_kill_a_partner_by_strict_majority():
    g = std()
    g.do(Pick(1, 3))
    g.do(Pick(2, 3))
    g.do(Pick(3, 8))
    assert g.step == "check"
    g.night(check=9)
    assert g.of(Dawn)[0].deaths == ((3, "killed"),)


def test_v2_12_a_self_kill_without_a_majority_is_not_a_decision():
    g = std("K K P P C C C C")
    g.do(Pick(1, 2))
    g.do(Timeout())  # only one of two killers wants it: forfeited at the deadline
    assert g.step == "check"
