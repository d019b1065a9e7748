"""Points and levels are a pure function of a game's record and the club's scoring table (V2.13)."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.club.scoring import DEFAULT, level_for, parse_scoring, result_of, score
from tests.club.helpers import a_record


def test_the_winning_side_scores_by_the_default_table_and_time_points_follow_the_minutes_played():
    record = a_record(3, minutes=40)
    points = score(record)
    for seat, p in zip(record.seats, points, strict=True):
        result = result_of(record, seat)
        expected = {"win": 3 if seat.role in ("killer", "police") else 2, "lose": 0, "draw": 1}[result]
        assert p.game == expected, (seat, p)
        assert p.time == 4.0  # 40 minutes x 0.1
        assert p.total == p.game + p.time + p.penalty


def test_the_entry_game_scores_on_its_own_table():
    record = a_record(5, variant="classic-1.0", players=10)
    winners = [p for s, p in zip(record.seats, score(record), strict=True) if result_of(record, s) == "win"]
    assert winners and all(p.game == 2 for p in winners)  # entry: every winner 2, killer or not


def test_a_training_room_game_earns_time_points_only():
    record = a_record(7, room="training", minutes=50)
    assert all(p.game == 0 and p.time == 5.0 for p in score(record))


def test_the_judge_ejects_seat_4_who_earns_nothing_but_the_ejection_points():
    record = a_record(2)
    ejected = dataclasses.replace(record, ejections=(4,))
    p = score(ejected)[3]
    assert (p.game, p.time, p.penalty) == (0.0, 0.0, DEFAULT.ejected)


def test_two_penalty_points_for_speaking_out_of_turn_cost_two_points():
    """§5.4: repeated out-of-turn speech after a warning costs penalty points."""
    record = a_record(2)
    seats = list(record.seats)
    seats[6] = dataclasses.replace(seats[6], penalties=2)
    p = score(dataclasses.replace(record, seats=tuple(seats)))[6]
    assert p.penalty == 2 * DEFAULT.penalty


def test_a_club_writes_its_own_table_over_the_default():
    table, problems = parse_scoring({"standard": {"win": {"killers": 5, "police": 3, "*": 1}}, "penalty": -2},
                                    [0, 10, 30], {"killer", "police", "civilian"})
    assert problems == []
    record = a_record(11)
    for seat, p in zip(record.seats, score(record, table), strict=True):
        if result_of(record, seat) == "win":
            # the club's row replaces the default's: a role wins over its side, "*" is everyone else
            assert p.game == {"killer": 5, "police": 3, "civilian": 1}[seat.role]
    assert table.penalty == -2 and table.levels == (0, 10, 30)


def test_every_problem_in_a_club_table_names_its_key():
    _, problems = parse_scoring({"standard": {"win": {"wizard": 1, "police": "x"}, "tie": {}}, "bonus": 1,
                                 "time_per_minute": -1}, [3, 1], {"police"})
    keys = {key for key, _, _ in problems}
    assert any("does not say what the good and killers side" in m for _, m, _ in problems)
    assert keys == {"scoring.standard.win", "scoring.standard.win.wizard", "scoring.standard.win.police",
                    "scoring.standard.tie",
                    "scoring.bonus", "scoring.time_per_minute", "levels"}


def test_levels_come_from_accumulated_points_by_the_thresholds():
    assert [level_for(p) for p in (0, 14.9, 15, 49, 50, 120, 1000)] == [1, 1, 2, 2, 3, 4, 5]
    assert level_for(3, floor=3) == 3  # the club gave this member level 3 on joining


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(8, 16), minutes=st.floats(0, 240))
def test_scoring_is_pure_and_the_winning_side_never_scores_less_than_the_losing_side(seed, players, minutes):
    record = a_record(seed, players=players, minutes=minutes)
    first, again = score(record), score(a_record(seed, players=players, minutes=minutes))
    assert first == again
    by_result: dict[str, list[float]] = {}
    for seat, p in zip(record.seats, first, strict=True):
        by_result.setdefault(result_of(record, seat), []).append(p.game)
    if "win" in by_result and "lose" in by_result:
        assert min(by_result["win"]) >= max(by_result["lose"])
