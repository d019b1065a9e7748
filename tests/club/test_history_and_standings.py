"""V2.11's first-victim history from the records of this table's recent games (by person), the evening's
standings and a game's record as the hall reads them (JSON-able dicts)."""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise

from controller.club.api import evening_standings, game_record
from controller.club.service import Club
from controller.club.store import ClubStore
from controller.live import game_config
from controller.rules.engine import new_game, pending
from tests.club.helpers import a_record


def victim_game(seed: int, victim_seat: int, victim: str | None, table: str = "t1"):
    """A recorded game whose first-night victim sat at ``victim_seat`` and was ``victim`` (None: a guest)."""
    record = a_record(seed)
    seats = [dataclasses.replace(s, member=None) for s in record.seats]
    seats[victim_seat - 1] = dataclasses.replace(seats[victim_seat - 1], member=victim)
    return dataclasses.replace(record, uid=f"u{seed}", seats=tuple(seats), first_victim=victim_seat, table=table)


def test_the_killers_may_not_kill_ming_first_again_wherever_he_sits_now(tmp_path):
    """004 §5.8: not the same first-night victim two games in a row; the person, not the seat."""
    club = Club(ClubStore(tmp_path / "club.sqlite"), table="t1")
    club.store.add_member("Ming")
    club.store.add_game(victim_game(1, 5, "Ming"))
    # tonight Ming sits at seat 8, and a guest at seat 5
    members = {n: None for n in range(1, 13)} | {8: "Ming"}
    assert club.history(members, 12) == (8,)
    assert club.history({n: None for n in range(1, 13)}, 12) == ()  # Ming went home: no run to break
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text('[game]\nplayers = 12\noptions = { "first_victim.max_repeat" = 1 }\n')
    from controller.config import load

    config = game_config(load(cfg), None, None, club, members)
    assert config.history == (8,)
    state, _ = new_game(config, seed=1)
    p = pending(state)
    assert p is not None and p.step == "kill" and 8 not in p.choices and 5 in p.choices


def test_a_guest_victim_is_followed_by_seat_and_another_tables_games_do_not_count(tmp_path):
    club = Club(ClubStore(tmp_path / "club.sqlite"), table="t1")
    club.store.add_game(victim_game(1, 3, None))
    club.store.add_game(victim_game(2, 3, None))
    club.store.add_game(victim_game(3, 7, None, table="t2"))
    assert club.history({}, 12) == (3, 3)


def test_with_no_club_the_history_still_comes_from_the_journal(tmp_path):
    from controller.director.journal import SqliteJournal, first_victims
    from tests.club.helpers import journal_game

    journal_game(tmp_path / "j.sqlite", seed=2).journal.close()
    journal = SqliteJournal(tmp_path / "j.sqlite")
    from controller.config import load

    config = game_config(load(None), 12, journal, None)
    assert config.history == first_victims(journal, 12) and len(config.history) == 1


def test_the_evening_standings_and_a_games_record_are_json_for_the_hall(tmp_path):
    store = ClubStore(tmp_path / "club.sqlite")
    for name in ("Ming", "Hua"):
        store.add_member(name)
    for seed in (1, 2, 3):
        store.add_game(a_record(seed, members={1: "Ming", 2: "Hua"}, minutes=30))
    data = evening_standings(tmp_path / "club.sqlite")
    assert json.loads(json.dumps(data)) == data
    assert data["games"] == 3 and [r["member"] for r in data["standings"]] == sorted(
        ["Ming", "Hua"], key=lambda m: -next(r["points"] for r in data["standings"] if r["member"] == m))
    top = data["standings"][0]
    assert top["rank"] == 1 and top["games"] == 3 and top["level"] >= 1
    assert top["points"] == round(top["game_points"] + top["time_points"] + top["penalty_points"], 2)
    game = game_record(store, 2)
    assert json.loads(json.dumps(game)) == game
    assert game["seats"][0]["member"] == "Ming" and game["seats"][0]["points"]["time"] == 3.0
    assert {"variant", "options", "started", "length_s", "winner", "deaths", "penalties", "ejections",
            "surrenders"} <= set(game)


def test_standings_rank_by_points_then_wins_and_ties_share_a_rank():
    from controller.club.standings import standings

    r = a_record(1)
    seats = [dataclasses.replace(s, member=f"m{s.seat}") for s in r.seats]
    rows = standings([dataclasses.replace(r, seats=tuple(seats))])
    winners = [row for row in rows if row["wins"]]
    assert all(row["rank"] <= len(winners) for row in winners)
    points = [row["points"] for row in rows]
    assert points == sorted(points, reverse=True)
    for a, b in pairwise(rows):
        if (a["points"], a["wins"]) == (b["points"], b["wins"]):
            assert a["rank"] == b["rank"]
