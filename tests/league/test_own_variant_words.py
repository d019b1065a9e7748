"""A game on a club's own board (a variant file the club wrote) reaches the league's page in that board's words: its
name, and its name for the side that won (月狼 / Moon wolves), in the page's language. The league has no copy of
the file and opens none a bridge named, so the words come with the game's record, kept when the game was played:
the club changing or removing the file afterwards changes no history. A record kept before records carried words
still shows as it did (the variant's id, the generic side words); words that are not a short [zh, en] pair are cut
by the table and refused at the league's door with one line naming the field."""

from __future__ import annotations

import logging

import pytest

from controller.club import recorder
from controller.club.record import GameRecord, build_record
from controller.club.service import Club
from controller.club.store import ClubStore
from controller.club.words import SIDES_NOTE
from controller.director.journal import SqliteJournal
from controller.hall.feed import TableFeed
from controller.league.service import LeagueService
from controller.league.store import LeagueStore
from controller.league.web import render_page
from tests.director.helpers import session
from tests.hall.conftest import Recorder, club_variant, through_the_door
from tests.league.conftest import message, record

T = 1_764_000_000.0  # a Monday evening
MOON = ("月夜狼人 12人", "Moon wolves 12")
SIDES = {"good": ("村民", "Villagers"), "killers": ("月狼", "Moon wolves")}


def league() -> LeagueService:
    return LeagueService(LeagueStore(":memory:"), clock=lambda: T)


def moon_evening(tmp_path, name: str = MOON[1]):
    """One game on the club's own moon board at a club table: the check-in noted at the deal, the end noted before
    the hall's feed hears of it (controller/live.py). Returns (the club, its journal, the record the feed
    published, the side that won)."""
    board = club_variant(tmp_path, name=name)
    s = session(str(board), 12, seed=3, journal_path=tmp_path / "journal.sqlite")
    journal = s.journal
    assert journal is not None
    club = Club(ClubStore(tmp_path / "club.sqlite"), table="room-1")
    s.director.on_over.append(lambda d: recorder.end_note(journal, clock=s.clock.now()))
    rec = Recorder()
    feed = TableFeed(rec, lambda: "g1", table="room-1", room="standard")
    feed.attach(s.director)
    s.start()
    club.checkin(journal, {1: "Ming", 2: "Hua"}, clock=s.clock.now(), variant=s.director.config.variant)
    s.run(max_time=100_000.0)
    assert s.director.stage == "over"
    through_the_door(rec.messages)  # the hall takes the record with its words
    (published,) = rec.of("record")
    return club, journal, published, s.result()["winner"]


def test_a_game_on_the_clubs_own_board_shows_its_name_and_its_winners_words_on_the_league_page(tmp_path):
    club, journal, published, winner = moon_evening(tmp_path)
    (stored,) = club.catch_up(journal)
    assert published == dict(stored.as_dict(), id=None)  # the hall's record is the club database's
    assert stored.variant_words == MOON and stored.winner_words == SIDES[winner]
    lg = league()
    assert lg.receive("league/red/record", message("red", published, at=T - 60)) == "taken"
    zh, en = render_page(lg.snapshot(), "zh"), render_page(lg.snapshot(), "en")
    assert f"<td>{MOON[0]}</td>" in zh and f"<td>{SIDES[winner][0]}</td>" in zh
    assert f"<td>{MOON[1]}</td>" in en and f"<td>{SIDES[winner][1]}</td>" in en
    assert "club-moon-12" not in zh + en  # not the file's id, and not the generic 好人 / 杀手
    assert lg.snapshot()["week"][0]["winner_words"] == list(SIDES[winner])


def test_the_board_changed_or_removed_after_the_game_changes_no_history(tmp_path):
    club, journal, _published, winner = moon_evening(tmp_path)
    (tmp_path / "club-moon-12.toml").unlink()  # the club rewrote its board: this game was still played on the old
    journal.close()
    journal = SqliteJournal(tmp_path / "journal.sqlite")
    (stored,) = club.catch_up(journal)  # recorded at the next start, from the journal alone
    assert stored.winner_words == SIDES[winner] and stored.variant_words == MOON
    rebuilt = recorder.rebuild(club.store, journal, stored.journal_game, "room-1")
    assert rebuilt.as_dict() == stored.as_dict() and club.store.game(stored.id or 0).winner_words == SIDES[winner]


def test_a_record_kept_before_records_carried_words_shows_as_it_did():
    old = dict(record("g1", "killers", [("Ada", "killer", "killers", None), ("Bo", "police", "good", None)]),
               variant="gold-house")
    assert "variant_words" not in old and "winner_words" not in old
    assert GameRecord.from_dict(old).winner_words == ()
    lg = league()
    assert lg.receive("league/gold/record", message("gold", old, at=T - 60)) == "taken"
    page = render_page(lg.snapshot(), "en")
    assert "<td>gold-house</td>" in page and "<td>killers</td>" in page


def test_a_built_in_version_is_named_by_the_leagues_own_tables_whatever_its_record_says():
    game = dict(record("g1", "killers", [("Ada", "killer", "killers", None), ("Bo", "police", "good", None)]),
                variant="werewolf-12", variant_words=["别的", "Something else"], winner_words=["别的", "Others"])
    lg = league()
    lg.receive("league/blue/record", message("blue", game, at=T - 60))
    page = render_page(lg.snapshot(), "en")
    assert "<td>Werewolves</td>" in page and "Others" not in page and "Something else" not in page


def test_a_board_whose_name_has_no_chinese_shows_its_english_one_on_the_chinese_page():
    game = dict(record("g1", "good", [("Ada", "police", "good", None), ("Bo", "killer", "killers", None)]),
                variant="club-x", variant_words=["", "Harbour rules"], winner_words=["", "Harbour folk"])
    lg = league()
    lg.receive("league/red/record", message("red", game, at=T - 60))
    page = render_page(lg.snapshot(), "zh")
    assert "<td>Harbour rules</td>" in page and "<td>Harbour folk</td>" in page


def test_a_boards_overlong_name_is_cut_by_the_table_and_the_record_still_gets_in(tmp_path):
    _club, _journal, published, _winner = moon_evening(tmp_path, name="Long " * 30)
    assert len(published["variant_words"][1]) == 80
    assert league().receive("league/red/record", message("red", published, at=T - 60)) == "taken"


def test_side_words_in_a_hand_edited_check_in_note_that_are_not_a_pair_give_no_words_not_a_traceback(tmp_path):
    _club, journal, _published, winner = moon_evening(tmp_path)
    replay = journal.replay()
    assert replay is not None
    for bad in ({winner: ["月狼"]}, {winner: "月狼"}, {winner: [1, 2]}, "sides", {winner: ["x" * 500, "Moon"]}):
        notes = [{k: dict(v, **{SIDES_NOTE: bad}) if k == "club" else v for k, v in n.items()} for n in replay.notes]
        built = build_record(replay.events, notes, table="room-1", journal_game=1)
        assert built is not None
        assert built.winner_words in ((), ("x" * 80, "Moon"))


@pytest.mark.parametrize(("words", "field"), [
    (["月狼"], "record.winner_words"),
    (["月狼", "x" * 81], "record.winner_words[1]"),
    ("月狼", "record.winner_words"),
    (["月狼", 7], "record.winner_words[1]"),
])
def test_a_record_whose_words_are_not_a_short_pair_is_refused_at_the_leagues_door_naming_the_field(
        words, field, caplog):
    caplog.set_level(logging.WARNING, logger="controller.league")
    game = dict(record("bad", "good", [("Ada", "police", "good", None), ("Bo", "killer", "killers", None)]),
                winner_words=words)
    lg = league()
    assert lg.receive("league/red/record", message("red", game, at=T - 60)) == "rejected"
    (line,) = [r.getMessage() for r in caplog.records if "refused a message" in r.getMessage()]
    assert field in line and "Traceback" not in caplog.text
    assert lg.receipt("red") == {"uids": ["bad"]}  # refused is an answer: the hall stops offering it


def test_the_judges_remote_names_the_winners_of_a_game_on_the_clubs_own_board_in_its_words(tmp_path):
    """Between games the remote shows the last game's result: on a club's own board, the side as the board names
    it (月狼 / Moon wolves), from the record, even after the board's file is gone."""
    club, journal, _published, winner = moon_evening(tmp_path)
    club.catch_up(journal)
    (tmp_path / "club-moon-12.toml").unlink()
    head = club.last_game_lines()[0]
    assert head.zh == f"上局：{SIDES[winner][0]}" and head.en == f"Last game: {SIDES[winner][1]}"
