"""The issue's evening: members check in with cards, six games back to back with one ejection, one penalty and
one surrender, and the records, points, levels, standings and CSV export are right."""

from __future__ import annotations

import csv

import pytest

from controller.club.evening import DEMO_MEMBERS, Evening, Plan
from controller.club.export import export_csv
from controller.club.scoring import score
from controller.club.service import Club
from controller.club.standings import tallies
from controller.club.store import ClubStore


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("evening")
    club = Club(ClubStore(tmp / "club.sqlite"), table="evening")
    lines: list[str] = []
    report = Evening(club, tmp / "journal.sqlite", Plan(games=6), say=lines.append).run()
    return club, report, lines, tmp


def test_six_games_are_recorded_once_each_with_members_in_their_seats(evening):
    club, _, _, _ = evening
    games = club.store.games()
    assert len(games) == 6 and len({g.uid for g in games}) == 6
    assert [g.journal_game for g in games] == [1, 2, 3, 4, 5, 6]
    for g in games:
        members = [s.member for s in g.seats]
        assert members[11] is None  # seat 12 plays as a guest
        assert sorted(m for m in members if m) == sorted(n for n, _, _ in DEMO_MEMBERS)
        assert g.length_s and g.length_s > 60


def test_one_ejection_one_penalty_and_one_surrender(evening):
    club, _, _, _ = evening
    games = club.store.games()
    assert sum(len(g.ejections) for g in games) == 1
    assert sum(len(g.penalties) for g in games) == 1
    assert sum(len(g.surrenders) for g in games) == 1
    ejected = next(g for g in games if g.ejections)
    assert dict(ejected.deaths)[ejected.ejections[0]] == "ejected"
    surrendered = next(g for g in games if g.surrenders)
    assert surrendered.reason.startswith("V2.11") and surrendered.winner != surrendered.seat(
        surrendered.surrenders[0]).side


def test_points_levels_and_standings_add_up(evening):
    club, report, _, _ = evening
    games = club.store.games()
    expected: dict[str, float] = {}
    for g in games:
        for p in score(g, club.scoring):
            if p.member:
                expected[p.member] = expected.get(p.member, 0) + p.total
    rows = {r["member"]: r for r in report.standings}
    assert set(rows) == set(expected)
    for name, total in expected.items():
        assert rows[name]["points"] == pytest.approx(total, abs=0.02)
    assert [r["points"] for r in report.standings] == sorted((r["points"] for r in report.standings), reverse=True)
    levels = club.levels()
    assert levels["Qing"] == 3  # the club gave Qing level 3 on joining
    assert any(level == 2 for name, level in levels.items() if name != "Qing")  # members moved up tonight
    for name, level in levels.items():
        if name != "Qing":
            assert level == (2 if rows[name]["points"] >= 15 else 1)


def test_between_games_the_board_shows_the_standings_and_the_remote_the_last_games_points(evening):
    club, report, _, _ = evening
    assert report.board[0]["standings"] == []  # before the first game: nothing yet
    last = report.board[-1]["standings"]
    assert last and last[0]["rank"] == 1
    first_game = club.store.games()[0]
    head = report.remote_lines[1][0]
    assert first_game.variant == "standard-2.0"  # 004 §4 names the sides 警察一方 / 杀手一方, as the seats do
    said = {"good": "Police side", "killers": "Killers' side"}[first_game.winner]
    assert head.en == f"Last game: {said}"
    assert head.zh.startswith("上局：")
    assert len(report.remote_lines[1]) == 13  # the result, then each of 12 seats with its points


def test_a_member_card_tapped_during_each_deal_changed_nothing(evening):
    _, report, _, _ = evening
    assert len(report.kept_cards) == 6


def test_the_csv_export_has_every_game_seat_and_member(evening):
    club, _, _, tmp = evening
    paths = export_csv(club, tmp / "csv")
    rows = {p.name: list(csv.DictReader(p.open(encoding="utf-8-sig"))) for p in paths}
    assert len(rows["games.csv"]) == 6 and len(rows["seats.csv"]) == 72 and len(rows["members.csv"]) == 11
    sums = tallies(club.store.games(), club.scoring)
    for m in rows["members.csv"]:
        assert float(m["points"]) == pytest.approx(sums[m["member"]].points)
    assert sum(1 for s in rows["seats.csv"] if s["cause"] == "ejected") == 1
