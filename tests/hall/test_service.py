"""The hall service: each message taken once, receipts, the rooms' state in order, results announced once
(004 §5.13: 「3号包房游戏结束，请等候的玩家回到包房」 in both languages), the evening's standings, the waiting list."""

from __future__ import annotations

import json
import logging

import pytest

from controller.club.record import GameRecord, SeatRecord
from controller.club.scoring import parse_scoring, score
from controller.club.standings import standings
from controller.hall.announce import game_over_text
from controller.hall.service import HallError, RoomConfig, evening_of
from controller.hall.waiting import STANDARD_VARIANT
from tests.hall.conftest import Clock, hall


def envelope(room: str, kind: str, seq: int, body: dict, epoch: str = "e1", at: float = 1_764_000_000.0) -> bytes:
    return json.dumps({"id": f"{epoch}-{seq}", "epoch": epoch, "seq": seq, "room": room, "kind": kind, "at": at,
                       "body": body}).encode()


def result(game: str, winner: str, seats: list[tuple[str, str]]) -> dict:
    return {"game": game, "winner": winner, "reason": "r", "days": 3, "variant": "standard-2.0",
            "seats": [{"seat": i, "name": n, "side": side, "alive": True} for i, (n, side) in enumerate(seats, 1)]}


def test_a_message_taken_once_is_dropped_the_second_time_and_the_receipt_covers_it():
    h = hall()
    msg = envelope("3", "event", 1, {"game": "g", "n": 0, "event": {"type": "night_fell", "night": 1}})
    assert h.receive("tianhei/test/3/event", msg) == "taken"
    assert h.receive("tianhei/test/3/event", msg) == "copy"
    assert h.counts.taken == 1 and h.counts.copies == 1
    assert h.receipts()["tianhei/test/hall/rooms/3/ack"] == {"epoch": "e1", "seq": 1, "top": 1, "missing": []}


def test_the_receipt_names_the_messages_that_never_arrived():
    h = hall()
    for seq in (1, 2, 4, 6):
        h.receive("tianhei/test/3/event", envelope("3", "event", seq, {"game": "g"}))
    assert h.receipts()["tianhei/test/hall/rooms/3/ack"] == {"epoch": "e1", "seq": 2, "top": 6, "missing": [3, 5]}
    h.receive("tianhei/test/3/event", envelope("3", "event", 3, {"game": "g"}))
    assert h.receipts()["tianhei/test/hall/rooms/3/ack"] == {"epoch": "e1", "seq": 4, "top": 6, "missing": [5]}


def test_a_receipt_with_more_than_500_missing_claims_nothing_past_the_ones_it_names():
    h = hall()
    for seq in range(2, 1400, 2):  # every other message lost: 699 missing
        h.receive("tianhei/test/3/event", envelope("3", "event", seq, {"game": "g"}))
    receipt = h.receipts()["tianhei/test/hall/rooms/3/ack"]
    assert receipt["seq"] == 0 and len(receipt["missing"]) == 500 and receipt["missing"][-1] == 999
    assert receipt["top"] == 1000  # 1001 is missing too, and not named: the receipt stops before it


def test_the_room_shows_the_latest_status_even_when_an_older_one_arrives_late():
    h = hall()
    h.receive("tianhei/test/3/status", envelope("3", "status", 5, {"state": "playing", "game": "g", "day": 2}))
    h.receive("tianhei/test/3/status", envelope("3", "status", 3, {"state": "playing", "game": "g", "day": 1}))
    room = next(r for r in h.snapshot()["rooms"] if r["id"] == "3")
    assert room["status"]["day"] == 2 and h.counts.late_status == 1


def test_a_rooms_game_over_is_announced_once_in_chinese_then_english_and_shown_on_the_page():
    h = hall()
    body = result("g1", "good", [("Ada", "good"), ("Bo", "killers")])
    h.receive("tianhei/test/3/result", envelope("3", "result", 1, body))
    h.receive("tianhei/test/3/result", envelope("3", "result", 1, body))  # the same message again
    h.receive("tianhei/test/3/result", envelope("3", "result", 2, body))  # the same game sent again, a new id
    zh, en = h.announcer.voices
    assert zh.prompts_said() == ["room.3", "hall.game_over"] and en.prompts_said() == ["room.3", "hall.game_over"]
    assert h.announcer.said == ["3"]
    banner = h.snapshot()["banners"][-1]
    assert banner["zh"] == "3号包房游戏结束，请等候的玩家回到包房" == game_over_text("3", "zh")
    assert banner["en"].startswith("Room 3: the game is over")
    assert h.store.count("results") == 1


def test_a_room_the_packs_cannot_name_is_announced_as_a_room():
    h = hall([RoomConfig("red")])
    h.receive("tianhei/test/red/result", envelope("red", "result", 1, result("g", "good", [])))
    assert h.announcer.voices[0].prompts_said() == ["hall.a_room_game_over"]


def record(uid: str, winner: str, seats: list[tuple[str | None, str, str]], *, variant: str = "standard-2.0",
           minutes: float = 30.0, ejected: tuple[int, ...] = ()) -> dict:
    """A club record (controller/club/record.py) as a table publishes it: (member or None for a guest, role, side)."""
    return GameRecord(
        uid=uid, table="t", journal_game=1, variant=variant, options={}, players=len(seats), room="standard",
        started=None, length_s=minutes * 60, winner=winner, reason="r",
        seats=tuple(SeatRecord(n, role, side, member) for n, (member, role, side) in enumerate(seats, 1)),
        deaths=tuple((n, "ejected") for n in ejected), ejections=ejected).as_dict()


EVENING = [record("u1", "good", [("Ada", "police", "good"), ("Bo", "killer", "killers"), (None, "civilian", "good")]),
           record("u2", "draw", [("Ada", "civilian", "good"), ("Bo", "killer", "killers")]),
           record("u3", "killers", [("Bo", "killer", "killers"), ("Cai", "civilian", "good")], minutes=10,
                  ejected=(2,))]


def test_the_evenings_standings_are_the_clubs_ranking_of_the_club_records_the_tables_sent():
    h = hall(clock=Clock())
    for seq, body in enumerate(EVENING, 1):
        h.receive("tianhei/test/1/record", envelope("1", "record", seq, body))
    shown = h.snapshot()["standings"]
    assert shown == standings([GameRecord.from_dict(r) for r in EVENING])
    # the club's default table: a police or killer win 3, a draw 1, 0.1 a minute played (3 for 30 minutes);
    # Cai ejected (§5.14): -3 and neither result nor time points
    assert [(r["member"], r["points"], r["games"], r["wins"], r["rank"]) for r in shown] == [
        ("Bo", 11.0, 3, 1, 1), ("Ada", 10.0, 2, 1, 2), ("Cai", -3.0, 1, 0, 3)]
    assert "None" not in str([r["member"] for r in shown])  # the guest is not ranked


def test_the_hall_scores_by_the_clubs_own_scoring_table():
    scoring, problems = parse_scoring({"standard": {"win": {"killer": 10, "*": 1}}, "time_per_minute": 0})
    assert problems == []
    h = hall(scoring=scoring, clock=Clock())
    for seq, body in enumerate(EVENING, 1):
        h.receive("tianhei/test/1/record", envelope("1", "record", seq, body))
    assert [(r["member"], r["points"]) for r in h.snapshot()["standings"]] == [("Bo", 11.0), ("Ada", 2.0),
                                                                              ("Cai", -3.0)]
    assert h.snapshot()["standings"] == standings([GameRecord.from_dict(r) for r in EVENING], scoring)


def test_a_record_sent_again_counts_once_and_a_result_alone_ranks_nobody():
    h = hall(clock=Clock())
    body = EVENING[0]
    h.receive("tianhei/test/1/result", envelope("1", "result", 1, result("g1", "good", [("Ada", "good")])))
    assert h.snapshot()["standings"] == []  # the hall ranks from the club's records, not from results
    h.receive("tianhei/test/1/record", envelope("1", "record", 2, body))
    h.receive("tianhei/test/1/record", envelope("1", "record", 2, body))  # the same message again
    h.receive("tianhei/test/1/record", envelope("1", "record", 3, body))  # the same game sent again, a new id
    assert h.store.count("records") == 1
    ada = h.snapshot()["standings"][0]
    assert ada["member"] == "Ada" and ada["games"] == 1
    assert ada["points"] == score(GameRecord.from_dict(body))[0].total


def test_a_record_that_is_not_the_clubs_is_dropped_with_one_line_and_ranks_nobody(caplog):
    h = hall(clock=Clock())
    caplog.set_level(logging.WARNING)
    provisional = {"game": "g1", "winner": "good", "seats": [{"seat": 1, "name": "Ada", "side": "good"}]}
    assert h.receive("tianhei/test/1/record", envelope("1", "record", 1, provisional)) == "rejected"
    assert h.store.count("records") == 0 and h.snapshot()["standings"] == []
    assert len(caplog.records) == 1 and len(caplog.records[0].message.splitlines()) == 1


def test_the_standings_on_the_page_are_tonights_only():
    clock = Clock()
    h = hall(clock=clock)
    last_night = record("u0", "good", [("Ada", "civilian", "good")])
    tonight = record("u1", "good", [("Bo", "civilian", "good")])
    h.receive("tianhei/test/1/record", envelope("1", "record", 1, last_night, at=clock.t - 86400))
    h.receive("tianhei/test/1/record", envelope("1", "record", 2, tonight, at=clock.t))
    assert [r["member"] for r in h.snapshot()["standings"]] == ["Bo"]
    assert evening_of(clock.t) != evening_of(clock.t - 86400)


def test_a_message_that_is_not_one_of_ours_is_refused_with_one_line_and_nothing_changes(caplog):
    h = hall()
    caplog.set_level(logging.WARNING)
    assert h.receive("tianhei/test/3/status", b"not json") == "rejected"
    assert h.receive("tianhei/test/3/status", envelope("2", "status", 1, {})) == "rejected"  # room 2 in room 3
    assert h.receive("tianhei/other/3/status", envelope("3", "status", 1, {})) == "rejected"
    assert h.counts.rejected == 3 and h.counts.taken == 0
    assert all(len(r.message.splitlines()) == 1 for r in caplog.records)
    assert "refused a message from room 3" in caplog.records[0].message
    assert h.store.count("results") == h.store.count("records") == 0 and h.events == {}
    assert len(h.store.quarantined()) == 3


def test_the_organiser_puts_members_on_the_list_and_takes_them_off():
    h = hall()
    h.add_waiting("  Ada  ")
    with pytest.raises(HallError, match="already waiting"):
        h.add_waiting("Ada")
    with pytest.raises(HallError, match="1 to 40"):
        h.add_waiting(" ")
    h.remove_waiting("Ada")
    with pytest.raises(HallError, match="not on the waiting list"):
        h.remove_waiting("Ada")


def test_sending_a_proposal_moves_the_members_to_the_room_and_tells_the_table():
    h = hall([RoomConfig("3", 12, "entry")])
    for name in ["A", "B", "C", "D", "E", "F"]:
        h.add_waiting(name)
    (p,) = h.snapshot()["proposals"]
    assert p["kind"] == "open_entry" and p["room"] == "3"
    h.send(p["key"])
    assert h.store.waiting() == []
    assert h.outgoing["tianhei/test/hall/rooms/3/sent"] == {"members": list("ABCDEF"), "variant": "classic-1.0"}
    with pytest.raises(HallError, match="no longer open"):
        h.send(p["key"])


def test_those_sent_are_cleared_when_the_rooms_next_game_begins_with_them():
    h = hall([RoomConfig("2", 12, "entry")], auto_send=True)
    names = [f"p{i}" for i in range(10)]
    h.receive("tianhei/test/2/status", envelope("2", "status", 1, {"state": "ended", "game": "g1", "names": names,
                                                                  "variant": "classic-1.0"}))
    h.add_waiting("Ada")  # the eleventh: sent, and the room moves up to the standard game (seed 000)
    room = h.snapshot()["rooms"][0]
    assert room["sent"] == ["Ada"] and room["next_variant"] == STANDARD_VARIANT
    h.receive("tianhei/test/2/status", envelope("2", "status", 2, {"state": "checkin", "game": "g2",
                                                                  "variant": STANDARD_VARIANT,
                                                                  "names": [*names, "Ada"]}))
    room = h.snapshot()["rooms"][0]
    assert room["sent"] == [] and room["next_variant"] == "" and "Ada" in room["players"]
