"""The club's commands as a person types them: member add/list/show/card, records, config check."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.club.evening import Evening, Plan
from controller.club.service import Club
from controller.club.store import ClubStore
from controller.diag.people import card_uid


@pytest.fixture
def club_db(tmp_path):
    return str(tmp_path / "club.sqlite")


def test_member_add_then_tap_the_card_on_any_seat_of_the_simulated_table(club_db, capsys):
    assert main(["member", "add", "Ming", "--club", club_db, "--hardware", "sim", "--auto"]) == 0
    out = capsys.readouterr().out
    assert "member Ming added (level 1)" in out and "tap Ming's member card on any seat" in out
    member = ClubStore(club_db).member("Ming")
    assert member is not None and member.card == card_uid(1).lower()


def test_member_add_with_a_card_list_show_and_a_new_card(club_db, capsys):
    assert main(["member", "add", "Hua", "--card", "04:AA:BB:CC", "--club", club_db]) == 0
    assert main(["member", "add", "Qing", "--no-card", "--level", "3", "--club", club_db]) == 0
    assert main(["member", "list", "--club", club_db]) == 0
    out = capsys.readouterr().out
    assert "Hua" in out and "04aabbcc" in out and "Qing" in out
    assert main(["member", "card", "Hua", "--card", "04DDEEFF", "--club", club_db]) == 0
    assert "member card 04ddeeff is Hua's; card 04aabbcc no longer is" in capsys.readouterr().out
    assert main(["member", "show", "Qing", "--club", club_db]) == 0
    assert "Qing: level 3, member card none" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["member", "add", "Hua", "--no-card"], "already a member called 'Hua'"),
    (["member", "add", "Li", "--card", "04aabbcc"], "card 04aabbcc is already Hua's member card"),
    (["member", "show", "Nobody"], "no member called 'Nobody'; members: Hua"),
    (["records", "game", "4"], "no game 4 in the records (none yet)"),
    (["records", "member", "Nobody"], "no member called 'Nobody'"),
])
def test_mistakes_get_one_clear_line_and_change_nothing(club_db, capsys, argv, message):
    assert main(["member", "add", "Hua", "--card", "04aabbcc", "--club", club_db]) == 0
    capsys.readouterr()
    assert main([*argv, "--club", club_db]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert [m.name for m in ClubStore(club_db).members()] == ["Hua"]


def test_records_list_game_member_standings_export_and_rebuild_after_an_evening(tmp_path, capsys):
    db = tmp_path / "club.sqlite"
    club = Club(ClubStore(db), table="evening")
    Evening(club, tmp_path / "j.sqlite", Plan(games=2), say=lambda line: None).run()
    club.close()
    assert main(["records", "--club", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.count("standard-2.0") == 2
    assert main(["records", "game", "1", "--club", str(db)]) == 0
    out = capsys.readouterr().out
    assert "deaths in order: 1. seat" in out and "penalties: seat" in out and "(guest)" in out
    assert main(["records", "member", "Ming", "--club", str(db)]) == 0
    out = capsys.readouterr().out
    assert "games 2:" in out and "wins by role:" in out and "survived" in out
    assert main(["records", "--club", str(db), "--json", "standings"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 2 and len(data["standings"]) == 11
    assert main(["records", "export", "--csv", str(tmp_path / "csv"), "--club", str(db)]) == 0
    assert sorted(p.name for p in (tmp_path / "csv").iterdir()) == ["games.csv", "members.csv", "seats.csv"]
    assert main(["records", "rebuild", "--journal", str(tmp_path / "j.sqlite"), "--game", "2", "--club",
                 str(db)]) == 0
    assert "game 2 rebuilt from journal game 2" in capsys.readouterr().out
    assert main(["records", "rebuild", "--journal", str(tmp_path / "j.sqlite"), "--club", str(db)]) == 0
    assert "recorded 0 game(s) the club did not have" in capsys.readouterr().out


def test_config_check_validates_the_clubs_scoring_table(tmp_path, capsys):
    good = tmp_path / "good.toml"
    good.write_text('[club]\nroom = "recruit"\nlevels = [0, 10, 30]\n[club.scoring]\ntime_per_minute = 0.2\n'
                    '[club.scoring.entry]\nwin = { "*" = 1 }\n')
    assert main(["config", "check", str(good)]) == 0
    assert "room recruit, its own scoring table" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('[club]\nroom = "vip"\nlevels = [5, 3]\n[club.scoring.standard]\nwin = { wizards = 4 }\n')
    assert main(["config", "check", str(bad)]) == 1
    err = capsys.readouterr().err
    for key in ("club.room", "club.levels", "club.scoring.standard.win.wizards"):
        assert f"{key} in {bad}" in err
