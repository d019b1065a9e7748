"""Taking quarantined messages again after an upgrade (``tianhei hall quarantine retake ID|--all``): a club record
refused by an older door (here: a reason longer than the door allowed) came through a real Mosquitto, was
acknowledged and kept; once the door accepts it, the retake checks it again by today's schema, stores it exactly
once (the record's game id decides: a game stored meanwhile is left as it is), and leaves what still fails in the
quarantine with its reason. Running it again changes nothing."""

from __future__ import annotations

import asyncio
import json

import aiomqtt

from controller.cli import main
from controller.hall import schema
from controller.hall.checks import text
from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from tests.hall.conftest import CLUB, until
from tests.hall.test_poisoned_room import address, envelope, good_record

LONG = "the werewolves won when the last villager was voted out on day four, after the idiot's card was shown " * 2


def record(uid: str, reason: str = "r") -> dict:
    return dict(good_record(uid), reason=reason)


def config_file(tmp_path) -> str:
    path = tmp_path / "tianhei.toml"
    path.write_text(f'[mqtt]\nclub = "{CLUB}"\n[hall]\nrooms = [{{id = "3"}}]\ndb = "{tmp_path / "hall.sqlite"}"\n',
                    encoding="utf-8")
    return str(path)


def room_3_sends_its_evening(mosquitto, tmp_path) -> None:
    """Room 3's table sends, through the broker: game A's record with a long reason (refused), the same game's
    record again with a short one (taken), game B's record with a long reason (refused), and game P's record with
    ``players: 1e999`` (refused by any door)."""
    poison = envelope("3", "record", 4, dict(record("P"), players="@@")).replace('"@@"', "1e999")
    sent = [envelope("3", "record", 1, record("A", LONG)), envelope("3", "record", 2, record("A")),
            envelope("3", "record", 3, record("B", LONG)), poison]

    async def go() -> None:
        stop = asyncio.Event()
        hall = HallService(HallStore(tmp_path / "hall.sqlite"), CLUB, [RoomConfig("3")])
        task = asyncio.create_task(hall.run_mqtt(address(mosquitto, "hall"), stop))
        await until(lambda: hall.connected)
        async with aiomqtt.Client("127.0.0.1", mosquitto.port, username="room-3",
                                  password=mosquitto.files.passwords["room-3"], timeout=5) as room3:
            for payload in sent:
                await room3.publish(f"tianhei/{CLUB}/3/record", payload, qos=1)
            await until(lambda: hall.counts.rejected + hall.counts.taken == len(sent))
        stop.set()
        await task
        hall.store.close()

    asyncio.run(go())


def test_after_an_upgrade_the_retake_stores_each_game_once_and_leaves_what_still_fails(mosquitto, tmp_path,
                                                                                        capsys, monkeypatch):
    room_3_sends_its_evening(mosquitto, tmp_path)
    cfg = config_file(tmp_path)
    assert main(["hall", "quarantine", "list", "--config", cfg]) == 0
    listed = capsys.readouterr().out
    assert "3 refused message(s)" in listed and listed.count("body.reason") == 2 and "body.players" in listed

    monkeypatch.setitem(schema._RECORD_OPTIONAL, "reason", text(400))  # the upgrade: a longer reason is fine
    assert main(["hall", "quarantine", "retake", "--all", "--config", cfg]) == 0
    out = capsys.readouterr().out
    assert "game A was stored already: left as it is" in out and "game B taken" in out
    assert "still refused: body.players" in out
    assert "1 taken, 1 stored already, 1 still refused" in out

    store = HallStore(tmp_path / "hall.sqlite")
    stored = {uid: json.loads(body) for uid, body in store.db.execute("SELECT game, body FROM records")}
    assert sorted(stored) == ["A", "B"]
    assert stored["A"]["reason"] == "r" and stored["B"]["reason"] == LONG  # A as it was taken first
    (left,) = store.quarantined()
    assert left.field == "body.players"
    store.close()

    # again: nothing new is stored, the poison stays
    assert main(["hall", "quarantine", "retake", "--all", "--config", cfg]) == 0
    assert "0 taken, 0 stored already, 1 still refused" in capsys.readouterr().out
    assert main(["hall", "quarantine", "retake", left.id, "--config", cfg]) == 0
    assert f"{left.id}  still refused: body.players" in capsys.readouterr().out
    store = HallStore(tmp_path / "hall.sqlite")
    assert store.count("records") == 2 and len(store.quarantined()) == 1
    store.close()


def test_without_the_upgrade_the_retake_leaves_every_message_with_todays_reason(mosquitto, tmp_path, capsys):
    room_3_sends_its_evening(mosquitto, tmp_path)
    assert main(["hall", "quarantine", "retake", "--all", "--config", config_file(tmp_path)]) == 0
    assert "0 taken, 0 stored already, 3 still refused" in capsys.readouterr().out
    store = HallStore(tmp_path / "hall.sqlite")
    assert store.count("records") == 1 and len(store.quarantined()) == 3
    store.close()


def test_a_wrong_id_or_action_is_one_line(tmp_path, capsys):
    cfg = config_file(tmp_path)
    HallStore(tmp_path / "hall.sqlite").close()
    for args, words in ((["retake", "0123456789ab"], "no single message with id 0123456789ab"),
                        (["retake"], "needs the ids"), (["burn"], "no action 'burn'"),
                        (["list", "abc"], "takes no ids")):
        assert main(["hall", "quarantine", *args, "--config", cfg]) == 2, args
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err, (args, err)
