"""Every pair (and triple) of effects that can meet on one player in one night, in versions 4.0 and 7.0, as ONE
table: read a row as "tonight: <effects> -> at dawn: <deaths>". The rules are V4.4 (butterfly), V4.5 (needle),
V4.6 (empty needles), V4.3 (check on the hugged), V7.1 (angel and devil); controller/rules/clash.py decides.

4.0 table (11 players): 1 butterfly, 2 sniper, 3 doctor, 4 forest elder, 5 police, 6-8 killers, 9-11 civilians.
7.0 table (10 players): 1-2 killers, 3-4 police, 5 angel, 6 devil, 7-10 civilians.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.rules.actions import Pass, Timeout
from controller.rules.events import Acted, Dawn
from tests.rules.table import Game

V4 = "B J D E P K K K C C C"
V7 = "K K P P A V C C C C"
NO_SAVE = {"needle.no_save_from_shot": True}

#: (row, variant, options, nights (each the steps' targets), deaths at the last dawn, empty needles after it)
MATRIX: list[tuple[str, str, dict[str, Any], list[dict[str, Any]], tuple[tuple[int, str], ...], dict[int, int]]] = [
    # -- one effect -----------------------------------------------------------------------------------------
    ("kill", "v4.0", {}, [dict(kill=9)], ((9, "killed"),), {}),
    ("shot", "v4.0", {}, [dict(shoot=9)], ((9, "shot"),), {}),
    ("killers kill one of their own (V4.2)", "v4.0", {}, [dict(kill=6)], ((6, "killed"),), {}),
    ("sniper shoots themself (V4.2)", "v4.0", {}, [dict(shoot=2)], ((2, "shot"),), {}),
    ("one empty needle (V4.6)", "v4.0", {}, [dict(needle=9)], (), {9: 1}),
    ("silence alone", "v4.0", {}, [dict(silence=9)], (), {}),
    # -- needle against attacks (V4.5) ---------------------------------------------------------------------
    ("needle + kill", "v4.0", {}, [dict(needle=9, kill=9)], (), {}),
    ("needle + shot", "v4.0", {}, [dict(needle=9, shoot=9)], (), {}),
    ("needle + shot, needle.no_save_from_shot", "v4.0", NO_SAVE, [dict(needle=9, shoot=9)], ((9, "shot"),), {}),
    ("needle + kill, needle.no_save_from_shot", "v4.0", NO_SAVE, [dict(needle=9, kill=9)], (), {}),
    ("kill + shot", "v4.0", {}, [dict(kill=9, shoot=9)], ((9, "killed"),), {}),
    ("needle + kill + shot (decision: dies)", "v4.0", {}, [dict(needle=9, kill=9, shoot=9)], ((9, "killed"),), {}),
    ("doctor needles themself when killed", "v4.0", {}, [dict(needle=3, kill=3)], (), {}),
    # -- empty needles accumulate (V4.6) ---------------------------------------------------------------------
    ("two empty needles on two nights", "v4.0", {}, [dict(needle=9), dict(needle=9)], ((9, "needles"),), {9: 2}),
    ("empty needle, then a needle that saves", "v4.0", {}, [dict(needle=9), dict(needle=9, kill=9)], (), {9: 1}),
    ("a needle that saves is not empty", "v4.0", {}, [dict(needle=9, kill=9), dict(needle=9)], (), {9: 1}),
    # -- effects aimed at the hugged are void (V4.4) -----------------------------------------------------------
    ("hug + kill on the hugged", "v4.0", {}, [dict(hug=9, kill=9)], (), {}),
    ("hug + shot on the hugged", "v4.0", {}, [dict(hug=9, shoot=9)], (), {}),
    ("hug + needle on the hugged (no empty needle)", "v4.0", {}, [dict(hug=9, needle=9)], (), {}),
    ("hug + kill + shot on the hugged", "v4.0", {}, [dict(hug=9, kill=9, shoot=9)], (), {}),
    # -- effects on the butterfly also hit the hugged (V4.4) ------------------------------------------------
    ("butterfly killed while hugging", "v4.0", {}, [dict(hug=9, kill=1)], ((1, "killed"), (9, "killed")), {}),
    ("butterfly shot while hugging", "v4.0", {}, [dict(hug=9, shoot=1)], ((1, "shot"), (9, "shot")), {}),
    ("butterfly killed and needled: both saved", "v4.0", {}, [dict(hug=9, kill=1, needle=1)], (), {}),
    ("butterfly needled, not attacked: two empty needles", "v4.0", {}, [dict(hug=9, needle=1)], (), {1: 1, 9: 1}),
    ("butterfly killed, hugged needled: the needle is void", "v4.0", {}, [dict(hug=9, kill=1, needle=9)],
     ((1, "killed"), (9, "killed")), {}),
    ("butterfly shot, hugged killed: only the copied shot lands", "v4.0", {}, [dict(hug=9, shoot=1, kill=9)],
     ((1, "shot"), (9, "shot")), {}),
    ("butterfly killed and shot, needled: both die", "v4.0", {}, [dict(hug=9, kill=1, shoot=1, needle=1)],
     ((1, "killed"), (9, "killed")), {}),
    ("butterfly hugs a killer who is shot: void", "v4.0", {}, [dict(hug=6, shoot=6)], (), {}),
    # -- 7.0: angel and devil (V7.1) ------------------------------------------------------------------------
    ("revive + kill", "v7.0", {}, [dict(kill=7, revive=5)], (), {}),
    ("revive with nobody killed (spent anyway)", "v7.0", {}, [dict(revive=5)], (), {}),
    ("killers kill the devil: nothing", "v7.0", {}, [dict(kill=6)], (), {}),
    ("angel killed, takes seat 1 along", "v7.0", {}, [dict(kill=5, take=1)], ((1, "taken_along"), (5, "killed")),
     {}),
    ("angel killed, revives (itself, unknowingly)", "v7.0", {}, [dict(kill=5, revive=5)], (), {}),
    ("angel killed, takes nobody", "v7.0", {}, [dict(kill=5, take=None)], ((5, "killed"),), {}),
]


def quiet_day(g: Game) -> None:
    """The day passes: every speaker says "pass", every vote runs out of time, nobody is voted out."""
    while g.waiting and g.state.phase == "day":
        p = g.waiting
        g.do(Pass(p.seats[0]) if p.kind in ("speeches", "last_words") else Timeout())


@pytest.mark.parametrize(("row", "variant", "options", "nights", "deaths", "needles"), MATRIX,
                         ids=[row[0] for row in MATRIX])
def test_night_matrix(row, variant, options, nights, deaths, needles):
    g = Game(variant, V4 if variant == "v4.0" else V7, options)
    for i, targets in enumerate(nights):
        if i:
            quiet_day(g)
        g.night(**targets)
    assert g.of(Dawn)[-1].deaths == deaths, row
    for seat, n in needles.items():
        assert g.state.marks.get(f"empty_needles:{seat}", 0) == n, row


# ---- what the actors learn, and the next day's silence ---------------------------------------------------

def test_hug_and_check_on_the_hugged_gives_the_police_no_signal():
    g = Game("v4.0", V4)
    g.night(hug=6, check=6)  # seat 6 is a killer, but the butterfly holds them
    assert g.check_result == "none"


def test_check_on_the_butterfly_is_a_shake_and_the_hugged_gets_none_of_it():
    g = Game("v4.0", V4)
    g.night(hug=6, check=1)
    assert g.check_result == "shake"


@pytest.mark.parametrize(("silence", "hug", "silenced"), [
    (9, None, {9}),       # silence alone
    (9, 9, set()),        # aimed at the hugged: void
    (1, 9, {1, 9}),       # on the butterfly: the hugged too
    (4, None, {4}),       # the forest elder silences themself
])
def test_silence_meets_the_hug(silence, hug, silenced):
    g = Game("v4.0", V4)
    g.night(hug=hug, silence=silence)
    marks = {int(k.split(":")[1]) for k, v in g.state.marks.items() if k.startswith("silenced:") and v == 1}
    assert marks == silenced


def test_revive_is_spent_after_one_use():
    g = Game("v7.0", V7)
    g.night(kill=7, revive=5)
    g.talk()
    g.hands({})
    g.night(kill=8)
    assert len([e for e in g.of(Acted) if e.step == "revive"]) == 1  # night 2: the angel did not wake
    assert g.of(Dawn)[-1].deaths == ((8, "killed"),)
