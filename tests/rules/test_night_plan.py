"""The night and the win checks work out once per configuration and per deal what every night asks (the option
reads, the step flags, the seats holding each card). These tests play tables side by side, input by input, so
that each step follows another table's: every night must still ask its own table's options and its own deal,
and the events must be those of the same games played one at a time.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.bots import POLICIES
from controller.bots.play import play
from controller.rules import engine
from controller.rules.actions import GroupPick
from controller.rules.events import Event, from_json, to_json
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import load_variant
from tests.rules.table import Game, bot_game

#: seats 1-3 killers, 4-6 police, 7-12 civilians; and the same cards dealt the other way round
TWELVE = "K K K P P P C C C C C C"
REVERSED = "C C C C C C P P P K K K"


def _side_by_side(tables: list[tuple[GameConfig, str, int]]) -> list[list[Event]]:
    """Every table's events, the tables taking turns input by input."""
    logs: list[list[Event]] = [[] for _ in tables]
    games = [bot_game(config, policy, seed, log) for (config, policy, seed), log in zip(tables, logs, strict=True)]
    while games:
        games = [g for g in games if next(g, None) is not None]
    return logs


def _alone(config: GameConfig, policy: str, seed: int) -> list[Event]:
    events: list[Event] = []
    play(config, POLICIES[policy](), random.Random(seed), None, events.append)
    return events


TABLES = [("standard-2.0", 12, {}), ("standard-2.0", 12, {"killers.selfkill": False, "checks": 2}),
          ("v4.0", 13, {}), ("v3.0", 13, {}), ("v5.0-infernal", 13, {}), ("v7.0", 14, {}),
          ("dual-card-6.0", 9, {}), ("dual-card-5.0", 8, {})]


@settings(max_examples=12, deadline=None)
@given(picks=st.lists(st.sampled_from(range(len(TABLES))), min_size=2, max_size=3),
       policy=st.sampled_from(["uninformed", "random", "heuristic"]), seed=st.integers(0, 10_000))
def test_tables_played_side_by_side_play_the_same_games_as_one_at_a_time(picks, policy, seed):
    tables = []
    for i, pick in enumerate(picks):
        variant, players, options = TABLES[pick]
        tables.append((configure(load_variant(variant), players, options, talk=False), policy, seed + i))
    together = _side_by_side(tables)
    for (config, policy_name, game_seed), events in zip(tables, together, strict=True):
        assert [repr(e) for e in events] == [repr(e) for e in _alone(config, policy_name, game_seed)]


def test_v2_12_each_table_keeps_its_own_self_kill_option_when_two_tables_take_turns():
    may = Game("standard-2.0", TWELVE, {"killers.selfkill": True})
    may_not = Game("standard-2.0", TWELVE, {"killers.selfkill": False})
    assert {1, 2, 3} <= set(may.waiting.choices)
    assert not {1, 2, 3} & set(may_not.waiting.choices)
    may.act("kill", 8)
    may_not.act("kill", 9)
    assert not {4, 5, 6} & set(may.waiting.choices) and not {4, 5, 6} & set(may_not.waiting.choices)


def test_v2_2_two_deals_in_turn_wake_each_their_own_killers_and_police():
    first = Game("standard-2.0", TWELVE)
    second = Game("standard-2.0", REVERSED)
    assert first.waiting.seats == (1, 2, 3) and second.waiting.seats == (10, 11, 12)
    first.act("kill", 12)
    second.act("kill", 1)
    assert first.waiting.seats == (4, 5, 6) and second.waiting.seats == (7, 8, 9)
    assert not {4, 5, 6} & set(first.waiting.choices) and not {7, 8, 9} & set(second.waiting.choices)
    first.act("check", 2)
    second.act("check", 10)
    assert first.check_result == "nod" and second.check_result == "nod"


def test_v2_9_the_win_check_looks_at_its_own_deal_when_two_tables_take_turns():
    first = Game("standard-2.0", "K P C C C C C C")
    second = Game("standard-2.0", "C C C C C C P K")
    first.night(kill=2)  # the only police of the first table dies: the killers win there (V2.9)
    assert first.winner == "killers"
    assert engine.winner_now(second.state) is None
    second.night(kill=7)
    assert second.winner == "killers"
    assert engine.winner_now(first.state) == ("killers", "all_dead:police")


def test_the_night_after_a_death_offers_only_the_living():
    g = Game("standard-2.0", TWELVE)
    g.night(kill=9, check=1)
    g.talk()
    g.hands({})
    assert g.step == "kill"
    assert 9 not in g.waiting.choices and sorted(g.waiting.choices) == g.alive


def test_a_table_resumed_from_its_journal_offers_the_same_choices():
    g = Game("standard-2.0", TWELVE)
    g.act("kill", 7)
    # read back from the journal's JSON: a new roles tuple, so the night works its seats out again
    resumed = engine.fold(from_json(json.loads(json.dumps(to_json(e)))) for e in g.events)
    assert resumed.roles == g.state.roles and resumed.roles is not g.state.roles
    assert engine.pending(resumed) == g.waiting
    _, events = engine.step(resumed, GroupPick(1))
    assert [repr(e) for e in events] == [repr(e) for e in g.do(GroupPick(1))]


def test_v2_10_the_checks_limit_is_read_from_its_own_table():
    limited = Game("standard-2.0", TWELVE, {"checks": 1})
    free = Game("standard-2.0", TWELVE)
    for g, victim in ((limited, 8), (free, 8), (limited, None), (free, None)):
        if victim is None:
            g.talk()
            g.hands({})
            g.act("kill", 10)
        else:
            g.night(kill=victim, check=9)
    assert limited.state.phase == "day"  # the police did not wake again
    assert free.step == "check"
