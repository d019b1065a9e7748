"""Version 4.0's day in turn (V4.7, V4.8) when the order the engine remembers could go stale: the judge ejects a
player in the middle of a defence round, two tables play at once, a game is rebuilt from its journal.

The engine works the V4.8 order out once a day and keeps it with the state it came from (turns.py), so these
tests check every vote of many games against the rule worked out from scratch here.

Table (11 players): 1 butterfly, 2 sniper, 3 doctor, 4 forest elder, 5 police, 6-8 killers, 9-11 civilians.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from controller.rules import clash, engine, turns
from controller.rules.actions import Eject, Pass, Timeout, Vote
from controller.rules.events import Died, Event, VoteClosed
from controller.rules.setup import configure
from controller.rules.state import GameState, evolve
from controller.rules.variant import load_variant
from tests.rules.table import Game, bot_game
from tests.rules.test_v4_0 import defence_round

ELEVEN = "B J D E P K K K C C C"


def expected_order(s: GameState) -> tuple[int, ...]:
    """V4.7/V4.8 from scratch: walk the table from the seat after the last of the night's dead who gave last words
    (from the judge when nobody did), up the seat numbers on odd days and down them on even days."""
    n, forward = s.players, s.day % 2 == 1
    step = 1 if forward else -1
    taken = {x for x, cause in s.dead if cause == "taken_along"}
    spoke = [x for x in sorted(s.night_dead, reverse=not forward)
             if s.marks.get(f"silenced:{x}") != s.day and x not in taken]
    start = (spoke[-1] - 1 + step) % n + 1 if spoke else (1 if forward else n)
    return tuple(seat for i in range(n) if (seat := (start - 1 + step * i) % n + 1) in s.alive)


def test_v4_8_a_player_the_judge_ejects_mid_round_gets_no_turn_no_hands_and_is_no_longer_a_choice():
    g = Game("v4.0", ELEVEN)
    g.night()  # a quiet night: the defence starts from the judge, seat 1
    g.do(Pass(1))
    g.do(Vote(1, 5))  # seat 1 votes for seat 5 ...
    assert g.waiting.step == "defence" and g.waiting.seats == (2,)
    g.do(Eject(5, "phone at the table"))  # ... whom the judge then rules out while seat 2 defends
    assert 5 not in g.alive
    seen = []
    while g.waiting and g.waiting.step in ("defence", "vote.defence"):
        p = g.waiting
        if p.seats[0] != 2:  # the turns still to come, as the journal records them, no longer name seat 5
            remaining = [task[1] for task in g.state.agenda if task[0] == "defence_turns"]
            assert remaining and all(5 not in turns_left for turns_left in remaining)
        if p.kind == "speeches":
            seen.append(p.seats[0])
            g.do(Pass(p.seats[0]))
        else:
            assert 5 not in p.choices and p.choices == expected_order(g.state)
            g.do(Vote(p.seats[0], 9) if p.seats[0] in (2, 3) else Timeout())
    assert seen == [2, 3, 4, 6, 7, 8, 9, 10, 11]  # seat 5's turn is skipped
    assert g.of(VoteClosed)[-1].tally == ((9, 2),)  # the hand for the ejected seat 5 counts for nobody
    assert g.of(Died)[-1] == Died(9, "executed.good")


def test_v4_8_a_player_ejected_before_their_vote_is_skipped_and_the_next_player_votes():
    g = Game("v4.0", ELEVEN)
    g.night(kill=9)  # day 1 forward: seat 9 gives last words, the defence starts at seat 10
    g.do(Pass(9))
    assert g.waiting.step == "defence" and g.waiting.seats == (10,)
    g.do(Pass(10))
    assert g.waiting.step == "vote.defence" and g.waiting.seats == (10,)
    g.do(Eject(11))  # the next player in turn is ruled out while seat 10 votes
    g.do(Vote(10, 6))
    assert g.waiting.step == "defence" and g.waiting.seats == (1,)  # seat 11 is skipped
    g.do(Pass(1))
    assert g.waiting.choices == expected_order(g.state) == (10, 1, 2, 3, 4, 5, 6, 7, 8)


def test_v4_7_after_a_tie_and_a_quiet_night_the_second_day_runs_in_reverse_from_the_judge():
    """Nothing about the table changed overnight but the day: the order must still turn round."""
    g = Game("v4.0", ELEVEN)
    g.night()
    spoke = defence_round(g, {seat: {1: 9, 2: 10}.get(seat, seat) for seat in range(1, 12)})  # 9 and 10 tie at two
    assert spoke == list(range(1, 12)) and g.of(VoteClosed)[-1].tied == (9, 10)
    g.night()
    assert g.state.day == 2 and g.alive == list(range(1, 12))
    assert g.waiting.step == "defence" and g.waiting.seats == (11,)
    g.do(Pass(11))
    assert g.waiting.choices == tuple(range(11, 0, -1))


@pytest.mark.parametrize(("players", "talk"), [(13, False), (12, True)])
def test_v4_8_two_tables_at_once_play_the_same_games_as_each_alone_and_every_vote_offers_the_rule_order(
        players, talk):
    config = configure(load_variant("v4.0"), players, talk=talk)
    for seed in range(12):
        alone_a: list[Event] = []
        alone_b: list[Event] = []
        for _ in bot_game(config, "random", seed, alone_a):
            pass
        for _ in bot_game(config, "uninformed", seed + 100, alone_b):
            pass
        both_a: list[Event] = []
        both_b: list[Event] = []
        a, b = bot_game(config, "random", seed, both_a), bot_game(config, "uninformed", seed + 100, both_b)
        votes = 0
        for g in (a, b, a, b, b, a) * 10_000:  # the tables take turns unevenly
            state = next(g, None)
            if state is None:
                continue
            if state.waiting is not None and state.waiting.step == turns.TURN_VOTE:
                votes += 1
                assert state.waiting.choices == expected_order(state)
                replayed = engine.fold(both_a if g is a else both_b)  # equal values, none of the same objects
                assert turns.defence_order(replayed) == expected_order(state)
        assert both_a == alone_a and both_b == alone_b
        assert votes > 0


def test_v4_8_silence_marks_of_any_seat_number_are_read():
    g = Game("v4.0", ELEVEN)
    g.night()
    state = evolve(g.state, marks=MappingProxyType({"silenced:70": g.state.day, "silenced:3": g.state.day - 1}))
    assert clash.silenced(state, 70)
    assert not clash.silenced(state, 3)  # silenced for an earlier day
    assert not clash.silenced(state, 4)
