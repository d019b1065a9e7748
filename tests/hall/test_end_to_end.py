"""Tables and the hall on a real Mosquitto on loopback: the table plays on with the broker gone, and what it
published reaches the hall once the broker is back, every result exactly once, also when the broker is killed
(-9) in the middle and when the hall itself is restarted."""

from __future__ import annotations

import asyncio
import functools
import json
import math
from collections import Counter

from controller.club.record import GameRecord
from controller.club.standings import standings
from controller.hall.mqtt import BrokerAddress, MqttPublisher
from controller.hall.outbox import Outbox
from controller.hall.service import HallService, RoomConfig
from controller.hall.simroom import SimulatedRoom
from controller.hall.store import HallStore
from tests.hall.conftest import CLUB, until


def address(broker, user):
    return BrokerAddress("127.0.0.1", broker.port, user, broker.files.passwords[user])


def table(broker, tmp_path, room, names=12, variant="standard-2.0"):
    outbox = Outbox(tmp_path / f"room-{room}.sqlite")
    pub = MqttPublisher(outbox, address(broker, f"room-{room}"), CLUB, room)
    sim = SimulatedRoom(room, pub, functools.partial(outbox.next_game, room), [f"P{room}{i}" for i in range(names)],
                        variant, speed=math.inf, between_s=0.0)
    return outbox, pub, sim


async def hall_up(broker, store, stop):
    service = HallService(store, CLUB, [RoomConfig("1"), RoomConfig("2")])
    task = asyncio.create_task(service.run_mqtt(address(broker, "hall"), stop))
    await until(lambda: service.connected)
    return service, task


def test_with_the_broker_down_the_table_plays_on_and_everything_arrives_once_it_is_back(mosquitto, tmp_path):
    async def go():
        stop = asyncio.Event()
        service, hall_task = await hall_up(mosquitto, HallStore(tmp_path / "hall.sqlite"), stop)
        mosquitto.kill()
        outbox, pub, sim = table(mosquitto, tmp_path, "1")
        sender = asyncio.create_task(pub.run(stop))
        played = await asyncio.wait_for(sim.evening(2), 60)  # two whole games with no broker at all
        waiting = outbox.counts()
        assert not pub.connected and waiting["unsent"] == waiting["total"] > 100
        mosquitto.start()
        await until(lambda: outbox.counts()["unacked"] == 0, 30)
        stop.set()
        await asyncio.gather(sender, hall_task)
        return played, service, waiting["total"]

    played, service, total = asyncio.run(go())
    at_hall = [(r["game"], r["at"]) for r in service.store.results()]
    assert [g for g, _ in at_hall] == [g.game for g in played], (at_hall, [g.game for g in played], service.counts)
    assert [r["winner"] for r in service.store.results()] == [g.winner for g in played]
    assert service.counts.taken == total and service.announcer is None


def test_the_broker_killed_in_the_middle_of_an_evening_loses_and_doubles_nothing(mosquitto, tmp_path):
    async def go():
        stop = asyncio.Event()
        service, hall_task = await hall_up(mosquitto, HallStore(tmp_path / "hall.sqlite"), stop)
        tables = [table(mosquitto, tmp_path, r) for r in ("1", "2")]
        senders = [asyncio.create_task(pub.run(stop)) for _, pub, _ in tables]
        evenings = [asyncio.create_task(sim.evening(4)) for _, _, sim in tables]
        await until(lambda: service.store.count("results") >= 1, 60)
        mosquitto.kill()  # kill -9: whatever it had not saved is gone
        await until(lambda: not service.connected and not any(p.connected for _, p, _ in tables))  # outage seen
        mosquitto.start()
        await until(lambda: service.store.count("results") >= 3, 60)
        mosquitto.kill()
        await until(lambda: not service.connected and not any(p.connected for _, p, _ in tables))
        mosquitto.start()
        played = [g for e in await asyncio.gather(*evenings) for g in e]
        await until(lambda: all(o.counts()["unacked"] == 0 for o, _, _ in tables), 60)
        stop.set()
        await asyncio.gather(hall_task, *senders)
        return played, service, sum(o.counts()["total"] for o, _, _ in tables), [p.stats for _, p, _ in tables]

    played, service, total, stats = asyncio.run(go())
    at_hall = Counter(r["game"] for r in service.store.results())
    assert len(played) == 8 and at_hall == Counter(g.game for g in played)  # every result exactly once
    snapshot = service.snapshot()
    records = service.store.records(snapshot["evening"])
    assert Counter(r["uid"] for r in records) == Counter(g.record["uid"] for g in played if g.record)  # once each
    by_uid = {r["uid"]: r for r in records}
    assert len(records) == 8 and all(json.loads(json.dumps(g.record)) == by_uid[g.record["uid"]]
                                     for g in played if g.record)  # the club's record, as the table built it
    # tonight's standings: the club's ranking of the club's records of what the tables played
    assert snapshot["standings"] == standings([GameRecord.from_dict(r) for r in records])
    assert snapshot["standings"] and {r["member"] for r in snapshot["standings"]} <= {
        f"P{room}{i}" for room in ("1", "2") for i in range(12)}
    assert service.counts.taken == total  # every message, each taken once (copies were dropped by id)
    assert all(s.outages >= 1 for s in stats)


def test_a_hall_restarted_during_the_evening_gets_what_was_published_meanwhile(mosquitto, tmp_path):
    async def go():
        stop_hall, stop = asyncio.Event(), asyncio.Event()
        service, hall_task = await hall_up(mosquitto, HallStore(tmp_path / "hall.sqlite"), stop_hall)
        outbox, pub, sim = table(mosquitto, tmp_path, "1")
        sender = asyncio.create_task(pub.run(stop))
        await until(lambda: pub.connected)
        stop_hall.set()
        hall_task.cancel()  # the hall goes away without a word
        await asyncio.gather(hall_task, return_exceptions=True)
        service.store.close()
        played = await sim.evening(2)  # the broker keeps the hall's session: its messages wait there
        again, hall_task = await hall_up(mosquitto, HallStore(tmp_path / "hall.sqlite"), stop)
        await until(lambda: outbox.counts()["unacked"] == 0, 30)
        stop.set()
        await asyncio.gather(sender, hall_task)
        return played, again

    played, again = asyncio.run(go())
    assert [r["game"] for r in again.store.results()] == [g.game for g in played]
