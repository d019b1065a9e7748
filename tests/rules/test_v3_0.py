"""Version 3.0: doctor and secret police (V3.1–V3.6)."""

from __future__ import annotations

from controller.rules.actions import GroupPick, Pass, Surrender
from controller.rules.events import Acted, Dawn, GameEnded
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from tests.rules.table import Game

#: seats 1-3 killers, 4-5 police, 6 doctor, 7 secret police, 8-12 civilians
TWELVE = "K K K P P D S C C C C C"


def v3(cards: str = TWELVE, **options) -> Game:
    return Game("v3.0", cards, options)


def deaths(g: Game) -> tuple:
    return g.of(Dawn)[-1].deaths


def next_night(g: Game) -> None:
    """Let the day pass with nobody voted out."""
    g.talk()
    g.hands({})


# ---- V3.1 night order -----------------------------------------------------------------------------------------

def test_v3_1_killers_then_police_then_doctor_then_secret_police():
    g = v3()
    order = []
    while g.state.phase == "night":
        order.append((g.step, g.waiting.seats))
        g.act(g.step, None if g.step == "secret" else 9)
    assert order == [("kill", (1, 2, 3)), ("check", (4, 5)), ("save", (6,)), ("secret", (7,))]


# ---- V3.2 doctor ----------------------------------------------------------------------------------------------

def test_v3_2_the_doctor_points_at_the_killers_victim_who_lives():
    g = v3()
    g.night(kill=9, check=1, save=9, secret=None)
    assert deaths(g) == ()


def test_v3_2_the_doctor_may_save_themself():
    g = v3()
    g.act("kill", 6)
    g.act("check", 1)
    assert 6 in g.waiting.choices
    g.night(save=6, secret=None)
    assert deaths(g) == ()


def test_v3_2_a_wrong_save_does_not_stop_the_kill():
    g = v3()
    g.night(kill=9, check=1, save=10, secret=None)
    assert deaths(g) == ((9, "killed"),)


def test_v3_2_a_dead_doctor_has_no_power():
    g = v3()
    g.night(kill=6, check=1, save=9, secret=None)
    assert deaths(g) == ((6, "killed"),)
    next_night(g)
    g.act("kill", 9)
    g.act("check", 2)
    assert g.step == "secret"  # the doctor's step is skipped: nobody wakes
    g.act("secret", None)
    assert deaths(g) == ((9, "killed"),)


def test_v3_2_decision_the_doctor_protects_only_against_the_killers_kill():
    g = v3()
    g.night(kill=9, check=8, save=1, secret=1)  # the doctor protected the killer the secret police shot
    assert deaths(g) == ((1, "secret_police"), (9, "killed"))


# ---- V3.3 secret police ---------------------------------------------------------------------------------------

def test_v3_3_the_judge_asks_whether_to_use_the_power_and_saying_no_keeps_it():
    g2 = v3()
    g2.act("kill", 9)
    g2.act("check", 1)
    g2.act("save", 10)
    assert g2.step == "secret" and None in g2.waiting.choices
    g2.act("secret", None)
    next_night(g2)
    g2.night(kill=10, check=2, save=11)
    assert any(e.step == "secret" for e in g2.of(Acted)[4:])  # still wakes on night 2


def test_v3_3_used_on_a_killer_that_killer_dies():
    g = v3()
    g.night(kill=9, check=8, save=9, secret=2)
    assert deaths(g) == ((2, "secret_police"),)


def test_v3_3_used_on_anyone_else_nothing_happens_and_the_power_is_spent():
    g = v3()
    g.night(kill=9, check=8, save=9, secret=10)
    assert deaths(g) == ()
    next_night(g)
    g.act("kill", 11)
    g.act("check", 1)
    g.act("save", 12)
    assert g.state.phase == "day"  # the spent secret police no longer wakes


def test_v3_3_before_using_the_power_the_secret_police_cannot_be_killed():
    g = v3()
    g.night(kill=7, check=1, save=9, secret=None)
    assert deaths(g) == () and 7 in g.alive


def test_v3_3_after_using_the_power_the_secret_police_can_be_killed():
    g = v3()
    g.night(kill=9, check=1, save=9, secret=10)
    next_night(g)
    g.night(kill=7, check=2, save=9)
    assert deaths(g) == ((7, "killed"),)


def test_v3_3_decision_killed_on_the_night_the_power_is_used_the_secret_police_survives():
    g = v3()
    g.night(kill=7, check=1, save=9, secret=2)
    assert deaths(g) == ((2, "secret_police"),) and 7 in g.alive


def test_v3_3_the_secret_police_cannot_shoot_themself():
    g = v3()
    g.act("kill", 9)
    g.act("check", 1)
    g.act("save", 9)
    assert 7 not in g.waiting.choices
    assert g.rejects(GroupPick(7)) == "bad_target"


# ---- V3.4 0, 1 or 2 deaths a night ----------------------------------------------------------------------------

def test_v3_4_a_night_ends_with_0_1_or_2_deaths():
    for targets, count in (({"kill": 9, "save": 9, "secret": None}, 0),
                           ({"kill": 9, "save": 10, "secret": None}, 1),
                           ({"kill": 9, "save": 10, "secret": 3}, 2)):
        g = v3()
        g.night(check=1, **targets)
        assert len(deaths(g)) == count, targets


def test_v3_4_with_two_deaths_the_speeches_start_from_the_killers_victim():
    g = v3()
    g.night(kill=9, check=8, save=10, secret=3)
    assert g.step == "last_words" and g.speakers() == [3, 9]  # in seat order
    g.do(Pass(3))
    g.do(Pass(9))
    assert g.speakers()[0] == 8  # the right-hand neighbour of the killers' victim (seat 9)


def test_v3_4_quiet_night_day_by_default_the_day_is_played_and_nobody_gives_last_words():
    """001 3.0 「某一轮没有人死亡 … 碰到这样的情况，游戏直接进入下一轮。」 Default reading: the day is played."""
    g = v3()
    assert g.config.opt("quiet_night") == "day"
    g.night(kill=9, check=1, save=9)  # the doctor saves the victim: nobody died
    assert deaths(g) == ()
    assert g.step == "speeches" and g.speakers()[0] == 1  # no last words; V2.4 decision: from seat 1
    assert not [e for e in g.events if getattr(e, "kind", "") == "last_words"]
    next_night(g)
    assert g.state.night == 2


def test_v3_4_quiet_night_next_night_skips_the_day():
    """The other reading of 「游戏直接进入下一轮」: straight on to the next night."""
    g = v3(quiet_night="next_night")
    g.night(kill=7, check=1)  # the killers point at the secret police before it used its power: nobody dies
    assert deaths(g) == ()
    assert g.state.phase == "night" and g.state.night == 2 and g.step == "kill"
    g.night(kill=9, check=2, save=10)  # a night with a death: the day is played as usual
    assert g.step == "last_words" and g.speakers() == [9]


# ---- V3.5 the 13-person table ---------------------------------------------------------------------------------

def test_v3_5_thirteen_people_are_a_judge_and_twelve_players_3_killers_2_police_doctor_secret_police():
    # The seed's "13 players" counts the judge? No: it lists 3+2+1+1+6 = 13 card holders.
    c = configure(load_variant("v3.0"), 13)
    assert dict(c.composition) == {"killer": 3, "police": 2, "doctor": 1, "secret_police": 1, "civilian": 6}


def test_v3_5_one_or_two_fewer_police_than_killers_at_every_size():
    v = load_variant("v3.0")
    for players in range(v.min_players, v.max_players + 1):
        c = dict(configure(v, players).composition)
        assert 1 <= c["killer"] - c["police"] <= 2, players
        assert c["doctor"] == c["secret_police"] == 1


def test_v3_5_decision_the_last_words_quota_is_the_number_of_killers():
    assert configure(load_variant("v3.0"), 13).quota == 3
    assert configure(load_variant("v3.0"), 15).quota == 4


# ---- V3.6 wins ------------------------------------------------------------------------------------------------

def test_v3_6_all_killers_dead_the_good_side_wins():
    g = v3("K P D S C C C C C")
    g.night(kill=5, check=1, save=6, secret=1)
    assert g.winner == "good"


def test_v3_6_police_doctor_and_secret_police_all_dead_the_killers_win():
    g = v3("K K P D S C C C C C C")
    g.night(kill=3, check=1, save=6, secret=7)  # police killed; the secret police spends the power on a civilian
    g.talk()
    g.hands({4: [1, 2, 6, 8, 9]})  # the doctor is voted out
    assert g.winner is None  # the spent secret police still counts
    g.talk()
    g.night(kill=5)
    assert g.winner == "killers"


def test_v3_6_all_civilians_dead_the_killers_win():
    g = v3("K P D S C")
    g.night(kill=5, check=1, save=3, secret=None)
    assert g.winner == "killers"


def test_v3_6_decision_the_last_killer_and_the_killers_win_on_the_same_night_is_a_draw():
    g = v3("K P D S C")
    g.night(kill=5, check=1, save=3, secret=1)
    assert g.winner == "draw"
    assert "killer" in g.of(GameEnded)[0].reason and "civilian" in g.of(GameEnded)[0].reason


def test_v2_11_the_doctor_and_the_secret_police_cannot_surrender_for_the_good_side():
    g = v3()
    assert g.rejects(Surrender(6)) == "no_team"
    assert g.rejects(Surrender(7)) == "no_team"
