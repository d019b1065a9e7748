"""Version 4.0: butterfly, sniper, forest elder (V4.1–V4.9). Clashes of effects: test_night_matrix.py.

Table (11 players): 1 butterfly, 2 sniper, 3 doctor, 4 forest elder, 5 police, 6-8 killers, 9-11 civilians.
"""

from __future__ import annotations

import pytest

from controller.rules.actions import Pass, Pick, Timeout, Vote
from controller.rules.events import Dawn, Died, GameEnded, VoteClosed
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game

ELEVEN = "B J D E P K K K C C C"


def v4(cards: str = ELEVEN, **options) -> Game:
    return Game("v4.0", cards, options)


def last_words(g: Game) -> list[int]:
    assert g.waiting and g.waiting.kind == "last_words"
    return list(g.state.queue)


def defence_round(g: Game, votes: dict[int, int]) -> list[int]:
    """Each player in turn: defence (pass), then their vote (``votes[seat]``, or the deadline). Returns who
    gave a defence speech, in order, and checks each vote came right after that player's own defence."""
    spoke = []
    while g.waiting and g.waiting.step in ("defence", "vote.defence"):
        p = g.waiting
        if p.kind == "speeches":
            spoke.append(p.seats[0])
            g.do(Pass(p.seats[0]))
            continue
        voter = p.seats[0]
        assert not spoke or spoke[-1] == voter or voter not in spoke
        g.do(Vote(voter, votes[voter]) if voter in votes else Timeout())
    return spoke


# ---- V4.1 cards -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "killers", "civilians"), [
    (11, 3, 3), (12, 3, 4), (13, 3, 5), (15, 4, 6), (17, 5, 7), (14, 4, 5), (20, 7, 8)])
def test_v4_1_five_specials_three_killers_then_killers_and_civilians_grow_one_to_one(players, killers, civilians):
    comp = dict(configure(load_variant("v4.0"), players).composition)
    assert comp == {"butterfly": 1, "sniper": 1, "doctor": 1, "elder": 1, "police": 1, "killer": killers,
                    "civilian": civilians}


def test_v4_1_the_smallest_table_is_eleven_players():
    assert load_variant("v4.0").min_players == 11
    assert load_variant("v4.0").max_players == 20


# ---- V4.2 night order -----------------------------------------------------------------------------------------

def test_v4_2_butterfly_sniper_doctor_killers_police_elder_each_optional():
    g = v4()
    order = []
    while g.state.phase == "night":
        order.append((g.step, g.waiting.seats))
        assert None in g.waiting.choices  # decision: every action may be skipped
        g.act(g.step, None)
    assert order == [("hug", (1,)), ("shoot", (2,)), ("needle", (3,)), ("kill", (6, 7, 8)), ("check", (5,)),
                     ("silence", (4,))]


def test_v4_2_the_butterfly_may_not_hug_itself_but_sniper_doctor_elder_and_killers_may_target_themselves():
    g = v4()
    assert 1 not in g.waiting.choices
    assert g.rejects(Pick(1, 1)) == "bad_target"
    g.act("hug", 9)
    assert 2 in g.waiting.choices
    g.act("shoot", None)
    assert 3 in g.waiting.choices
    g.act("needle", None)
    assert {6, 7, 8} <= set(g.waiting.choices)
    g.act("kill", None)
    g.act("check", None)
    assert 4 in g.waiting.choices


# ---- V4.3 police check ------------------------------------------------------------------------------------------

def test_v4_3_nod_for_a_killer_shake_for_specials_and_no_signal_on_the_hugged():
    g = v4()
    g.night(check=6)
    assert g.check_result == "nod"
    g2 = v4()
    g2.night(check=2)  # the sniper: a special, still a shake
    assert g2.check_result == "shake"
    g3 = v4()
    g3.night(hug=7, check=7)
    assert g3.check_result == "none"


# ---- V4.4 butterfly -------------------------------------------------------------------------------------------

def test_v4_4_the_killers_victim_hugged_by_the_butterfly_lives_but_both_die_if_the_butterfly_is_killed():
    g = v4()
    g.night(hug=9, kill=9)
    assert g.of(Dawn)[-1].deaths == ()
    g = v4()
    g.night(hug=9, kill=1)
    assert g.of(Dawn)[-1].deaths == ((1, "killed"), (9, "killed"))


# ---- V4.5 and V4.6 needles ------------------------------------------------------------------------------------

def test_v4_5_a_needle_saves_the_killers_victim_and_killed_and_shot_dies_anyway():
    g = v4()
    g.night(needle=10, kill=10)
    assert g.of(Dawn)[-1].deaths == ()
    g = v4()
    g.night(needle=10, kill=10, shoot=10)
    assert g.of(Dawn)[-1].deaths == ((10, "killed"),)


def test_v4_5_option_no_save_from_shot_the_needle_never_saves_from_a_shot():
    g = v4(**{"needle.no_save_from_shot": True})
    g.night(needle=10, shoot=10)
    assert g.of(Dawn)[-1].deaths == ((10, "shot"),)


def test_v4_6_two_empty_needles_on_different_nights_kill():
    g = v4()
    g.night(needle=11)
    assert g.of(Dawn)[-1].deaths == ()
    g.talk()
    defence_round(g, {})
    g.night(needle=11)
    assert g.of(Dawn)[-1].deaths == ((11, "needles"),)


# ---- V4.7 last words ------------------------------------------------------------------------------------------

def test_v4_7_all_the_nights_dead_killers_included_speak_from_the_judge_forward_on_day_one():
    g = v4()
    g.night(hug=9, kill=1, shoot=6)  # butterfly 1 and hugged 9 killed, killer 6 shot
    assert last_words(g) == [1, 6, 9]


def test_v4_7_reverse_on_day_two():
    g = v4()
    g.night()
    defence_round(g, {})
    g.night(kill=9, shoot=10)
    assert g.state.day == 2
    assert last_words(g) == [10, 9]


def test_v4_7_a_silenced_victim_leaves_no_last_words():
    g = v4()
    g.night(kill=9, shoot=10, silence=9)
    assert last_words(g) == [10]


# ---- V4.8 defence and compulsory votes ------------------------------------------------------------------------

def test_v4_8_defence_starts_after_the_last_last_words_speaker_each_speech_followed_by_its_vote():
    g = v4()
    g.night(kill=9)
    assert last_words(g) == [9]
    g.do(Pass(9))
    assert g.waiting.step == "defence" and g.waiting.seats == (10,)
    g.do(Pass(10))
    assert g.waiting.step == "vote.defence" and g.waiting.seats == (10,)
    assert None not in g.waiting.choices  # the vote is compulsory
    assert 10 in g.waiting.choices  # self-vote allowed
    g.do(Vote(10, 10))
    assert g.waiting.step == "defence" and g.waiting.seats == (11,)


def test_v4_8_the_defence_starts_after_the_last_player_who_gave_last_words_not_after_a_silenced_victim():
    """001/000 4.0: 「法官宣布"辩护开始"，从最后一个遗言死者同序下一人开始辩护」. Seat 10 is shot and silenced: it
    gives no last words, so the defence starts after seat 9, the last one who spoke, and ends with seat 8, the
    seat before it (直到最后遗言死者上一家辩护并投票完毕)."""
    g = v4()
    g.night(shoot=11, kill=9, silence=11)  # day 1 runs forward (clockwise): 9 then 11 from the judge
    assert sorted(d for d, _ in g.of(Dawn)[-1].deaths) == [9, 11]
    assert last_words(g) == [9]  # the silenced victim gives none
    g.do(Pass(9))
    assert g.waiting.step == "defence" and g.waiting.seats == (10,)  # after seat 9, not after seat 11
    spoke = defence_round(g, {s: 6 for s in g.alive})
    assert spoke == [10, 1, 2, 3, 4, 5, 6, 7, 8]


def test_v4_8_the_defence_starts_after_the_last_speaker_on_a_reverse_day_too():
    g = v4()
    g.night()
    defence_round(g, {s: 11 for s in g.alive})  # day 1: seat 11 is voted out
    g.talk()
    g.night(kill=9, shoot=3, silence=3)  # day 2 runs in reverse: 9 before 3 from the judge; 3 silenced
    assert last_words(g) == [9]
    g.do(Pass(9))
    assert g.waiting.seats == (8,)  # the seat after 9 in reverse, not after 3 (which would be 2)


def test_v4_8_with_no_night_death_the_defence_starts_from_the_judge():
    g = v4()
    g.night()
    spoke = defence_round(g, {})
    assert spoke == list(range(1, 12))


def test_v4_8_a_silenced_player_gives_no_defence_but_votes():
    g = v4()
    g.night(silence=5)
    votes = {s: 6 for s in range(1, 12)}
    spoke = defence_round(g, votes)
    assert 5 not in spoke
    assert g.of(VoteClosed)[-1].tally == ((6, 11),)


def test_v4_8_a_killer_voted_out_is_announced_and_leaves_no_last_words():
    g = v4()
    g.night()
    defence_round(g, {s: 6 for s in range(1, 12)})
    assert g.of(Died)[-1] == Died(6, "executed.killer")
    assert g.state.phase == "night"  # no last words: the next night falls


def test_v4_8_a_good_player_voted_out_is_announced_and_leaves_last_words():
    g = v4()
    g.night()
    defence_round(g, {s: 9 for s in range(1, 12)})
    assert g.of(Died)[-1] == Died(9, "executed.good")
    assert g.waiting.step == "last_words.executed" and g.waiting.seats == (9,)


def test_v4_8_a_tie_means_nobody_is_voted_out():
    g = v4()
    g.night()
    defence_round(g, {1: 9, 2: 9, 3: 10, 4: 10})
    assert g.of(VoteClosed)[-1].tied == (9, 10)
    assert not g.of(Died)
    assert g.state.phase == "night"


# ---- V4.9 win -------------------------------------------------------------------------------------------------

def test_v4_9_good_wins_when_all_killers_are_dead():
    g = v4("B J D E P K C C C C C")
    g.night(shoot=6)
    assert g.winner == "good"


def test_v4_9_killers_win_when_all_specials_are_dead():
    g = v4("E K K C C C C C C C C")  # the forest elder is the only special at this (custom) table
    g.night(kill=1)
    assert g.winner == "killers"  # 2 killers against 8 others: it is the specials rule that holds
    assert "elder" in g.state.end_reason


def test_v4_9_killers_win_when_they_are_at_least_the_others():
    g = v4("B J D E P K K K C C C")
    # night 1: kill 9; day: vote out 10; night 2: kill 11 -> 3 killers vs 5 others; ... simplest: shots
    g.night(kill=9, shoot=10)  # 9 others left... 3 killers vs 6 others
    g.talk()
    defence_round(g, {s: 11 for s in g.alive})
    g.talk()
    g.night(kill=5, shoot=4)  # 3 killers vs 3 others (1, 2, 3)
    assert g.winner == "killers"


def test_v4_9_the_last_killer_and_the_last_special_dying_in_the_same_night_is_a_draw():
    g = v4("B K C C C C C C C C C")
    g.night(hug=None, kill=1)  # the killer kills the butterfly, the only special ...
    assert g.winner == "killers"
    g = v4("J K C C C C C C C C C")
    g.night(shoot=2, kill=1)  # ... the sniper shoots the last killer as the killer kills the sniper
    assert g.winner == "draw"
    assert g.of(GameEnded)[-1].winner == "draw"
