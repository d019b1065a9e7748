"""The common flow of every version: C1 (the deal), C4 (the end), C5 (deadlines), C6 (group decisions) and C8
(timing: effects at dawn, the dead of the night still act, wins checked between steps, never inside one)."""

from __future__ import annotations

import random

import pytest

from controller.rules import engine
from controller.rules.actions import GroupPick, Pass, Pick, Rejected, Timeout, Vote
from controller.rules.events import Acted, Dawn, Dealt, Died, GameCreated, GameEnded, Opened, Picked, Reasked
from controller.rules.setup import configure
from controller.rules.variant import builtin_ids, load_variant
from tests.rules.table import Game


def canonical_cards(variant: str, players: int = 12) -> str:
    """The variant's own composition for ``players`` (or its nearest table, W2: werewolf-9 is for 9), dealt in role
    order by the roles' own names: seat 1 holds the first killer card."""
    v = load_variant(variant)
    return " ".join(configure(v, min(max(players, v.min_players), v.max_players)).deck())


def _first_night_action(st) -> bool:
    """V5.2/V5.4 steps that are recognition, wait for night 2 or for a role to die: tests/rules/test_v5_0.py;
    the dual-card versions (two cards a seat) are in tests/rules/test_dual_card.py."""
    return st.ability != "recognise" and st.nights != "after_first" and not st.when_all_dead


#: Steps that cannot wake on the first night of a fresh game: V7.1 the devil's late kill (killers alive) and the
#: angel's take-along (only on the night it dies); tests/rules/test_v7_0.py covers their deadlines.
LATER = ("late_kill", "take")
NIGHT_STEPS = [(v, st.id, role) for v in builtin_ids() for st in load_variant(v).night for role in st.roles
               if st.ability not in LATER and _first_night_action(st) and load_variant(v).hand == 1]


# ---- C5 deadlines ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("variant", "step", "role"), NIGHT_STEPS)
def test_c5_a_role_that_does_not_act_before_the_deadline_forfeits_that_nights_action(variant, step, role):
    g = Game(variant, canonical_cards(variant))
    while g.step != step:  # every earlier step also lets its time run out
        assert g.waiting.kind == "night", f"{step} never woke"
        g.do(Timeout())
    assert all(g.state.role_of(s) == role for s in g.waiting.seats)
    g.do(Timeout())
    acted = [e for e in g.of(Acted) if e.step == step][-1]
    assert acted.how == "forfeited" and acted.target is None
    g.night()  # the rest of the night forfeits too
    while not g.of(Dawn):  # W10: on the sheriff boards the election comes before day 1's dawn; nobody runs
        g.do(Timeout())
    assert g.of(Dawn)[0].deaths == ()  # forfeited actions have no effect at dawn


def test_c5_the_deadline_ends_a_speech_and_closes_a_vote_with_the_hands_counted_so_far():
    g = Game("standard-2.0", "K K P P C C C C")
    g.night(kill=5)
    assert g.step == "last_words"
    g.do(Timeout())  # seat 5's time for last words is over
    assert g.step == "speeches"
    g.talk()
    g.do(Vote(1, 6))
    g.do(Timeout())
    assert g.of(Died)[-1].seat == 6


# ---- C6 group decisions ---------------------------------------------------------------------------------------

TWELVE = "K K K P P P C C C C C C"


def test_c6_the_killers_decide_by_majority():
    g = Game("standard-2.0", TWELVE)
    g.do(Pick(1, 8))
    g.do(Pick(2, 9))
    assert g.step == "kill"  # seat 3 has not pointed yet
    g.do(Pick(3, 8))
    assert next(e for e in g.of(Acted) if e.step == "kill").target == 8


def test_c6_a_killer_who_gives_no_opinion_agrees_with_the_others():
    g = Game("standard-2.0", TWELVE)
    g.do(Pick(2, 10))
    g.do(Timeout())  # seats 1 and 3 say nothing
    kill = next(e for e in g.of(Acted) if e.step == "kill")
    assert (kill.target, kill.how) == (10, "chosen")


def test_c6_the_police_check_by_majority_too():
    g = Game("standard-2.0", TWELVE)
    g.act("kill", 9)
    g.do(Pick(4, 1))
    g.do(Pick(5, 1))
    g.do(Pick(6, 8))
    assert next(e for e in g.of(Acted) if e.step == "check").result == "nod"  # two of three pointed at seat 1


def test_c6_an_even_split_is_asked_again_and_an_agreement_then_settles_it():
    g = Game("standard-2.0", "K K P P C C C C")
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    assert g.of(Reasked) and g.step == "kill" and not g.state.picks  # asked again, with a clean slate
    g.do(Pick(1, 6))
    g.do(Pick(2, 6))
    assert next(e for e in g.of(Acted) if e.step == "kill").target == 6


def test_c6_still_split_at_the_deadline_the_kill_is_forfeited():
    g = Game("standard-2.0", "K K P P C C C C")
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    assert g.step == "kill" and len(g.of(Reasked)) == 1  # asked again only once; now the clock decides
    g.do(Timeout())
    assert next(e for e in g.of(Acted) if e.step == "kill").how == "forfeited"
    g.night()
    assert g.of(Dawn)[0].deaths == ()


def _split_killers(seed: int, options: dict) -> Acted:
    g = Game("standard-2.0", "K K P P C C C C", options)
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    _state, events = engine.step(g.state, Timeout(), random.Random(seed))
    return next(e for e in events if isinstance(e, Acted))


def test_c6_group_tie_random_takes_one_of_the_tied_choices_at_random():
    acts = [_split_killers(seed, {"group_tie": "random"}) for seed in range(40)]
    assert {a.how for a in acts} == {"random"}
    assert {a.target for a in acts} == {5, 6}  # both tied choices happen, nothing else


def test_c6_group_tie_random_needs_the_tables_random_source():
    g = Game("standard-2.0", "K K P P C C C C", {"group_tie": "random"})
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    g.do(Pick(1, 5))
    g.do(Pick(2, 6))
    assert g.rejects(Timeout()) == "needs_rng"


def test_c6_v2_12_group_tie_random_never_makes_a_self_kill_without_a_strict_majority():
    # One of two killers points at their partner, the other at a civilian: the random tie-break may take the
    # civilian, never the partner (V2.12: a self-kill needs a strict majority of the living killers).
    for seed in range(30):
        g = Game("standard-2.0", "K K P P C C C C", {"group_tie": "random"})
        g.do(Pick(1, 2))
        g.do(Pick(2, 6))
        g.do(Pick(1, 2))
        g.do(Pick(2, 6))
        _, events = engine.step(g.state, Timeout(), random.Random(seed))
        kill = next(e for e in events if isinstance(e, Acted))
        assert kill.target in (6, None), seed


def test_c6_v2_12_a_lone_self_kill_pick_is_not_decided_by_the_random_tie_break():
    g = Game("standard-2.0", TWELVE, {"group_tie": "random"})
    g.do(Pick(1, 2))  # seats 2 and 3 say nothing: one vote of three is no majority for a self-kill
    _, events = engine.step(g.state, Timeout(), random.Random(1))
    kill = next(e for e in events if isinstance(e, Acted))
    assert kill.target is None and kill.how == "forfeited"


def test_c6_a_member_may_change_their_pick_before_the_group_settles():
    g = Game("standard-2.0", TWELVE)
    g.do(Pick(1, 8))
    g.do(Pick(1, 9))
    assert dict(g.state.picks) == {1: 9}
    assert len([e for e in g.of(Picked)]) == 2


# ---- C8 timing ------------------------------------------------------------------------------------------------

def test_c8_the_nights_effects_wait_for_dawn_and_come_all_at_once():
    g = Game("v3.0", "K K K P P D S C C C C C")
    g.act("kill", 8)
    assert 8 in g.alive and g.state.phase == "night"  # the victim is still in the game until dawn
    g.act("check", 9)
    g.act("save", 10)
    g.act("secret", 1)
    dawns = g.of(Dawn)
    assert len(dawns) == 1 and dawns[0].deaths == ((1, "secret_police"), (8, "killed"))
    assert 1 not in g.alive and 8 not in g.alive


def test_c8_police_killed_in_the_night_still_check_that_night():
    g = Game("standard-2.0", "K K P P C C C C")
    g.act("kill", 3)
    assert g.step == "check" and g.waiting.seats == (3, 4)
    g.act("check", 1)
    assert g.check_result == "nod"


def test_c8_the_doctor_killed_in_the_night_still_saves_that_night():
    g = Game("v3.0", "K K K P P D S C C C C C")
    g.act("kill", 6)
    assert g.step == "check"
    g.act("check", 9)
    assert g.step == "save" and g.waiting.seats == (6,)
    g.act("save", 6)  # V3.2: self allowed
    g.night()
    assert g.of(Dawn)[0].deaths == ()


def test_c8_killing_the_last_police_ends_the_game_at_dawn_not_in_the_middle_of_the_night():
    g = Game("standard-2.0", "K K P C C C C C", {"win": "police_only"})
    g.act("kill", 3)
    assert g.winner is None and g.step == "check"  # the last police still wakes
    g.act("check", 2)
    assert g.winner == "killers"
    assert g.events.index(g.of(Dawn)[0]) < g.events.index(g.of(GameEnded)[0])


def test_c8_wins_are_checked_after_the_whole_dawn_both_sides_at_once_is_a_draw():
    # V3.6: the secret police shoots the last killer while the killers take the last civilian, the same night.
    g = Game("v3.0", "K P D S C")
    g.act("kill", 5)
    g.act("check", 1)
    g.act("save", 2)
    assert g.winner is None
    g.act("secret", 1)
    assert g.of(Dawn)[0].deaths == ((1, "secret_police"), (5, "killed"))
    assert g.winner == "draw"  # not "good" after the first death of the dawn


def test_c8_the_same_dawn_with_only_one_side_winning_is_that_sides_win():
    g = Game("v3.0", "K P D S C C")
    g.night(kill=5, check=1, save=2, secret=1)
    assert g.winner == "good"


def test_c8_a_win_after_an_execution_ends_the_game_before_any_last_words():
    g = Game("standard-2.0", "K P P C C C C C")
    g.night(kill=5)
    g.talk()
    g.hands({1: [2, 3, 4, 6]})
    assert g.winner == "good" and g.step == "over"  # the executed killer had quota left, but the game is over


def test_c8_a_win_is_checked_after_each_execution_not_at_the_end_of_the_day():
    g = Game("classic-1.0", "K C C")
    g.night(kill=3)
    assert g.winner is None
    g.talk()
    g.hands({2: [1]})
    assert g.winner == "killers"
    assert isinstance(g.events[-1], GameEnded) and isinstance(g.events[-2], Died)  # no last words, no night


# ---- C1 the deal ------------------------------------------------------------------------------------------------

def test_c1_the_engine_refuses_a_deal_that_does_not_match_the_composition():
    config = configure(load_variant("standard-2.0"), 8)  # 2 killers, 2 police, 4 civilians
    for roles in (["killer"] * 3 + ["police"] * 2 + ["civilian"] * 3,  # one killer too many
                  ["killer"] * 2 + ["police"] * 2 + ["civilian"] * 3,  # a card short
                  ["killer"] * 2 + ["police"] * 2 + ["civilian"] * 3 + ["doctor"]):  # a card of another game
        with pytest.raises(Rejected) as info:
            engine.new_game(config, roles=roles)
        assert info.value.code == "deck_mismatch"


def test_c1_a_shuffled_deal_is_the_configurations_deck_and_the_same_seed_deals_the_same():
    config = configure(load_variant("standard-2.0"), 12)
    deals = [engine.new_game(config, seed=s)[0].roles for s in (3, 3, 4)]
    assert sorted(deals[0]) == sorted(config.deck())
    assert deals[0] == deals[1] and deals[0] != deals[2]


def test_c1_the_deal_is_secret_and_read_from_the_cards_seat_by_seat():
    g = Game("standard-2.0", "P K C C K P C C")
    dealt = g.of(Dealt)[0]
    assert not dealt.public and dealt.roles[0] == "police" and dealt.roles[1] == "killer"
    assert g.waiting.seats == (2, 5)


# ---- C4 the end -------------------------------------------------------------------------------------------------

def test_c4_the_game_ends_when_a_side_wins_and_nothing_is_accepted_after():
    g = Game("standard-2.0", "K P C C C C C C")
    g.night(kill=3)
    g.talk()
    g.hands({1: [2, 4, 5, 6]})
    assert g.winner == "good" and g.state.phase == "over" and g.waiting is None
    for action in (Pass(2), Vote(2, 4), GroupPick(4), Timeout()):
        assert g.rejects(action) == "game_over"


def test_c4_nobody_shows_a_card_before_the_end_the_roles_are_only_in_secret_events():
    g = Game("standard-2.0", TWELVE)
    g.night(kill=9, check=1)
    g.talk()
    g.hands({1: [4, 5, 6, 7]})
    secret = {type(e).__name__ for e in g.events if not e.public}
    assert {"Dealt", "Acted"} <= secret  # the deal and what the police learnt stay secret
    assert all(e.public_view() is None for e in g.events if isinstance(e, (Dealt, Acted)))


def test_c4_the_room_learns_which_step_was_called_and_who_died_but_not_who_woke_or_how_anyone_died():
    g = Game("standard-2.0", TWELVE)
    killers_called = g.events[-1]
    assert isinstance(killers_called, Opened) and killers_called.seats == (1, 2, 3)
    view = killers_called.public_view()
    assert (view.step, view.seats, view.choices) == ("kill", (), ())
    g.night(kill=9, check=1)
    dawn = g.of(Dawn)[0]
    assert dawn.deaths == ((9, "killed"),) and dawn.public_view().deaths == ((9, "died"),)
    g.talk()
    vote_called = g.events[-1]
    assert vote_called.kind == "vote" and vote_called.public_view() == vote_called  # who may vote is public


# ---- C3 days and nights ---------------------------------------------------------------------------------------

def test_c3_v2_10_a_game_that_starts_with_a_day_counts_the_day_after_night_one_as_day_two():
    g = Game("standard-2.0", TWELVE, first="day")
    assert (g.state.day, g.state.night) == (1, 0)
    g.talk()
    g.hands({})
    g.night(kill=9)
    assert (g.state.day, g.state.night) == (2, 1)
    g = Game("standard-2.0", TWELVE)
    g.night(kill=9)
    assert (g.state.day, g.state.night) == (1, 1)


def test_c4_the_set_up_is_public_without_its_seed_which_would_deal_every_card_again():
    g = Game("standard-2.0", TWELVE)
    created = g.events[0]
    assert isinstance(created, GameCreated)
    assert created.public_view().seed is None
    assert created.public_view().players == created.players
