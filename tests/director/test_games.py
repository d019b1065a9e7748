"""Whole games through the director on the simulated table: bots press the buttons and tap the cards, the
voice is a NullVoice that writes down what it was asked to say, the clock is virtual."""

from __future__ import annotations

import pytest

from controller.screens import views as v
from controller.voice.prompts import ENDINGS
from tests.director.helpers import ScriptedTable, play, session

GAMES = [
    ("classic-1.0", 10, {}),
    ("classic-1.0", 8, {"lastwords": "quota"}),
    ("standard-2.0", 12, {"tie": "club"}),  # V2.7 each tie procedure
    ("standard-2.0", 12, {"tie": "revote"}),
    ("standard-2.0", 12, {"tie": "debate_first"}),
    ("standard-2.0", 12, {"tie": "top2"}),
    ("standard-2.0", 12, {"lastwords": "killer_silent"}),  # V2.8
    ("standard-2.0", 12, {"vote": "from_victim"}),  # V2.5 (004)
    ("standard-2.0", 12, {"speech.any_direction": True}),  # V2.4
    ("standard-2.0", 12, {"defence.suspects": True}),  # C3
    ("standard-2.0", 12, {"first_night": "recognition"}),  # V2.10
    ("standard-2.0", 9, {"win": "civilians_lose", "group_tie": "random"}),
    ("five-identities", 10, {}),
    ("v3.0", 12, {}),
    ("v4.0", 12, {}),  # V4.7/V4.8: last words round the table, defence with the vote in turn
    ("v4.0", 13, {"needle.no_save_from_shot": True}),
    ("v7.0", 14, {}),  # V7.1: angel and devil
    ("v5.0-infernal", 13, {}),  # V5.2 recognition night, V5.3 guests in the kill and the check
    ("dual-card-6.0", 9, {}),  # D1 first identities at the deal, D3 two doctors and two snipers
    ("dual-card-6.0", 10, {"dual.police_killer": "choose"}),
    ("dual-card-5.0", 8, {}),  # D2: 8 seats, 16 card places, each seat acting for its two
    ("dual-card-5.0", 10, {}),
]


@pytest.mark.parametrize("variant,players,options", GAMES, ids=lambda x: str(x))
@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_game_ends_with_a_result_and_every_screen_reveals_its_own_role(variant, players, options, seed):
    s = session(variant, players, seed, "heuristic", options)
    r = play(s)
    assert r["winner"] in ("killers", "good", "draw")
    said = s.voice.prompts_said()
    assert said[0] == "setup.look_at_card"
    assert said.count("night.falls") == r["nights"]
    assert said[-2:] == [ENDINGS[variant][r["winner"]], "ending.game_over"]  # C4, in the words of the seed
    # C4: the end reveals each seat's own role on its own screen
    for seat in range(1, players + 1):
        view = s.director.ui[seat].drawn
        assert isinstance(view, v.GameOver) and view.role == r["roles"][str(seat)]
    call = {"v4.0": "out", "dual-card-6.0": "come"}.get(variant, "wake")  # V4.2 出动; 000 6.0 出来; else 睁眼
    assert f"role.killer.{call}" in said


@pytest.mark.parametrize("policy", ["random", "uninformed"])
def test_games_end_whatever_the_bots_do(policy):
    for seed in range(3):
        assert play(session("standard-2.0", 10, seed, policy))["winner"] in ("killers", "good", "draw")


def test_a_card_dealt_game_ends_the_same_way_every_time():
    first = play(session("standard-2.0", 12, 7, cards=True))
    again = play(session("standard-2.0", 12, 7, cards=True))
    assert first == again
    assert first["winner"] in ("killers", "good", "draw")


def test_the_outcome_depends_only_on_the_seed():
    assert play(session(seed=11)) == play(session(seed=11))


def test_a_scripted_first_night_is_announced_in_order():
    """Standard 2.0, eight seats: killers 1 and 2 kill seat 5, police 3 and 4 check seat 1 (a nod)."""
    t = ScriptedTable("standard-2.0", "K K P P C C C C")
    assert t.said() == ["setup.tap_card"]
    t.deal()
    t.first_night(kill=5, check=1)
    t.until_window("speeches")
    said = t.said()
    night = said[said.index("night.falls"):]
    assert night[:12] == [
        "night.falls",
        "role.killer.wake", "role.killer.act", "role.killer.sleep",
        "role.police.wake", "role.police.act", "role.police.sleep",
        "dawn.breaks", "dawn.deaths", "seat.5",
        "seat.5", "lastwords.your_turn",  # V2.3: the night's victim leaves last words
    ]
    assert t.voice.cues[0].what == "masking on"
    assert any(c.what == "masking off" for c in t.voice.cues)
    # the victim's last words are over: their screen says so and their LED is dark again
    assert t.screen(5) == v.Dead(5) and t.led(5) == (0, 0, 0)


def test_classic_night_has_no_police_step():
    t = ScriptedTable("classic-1.0", "K K C C C C C C")
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 8)
    t.point(2, 8)
    t.until_window("last_words")
    said = t.said()
    assert said[said.index("night.falls"):] == [
        "night.falls", "role.killer.wake", "role.killer.act", "role.killer.sleep",
        "dawn.breaks", "dawn.deaths", "seat.8", "seat.8", "lastwords.your_turn"]


def test_v3_night_wakes_every_role_in_order():
    t = ScriptedTable("v3.0", "K K P D S C C C C")
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 6)
    t.point(2, 6)
    t.until_window("night", "check")
    t.point(3, 1)
    t.until_window("night", "save")
    t.point(4, 6)  # the doctor saves the victim
    t.until_window("night", "secret")
    t.point(5, None)  # the secret police do not shoot tonight
    t.run_until(lambda: t.director.state.phase == "day")
    t.run_for(30)
    said = t.said()
    order = [p for p in said if p.startswith("role.") and p.endswith(".wake")]
    assert order[:4] == ["role.killer.wake", "role.police.wake", "role.doctor.wake", "role.secret_police.wake"]
    assert "dawn.nobody_died" in said  # V3.4: the saved victim lives
