"""The judge's words (announce.py), checked against the seeds' script without a table: what the voice says for
each event and each turn, in the seeds' order and, for the Chinese pack, in the seeds' own words."""

from __future__ import annotations

import pytest

from controller.director import announce
from controller.rules import engine
from controller.rules.actions import Pass, Penalty, Pick, Vote
from controller.rules.events import Dawn, Died, NightFell, Penalised
from controller.voice.build import load_catalog
from tests.rules.table import Game


def zh(ids: list[str]) -> str:
    """The Chinese pack's words for ``ids`` (seats and numbers as the pack says them)."""
    prompts = load_catalog()["prompts"]
    assert isinstance(prompts, dict)
    return "".join(prompts[i]["zh-CN"] for i in ids)


def said_for(g: Game, kind: type) -> list[str]:
    event = [e for e in g.events if isinstance(e, kind)][-1]
    return announce.for_event(event, g.state)


def turn(g: Game) -> list[str]:
    p = engine.pending(g.state)
    assert p is not None
    return announce.turn(g.state, p)


# ---- 2.0: seed 004 §3 is the judge's script -----------------------------------------------------------------

def test_2_0_night_in_seed_004s_words():
    """004 §3: 「天黑了，请大家低头闭眼。」「杀手请睁眼，杀手请杀人。」「杀手请闭眼。」「警察请睁眼，警察请指认。」
    「警察请闭眼。」「天亮了，请大家睁眼。」"""
    night = [*announce.for_event(NightFell(1)), *announce.wake("killer", "kill", False),
             *announce.sleep("killer"), *announce.wake("police", "check", False), *announce.sleep("police")]
    assert zh(night) == "天黑了，请大家低头闭眼。杀手请睁眼。杀手请杀人。杀手请闭眼。警察请睁眼。警察请指认。警察请闭眼。"
    assert zh(announce.for_event(Dawn(1, ()))).startswith("天亮了，请大家睁眼。")


def test_2_0_a_death_past_the_quota_is_told_it_has_no_last_words():
    """004 §3.19: 「前面4个死人（包括被杀者和被公决者）可留遗言。其后死的人没有遗言。」"""
    g = Game("standard-2.0", "K K P P C C C C C C")  # 2 police: a quota of 2
    g.night(kill=5)
    assert announce.for_event([e for e in g.events if isinstance(e, Dawn)][-1], g.state)[-1] == "seat.5"
    g.talk()
    g.hands({6: [1, 2, 3]})  # death 2: last words
    assert said_for(g, Died) == ["seat.6", "execution.voted_out"]
    g.talk()
    g.night(kill=7)  # death 3: none
    assert said_for(g, Dawn)[-2:] == ["seat.7", "lastwords.none"]
    assert zh(said_for(g, Dawn)[-1:]) == "没有遗言。"
    g.talk()
    g.hands({8: [1, 2, 3]})  # death 4: none
    assert said_for(g, Died) == ["seat.8", "execution.voted_out", "lastwords.none"]


def test_2_0_the_recognition_night_says_so():
    g = Game("standard-2.0", "K K P P C C C C C C", {"first_night": "recognition"})
    assert said_for(g, NightFell) == ["night.falls", "night.recognition_only"]


def test_a_penalty_point_tells_the_seat_not_to_speak_out_of_turn():
    """004 §5.4: 「擅自发言者如在法官给出警告后屡犯同样错误…法官有权按规定对其进行扣分处罚。」"""
    g = Game("standard-2.0", "K K P P C C C C C C")
    g.do(Penalty(7))
    assert said_for(g, Penalised) == ["seat.7", "speech.out_of_turn"]


def test_c3_and_v2_7_a_defence_speech_is_called_as_one():
    g = Game("standard-2.0", "K K K P P P C C C C C C", {"tie": "revote"})
    g.night(kill=7)
    g.talk()
    g.hands({9: [1], 10: [4]})
    g.hands({9: [1], 10: [4]})  # still tied: the tied make their defence
    assert g.step == "tie.defence" and turn(g) == [f"seat.{g.waiting.seats[0]}", "speech.defend"]


# ---- 4.0: out and back; the defence round ----------------------------------------------------------------------

ELEVEN = "B J D E P K K K C C C"


@pytest.mark.parametrize(("role", "ability", "words"), [
    ("butterfly", "hug", "花蝴蝶"), ("sniper", "shoot", "狙击手"), ("doctor", "needle", "医生"),
    ("killer", "kill", "杀手"), ("police", "check", "警察"), ("elder", "silence", "森林老人")])
def test_4_0_calls_each_role_out_and_back(role, ability, words):
    """V4.2: 「法官宣布"花蝴蝶出动" … 才可宣布"花蝴蝶回去"」, and so for every role."""
    assert zh(announce.wake(role, ability, True, "out_back")) == f"{words}出动。"
    assert zh(announce.sleep(role, "out_back")) == f"{words}回去。"


def test_a_club_variant_that_wakes_the_forest_elder_with_the_eyes_call_calls_it_out_and_back():
    assert announce.wake("elder", "silence", True) == ["role.elder.out"]
    assert announce.sleep("elder") == ["role.elder.back"]


def test_4_0_the_variant_file_asks_for_out_and_back():
    assert Game("v4.0", ELEVEN).config.variant.night_call == "out_back"
    assert Game("standard-2.0", "K K P P C C C C").config.variant.night_call == "eyes"


def test_4_0_the_defence_round_begins_everyone_must_vote_and_the_silenced_is_named():
    """4.0: 「被禁言的人不允许说话」; 「法官宣布"辩护开始"」; 「辩护完的人立即投票 … 每个人都必须投一个人，可以投自己」."""
    g = Game("v4.0", ELEVEN)
    g.night(kill=9, silence=1)
    dawn = said_for(g, Dawn)
    assert dawn[-2:] == ["seat.1", "speech.silenced"]
    assert zh(dawn[-1:]) == "被禁言，不允许说话。"
    assert turn(g) == ["seat.9", "lastwords.your_turn"]
    g.do(Pass(9))
    assert turn(g) == ["defence.begins", "vote.everyone_must_vote", "seat.10", "speech.defend_and_vote"]
    assert zh(turn(g)[:2]) == "辩护开始。每个人都必须投一个人，可以投自己。"
    g.do(Pass(10))
    assert turn(g) == []  # seat 10 votes at once
    g.do(Vote(10, 6))
    g.do(Pass(11))
    g.do(Vote(11, 6))
    assert g.waiting.step == "vote.defence" and g.waiting.seats == (1,)
    assert turn(g) == ["seat.1", "speech.silenced"]  # the silenced seat's turn is a vote only


def test_4_0_a_killer_voted_out_has_no_last_words_a_good_player_is_asked_for_them():
    """4.0: 「如果被投死的人是杀手，法官则宣布"杀手被投死，没有遗言" … 法官宣布"好人被投死，请留遗言"」"""
    g = Game("v4.0", ELEVEN)
    g.night()
    while g.state.phase == "day" and g.waiting:
        p = g.waiting
        g.do(Pass(p.seats[0]) if p.kind == "speeches" else Vote(p.seats[0], 6))
    assert said_for(g, Died) == ["seat.6", "execution.killer_out", "lastwords.none"]
    assert zh(said_for(g, Died)[1:]) == "杀手被投死。没有遗言。"
    g = Game("v4.0", ELEVEN)
    g.night()
    while g.waiting and g.waiting.kind != "last_words":
        p = g.waiting
        g.do(Pass(p.seats[0]) if p.kind == "speeches" else Vote(p.seats[0], 9))
    assert said_for(g, Died) == ["seat.9", "execution.good_out"]
    assert zh([*said_for(g, Died)[1:], *turn(g)[1:]]) == "好人被投死。请留遗言。"


def test_6_0_calls_each_role_to_come_out_and_go_back_and_asks_the_sniper():
    """000 6.0: 「天黑，法官叫殺手出來 … 然後殺手回去警察出來 … 1號狙擊出來 … 問狙擊是否行使權利，然後狙人或者回去」"""
    from controller.rules.variant import load_variant

    v = load_variant("dual-card-6.0")
    assert v.night_call == "come_back"
    night = [p for st in v.night for p in (*announce.wake("+".join(st.call or st.roles), st.ability, st.optional,
                                                          v.night_call), *announce.sleep("+".join(st.roles),
                                                                                         v.night_call))]
    assert zh(night[:4]) == "杀手出来。杀手回去。警察出来。警察回去。"
    assert zh(night[-3:]) == "狙击手出来。狙击手，今晚是否开枪？狙击手回去。"


# ---- 7.0 and D3 -------------------------------------------------------------------------------------------------

def test_7_0_the_player_the_angel_takes_along_by_day_has_no_last_words():
    """000 7.0: 「天使死時，可以抱走一人，並且此人沒有遺言」"""
    g = Game("v7.0", "K K P P A V C C C C")
    g.night(kill=7, revive=None)
    g.talk()
    g.hands({5: [1, 2, 3, 6]})
    g.do(Pick(5, 1))
    died = [e for e in g.events if isinstance(e, Died)]
    assert announce.for_event(died[-1], g.state) == ["seat.1", "death.taken_along"]


def test_no_last_words_is_said_only_of_a_death_without_them():
    """With ``lastwords = all`` (V1.3) every death speaks: nobody is told they have none."""
    g = Game("standard-2.0", "K K P P C C C C C C", {"lastwords": "all"})
    g.night(kill=5)
    assert "lastwords.none" not in said_for(g, Dawn)


# ---- through the table: the director says these words, in the seeds' order ----------------------------------------

def test_a_4_0_game_on_the_table_calls_out_and_back_and_opens_each_defence_round():
    from tests.director.helpers import play, session

    s = session("v4.0", 12, 3, "heuristic")
    play(s)
    said = s.voice.prompts_said()
    night_1 = said[said.index("night.falls"):said.index("dawn.breaks")]
    assert night_1 == ["night.falls", "role.butterfly.out", "role.butterfly.back", "role.sniper.out",
                       "role.sniper.back", "role.doctor.out", "role.doctor.back", "role.killer.out",
                       "role.killer.back", "role.police.out", "role.police.back", "role.elder.out", "role.elder.back"]
    rounds = [i for i, p in enumerate(said) if p == "defence.begins"]
    assert rounds and all(said[i + 1] == "vote.everyone_must_vote" for i in rounds)
    assert said.count("defence.begins") <= said.count("dawn.breaks")  # one round a day at most
    assert "speech.defend_and_vote" in said
    assert not [p for p in said if p.endswith((".wake", ".sleep"))]  # 4.0 never says 睁眼/闭眼 for a role


def test_a_2_0_game_on_the_table_says_no_last_words_past_the_quota():
    """004 §3.19: 「前面4个死人（包括被杀者和被公决者）可留遗言。其后死的人没有遗言。」 (here 2 police, 2 words)"""
    from tests.director.helpers import play, session

    s = session("standard-2.0", 10, 2, "heuristic")
    play(s)
    said = s.voice.prompts_said()
    dead = s.director.state.dead
    assert len(dead) >= 4
    assert said.count("lastwords.your_turn") == 2
    # every death after the second is told it has none, but the last one if it ended the game
    assert len(dead) - 3 <= said.count("lastwords.none") <= len(dead) - 2
    for i, p in enumerate(said):
        if p == "lastwords.none":
            assert said[i - 1].startswith("seat.") or said[i - 1] == "execution.voted_out"
