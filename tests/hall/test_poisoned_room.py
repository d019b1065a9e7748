"""A poisoned room: a table's login (or a careless table) publishes what no table of ours writes, through a real
Mosquitto on loopback, on its own room's topics (all its ACL allows). The hall refuses each message with one line
naming the room and the field, acknowledges it (the table stops sending it), keeps it in its quarantine, and takes
the next room's game as if nothing had happened; its link never drops. Rows stored before the hall checked its
input (or edited by hand) never turn its page into an error."""

from __future__ import annotations

import asyncio
import json
import logging
import math

import aiomqtt

from controller.cli import main
from controller.club.record import GameRecord, SeatRecord
from controller.hall.mqtt import BrokerAddress
from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from controller.hall.web import create_app
from tests.hall.conftest import CLUB, until
from tests.hall.served import Served

AT = 1_764_000_000.0


def good_record(uid: str, members: tuple[str, ...] = ("Ada", "Bo", "Cai")) -> dict:
    roles = ["police", "killer", "civilian"]
    return GameRecord(uid=uid, table="t", journal_game=1, variant="standard-2.0", options={}, players=3,
                      room="standard", started=None, length_s=600.0, winner="good", reason="r",
                      seats=tuple(SeatRecord(n, roles[n - 1], "killers" if n == 2 else "good", m, card=f"04{n:02x}")
                                  for n, m in enumerate(members, 1))).as_dict()


def result(game: str) -> dict:
    return {"game": game, "winner": "good", "reason": "r", "days": 2, "variant": "standard-2.0",
            "seats": [{"seat": 1, "name": "Ada", "side": "good", "alive": True}]}


def envelope(room: str, kind: str, seq: int, body: object, at: object = AT) -> str:
    return json.dumps({"id": f"e1-{seq}", "epoch": "e1", "seq": seq, "room": room, "kind": kind, "at": at,
                       "body": body})


def poisons() -> list[tuple[str, str, str, bytes]]:
    """(what, the field the hall names, the topic's kind, the payload) of each poison room 3 sends, in order."""
    listed = good_record("p1")
    listed["seats"][0]["member"] = ["Ada", "Bo"]  # killed the hall's own link in _apply
    numbered = good_record("p2")
    numbered["seats"][1]["card"] = 4  # killed the league's link in normalise_card
    huge = envelope("3", "record", 3, dict(good_record("p3"), players="@@")).replace('"@@"', "1e999")
    deep = '{"id": "e1-4", "epoch": "e1", "seq": 4, "room": "3", "kind": "record", "body": ' + "[" * 100_000 + "]" * 100_000 + "}"
    return [
        ("a seat's member that is a list", "body.seats[0].member", "record", envelope("3", "record", 1, listed).encode()),
        ("a seat's card that is a number", "body.seats[1].card", "record", envelope("3", "record", 2, numbered).encode()),
        ("players: 1e999", "body.players", "record", huge.encode()),
        ("a record nested 100,000 deep", "message", "record", deep.encode()),
        ("a result written at 1e300", "at", "result", envelope("3", "result", 5, result("p5"), at=1e300).encode()),
        ("a result written at 1e400", "at", "result", envelope("3", "result", 6, result("p6")).replace(
            f'"at": {AT}', '"at": 1e400').encode()),
        ("a status with a field no table sends", "body.eval", "status", envelope("3", "status", 7, {"eval": 1}).encode()),
        ("an event the room may not see", "body.event.type", "event", envelope("3", "event", 8, {
            "game": "g", "n": 0, "event": {"type": "dealt", "roles": ["killer"]}}).encode()),
    ]


def address(broker, user: str) -> BrokerAddress:
    return BrokerAddress("127.0.0.1", broker.port, user, broker.files.passwords[user])


def test_a_poisoned_room_is_refused_acknowledged_and_quarantined_and_the_next_room_is_taken(mosquitto, tmp_path,
                                                                                            caplog):
    caplog.set_level(logging.WARNING, logger="controller.hall")
    sent = poisons()

    async def go() -> HallService:
        stop = asyncio.Event()
        hall = HallService(HallStore(tmp_path / "hall.sqlite"), CLUB, [RoomConfig(r) for r in ("1", "2", "3")])
        task = asyncio.create_task(hall.run_mqtt(address(mosquitto, "hall"), stop))
        await until(lambda: hall.connected)
        acks: list[dict] = []
        room3 = aiomqtt.Client("127.0.0.1", mosquitto.port, username="room-3",
                               password=mosquitto.files.passwords["room-3"], timeout=5)
        room1 = aiomqtt.Client("127.0.0.1", mosquitto.port, username="room-1",
                               password=mosquitto.files.passwords["room-1"], timeout=5)
        async with room3, room1:
            await room3.subscribe(f"tianhei/{CLUB}/hall/rooms/3/ack", qos=1)

            async def read() -> None:
                async for m in room3.messages:
                    acks.append(json.loads(m.payload))
            reader = asyncio.create_task(read())
            for _, _, kind, payload in sent:
                await room3.publish(f"tianhei/{CLUB}/3/{kind}", payload, qos=1)
            # the next room's game, after every poison
            await room1.publish(f"tianhei/{CLUB}/1/result", envelope("1", "result", 1, result("g1")), qos=1)
            await room1.publish(f"tianhei/{CLUB}/1/record", envelope("1", "record", 2, good_record("g1")), qos=1)
            await until(lambda: hall.store.count("records") == 1 and hall.store.count("results") == 1)
            # every poison acknowledged: the table's outbox would stop sending them
            await until(lambda: any(a["seq"] == len(sent) for a in acks))
            reader.cancel()
        assert hall.connected and hall.link.outages == 0  # the link never went down
        stop.set()
        await task
        return hall

    hall = asyncio.run(go())
    assert hall.counts.rejected == len(sent) and hall.counts.taken == 2
    kept = hall.store.quarantined()
    assert sorted(q.field for q in kept) == sorted(field for _, field, _, _ in sent)
    assert {q.sender for q in kept} == {"room 3"}
    lines = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(lines) == len(sent)  # one line each, naming the room and the field
    for (what, field, _, _), line in zip(sent, lines, strict=True):
        assert "from room 3" in line and f": {field}: " in line, what
    json.dumps(hall.snapshot(), allow_nan=False)  # what /state sends


def test_the_hall_page_answers_for_rows_stored_before_the_hall_checked_them(tmp_path):
    store = HallStore(tmp_path / "hall.sqlite")
    hall = HallService(store, CLUB, [RoomConfig("1"), RoomConfig("3")], clock=lambda: AT)
    hall.receive(f"tianhei/{CLUB}/1/result", envelope("1", "result", 1, result("good-game")).encode())
    evening = hall.snapshot()["evening"]
    bad = dict(good_record("bad"))
    bad["seats"][0]["member"] = ["Ada"]
    with store.transaction():  # what an older hall kept, or a hand edit
        store.db.execute("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?)",
                         ("inf", "3", evening, math.inf, json.dumps(result("inf")), 0))
        store.db.execute("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?)",
                         ("listy", "3", evening, AT, json.dumps({"game": ["x"], "winner": 1}), 0))
        store.db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)", ("bad", "3", AT, json.dumps(bad), evening))
        store.db.execute("INSERT INTO records VALUES (?, ?, ?, ?, ?)",
                         ("good", "1", AT, json.dumps(good_record("good")), evening))
        store.update_room("3", status={"state": "playing", "seconds": None, "names": "not a list"}, at=math.inf)
        store.db.execute("INSERT INTO results VALUES ('text', '3', ?, ?, '{not json', 0)", (evening, AT))
        store.db.execute("INSERT INTO records VALUES ('text', '3', ?, '{not json', ?)", (AT, evening))
        store.db.execute("UPDATE rooms SET status = '{not json', players = '7' WHERE room = '1'")
    hall = HallService(store, CLUB, [RoomConfig("1"), RoomConfig("3")], clock=lambda: AT)  # and it starts again
    with Served(create_app(hall)) as served, served.browser() as browser:
        for path in ("/", "/state", "/?lang=en"):
            assert browser.get(path).status_code == 200, path
        snap = browser.get("/state").json()
    assert [r["game"] for r in snap["results"]] == ["good-game"]
    assert sorted(s["member"] for s in snap["standings"]) == ["Ada", "Bo", "Cai"]
    assert next(r for r in snap["rooms"] if r["id"] == "3")["status"] == {}


def test_tianhei_hall_quarantine_prints_what_was_refused(tmp_path, capsys):
    config = tmp_path / "tianhei.toml"
    config.write_text(f'[mqtt]\nclub = "{CLUB}"\n[hall]\nrooms = [{{id = "3"}}]\ndb = "{tmp_path / "h.sqlite"}"\n',
                      encoding="utf-8")
    assert main(["hall", "quarantine", "--config", str(config)]) == 0
    assert "nothing refused" in capsys.readouterr().out
    store = HallStore(tmp_path / "h.sqlite")
    HallService(store, CLUB, [RoomConfig("3")]).receive(f"tianhei/{CLUB}/3/record", poisons()[0][3])
    store.close()
    assert main(["hall", "quarantine", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "room 3" in out and "body.seats[0].member" in out and "tianhei/test/3/record" in out


def test_the_halls_link_starts_again_after_a_fault_of_its_own_and_takes_the_next_game(mosquitto, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="controller.hall")

    async def go() -> tuple[HallService, list[bool]]:
        stop = asyncio.Event()
        hall = HallService(HallStore(tmp_path / "hall.sqlite"), CLUB, [RoomConfig("1")])
        ups: list[bool] = []

        def linked() -> None:
            if not ups or ups[-1] != hall.connected:
                ups.append(hall.connected)
        real, faults = hall.store.sync, [1]

        def sync() -> None:  # the disk fails once while receipts go out
            if faults:
                faults.pop()
                raise OSError(5, "Input/output error")
            real()
        hall.store.sync = sync  # type: ignore[method-assign]
        hall.listeners.append(linked)
        task = asyncio.create_task(hall.run_mqtt(address(mosquitto, "hall"), stop))
        async with aiomqtt.Client("127.0.0.1", mosquitto.port, username="room-1",
                                  password=mosquitto.files.passwords["room-1"], timeout=5) as room1:
            await until(lambda: hall.connected)
            await room1.publish(f"tianhei/{CLUB}/1/result", envelope("1", "result", 1, result("g1")), qos=1)
            await until(lambda: not faults and hall.connected and hall.link.connects == 2)
            # (its session outlived the fault: what came meanwhile is delivered now)
            await room1.publish(f"tianhei/{CLUB}/1/result", envelope("1", "result", 2, result("g2")), qos=1)
            await until(lambda: hall.store.count("results") == 2)
        stop.set()
        await task
        return hall, ups

    hall, ups = asyncio.run(go())
    assert ups == [True, False, True, False]  # /state's connected: up, down on the fault, up again, stopped
    assert hall.counts.taken == 2 and hall.counts.rejected == 0
    (line,) = [r.getMessage() for r in caplog.records if "fault" in r.getMessage()]
    assert line.startswith("hall: the broker link stopped on a fault (OSError") and "starts again in 1 s" in line
