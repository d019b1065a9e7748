"""The league takes each club's game once, knows one person per member card across clubs, merges two records on
request, and ranks the league with the club's own scoring."""

from __future__ import annotations

import json

import pytest

from controller.club.record import GameRecord
from controller.club.standings import standings
from controller.league.service import LeagueService, week_start
from controller.league.store import LeagueError, LeagueStore
from tests.league.conftest import message, record

ADA = "04:A1:D2:C3"  # readers differ in spelling: the league normalises


def league(t: float = 1_764_000_000.0) -> LeagueService:
    return LeagueService(LeagueStore(":memory:"), clock=lambda: t)


RED_GAME = record("g1", "good", [("Ada", "police", "good", ADA), ("Bo", "killer", "killers", "04b0"),
                                 (None, "civilian", "good", None)])
BLUE_GAME = record("g1", "killers", [("Ada Wang", "killer", "killers", "04a1d2c3"),
                                     ("Cai", "civilian", "good", None)])


def test_a_game_that_arrives_twice_counts_once():
    lg = league()
    assert lg.receive("league/red/record", message("red", RED_GAME)) == "taken"
    assert lg.receive("league/red/record", message("red", RED_GAME)) == "copy"
    assert lg.store.count_games() == 1
    assert lg.counts.copies == 1
    assert [r["member"] for r in lg.standings()] == ["Ada", "Bo"]


def test_the_same_game_id_from_another_club_is_another_game():
    lg = league()
    lg.receive("league/red/record", message("red", RED_GAME))
    assert lg.receive("league/blue/record", message("blue", BLUE_GAME)) == "taken"
    assert lg.store.count_games() == 2


def test_a_member_with_one_card_in_two_clubs_is_one_person():
    lg = league()
    lg.receive("league/red/record", message("red", RED_GAME))
    lg.receive("league/blue/record", message("blue", BLUE_GAME))
    people = {p.name: p for p in lg.store.people()}
    assert set(people) == {"Ada", "Bo", "Cai"}
    assert people["Ada"].clubs == ["blue", "red"]
    ada = next(r for r in lg.standings() if r["member"] == "Ada")
    assert ada["games"] == 2 and ada["wins"] == 2


def test_a_member_without_a_card_is_their_clubs_name_until_merged():
    lg = league()
    lg.receive("league/red/record", message("red", RED_GAME))
    gold = record("g9", "killers", [("Bo", "killer", "killers", None), ("Dan", "civilian", "good", None)])
    lg.receive("league/gold/record", message("gold", gold))
    assert sorted(r["member"] for r in lg.standings() if r["member"].startswith("Bo")) == ["Bo #2", "Bo #3"]
    into, before = lg.store.merge("card:04b0", "gold:Bo")
    assert into.clubs == ["gold", "red"] and before.clubs == ["gold"]
    bo = next(r for r in lg.standings() if r["member"] == "Bo")
    assert bo["games"] == 2 and bo["wins"] == 1
    # and a later game of gold's Bo counts for the same person
    lg.receive("league/gold/record", message("gold", record("g10", "good", [("Bo", "civilian", "good", None)])))
    assert next(r for r in lg.standings() if r["member"] == "Bo")["games"] == 3


def test_a_card_seen_with_a_clubs_name_joins_the_two_records():
    lg = league()
    lg.receive("league/gold/record", message("gold", record("a", "good", [("Bo", "civilian", "good", None)])))
    lg.receive("league/red/record", message("red", record("b", "good", [("Bo", "civilian", "good", "04b0")])))
    assert len(lg.store.people()) == 2
    lg.receive("league/gold/record", message("gold", record("c", "good", [("Bo", "civilian", "good", "04b0")])))
    assert len(lg.store.people()) == 1
    assert lg.standings()[0]["games"] == 3


@pytest.mark.parametrize("a, b, says", [("#1", "#1", "already one person"), ("#1", "red:Nobody", "no one"),
                                        ("card:ffff", "#1", "no one"), ("Ada", "#1", "no one")])
def test_a_merge_that_cannot_be_is_one_line(a, b, says):
    lg = league()
    lg.receive("league/red/record", message("red", RED_GAME))
    with pytest.raises(LeagueError, match=says):
        lg.store.merge(a, b)


def test_the_league_ranks_one_club_as_the_club_does():
    lg = league()
    games = [RED_GAME, record("g2", "killers", [("Ada", "civilian", "good", ADA), ("Bo", "killer", "killers", "04b0")],
                              minutes=12)]
    for g in games:
        lg.receive("league/red/record", message("red", g))
    assert lg.standings() == standings([GameRecord.from_dict(g) for g in games])


@pytest.mark.parametrize("topic, payload", [
    ("league/red/record", b"not json"),
    ("league/red/record", json.dumps({"room": "1", "at": 1, "evening": "x", "record": {"uid": "g"}}).encode()),
    ("league/Red!/record", message("red", RED_GAME)),
    ("league/red/other", message("red", RED_GAME)),
    ("league/red/bridge", b"maybe"),
])
def test_a_message_the_league_cannot_take_is_refused_with_one_line(topic, payload, caplog):
    lg = league()
    assert lg.receive(topic, payload) == "rejected"
    assert lg.store.count_games() == 0
    assert len([r for r in caplog.records if "refused a message" in r.getMessage()]) == 1
    assert len(lg.store.quarantined()) == 1


def test_the_receipt_lists_the_clubs_recent_games_and_the_bridge_state_is_kept():
    t = 1_764_000_000.0
    lg = league(t)
    lg.receive("league/red/record", message("red", RED_GAME, at=t - 60))
    lg.receive("league/red/record", message("red", record("old", "good", [(None, "civilian", "good", None)]), at=t - 10 * 86400))
    lg.receive("league/blue/record", message("blue", BLUE_GAME, at=t))
    assert lg.receipt("red") == {"uids": ["g1"]}
    assert lg.owed == {"red", "blue"}
    lg.receive("league/red/bridge", b"0")
    assert lg.store.clubs()["red"][0] == "down"
    assert lg.store.clubs()["blue"][0] == ""


def test_the_page_shows_the_clubs_the_members_across_clubs_and_the_weeks_games():
    from controller.league.web import render_page

    t = 1_764_000_000.0
    lg = league(t)
    lg.receive("league/red/record", message("red", RED_GAME, at=t - 60))
    lg.receive("league/blue/record", message("blue", BLUE_GAME, at=week_start(t) - 60))  # last week
    lg.receive("league/red/standings", json.dumps({"evening": "2025-11-24", "standings": standings(
        [GameRecord.from_dict(RED_GAME)])}).encode())
    snap = lg.snapshot()
    assert [c["club"] for c in snap["clubs"]] == ["blue", "red"]
    assert [g["uid"] for g in snap["week"]] == ["g1"] and snap["week"][0]["club"] == "red"
    assert next(m for m in snap["members"] if m["name"] == "Ada")["clubs"] == ["blue", "red"]
    assert [r["member"] for r in snap["week_standings"]] == ["Ada", "Bo"]
    page = render_page(snap, "en")
    assert "League standings" in page and "Ada" in page and "<script" not in page
    assert "联赛积分" in render_page(snap, "zh")


def test_the_weeks_games_name_a_werewolf_boards_winners_in_its_words():
    """W1: a werewolf board's result says 狼人 / Werewolves; the record keeps the side's ID (killers)."""
    from controller.league.web import render_page

    t = 1_764_000_000.0
    lg = league(t)
    game = dict(BLUE_GAME, variant="werewolf-12")
    lg.receive("league/blue/record", message("blue", game, at=t - 60))
    snap = lg.snapshot()
    assert snap["week"][0]["winner"] == "killers"
    assert "<td>Werewolves</td>" in render_page(snap, "en") and "<td>狼人</td>" in render_page(snap, "zh")
    lg.receive("league/red/record", message("red", RED_GAME, at=t - 30))  # standard-2.0: 004 §4's 警察一方
    assert "<td>警察一方</td>" in render_page(lg.snapshot(), "zh")
