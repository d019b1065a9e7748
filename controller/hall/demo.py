"""An evening at a simulated club: three tables and the hall on one Mosquitto on loopback (``tianhei club-demo``).

Room 1 plays the standard game with 12 of its 14 seats taken; room 2 the entry game with 9 of 12; room 3 is empty.
Eleven members then arrive in the hall one after another and the hall (``auto_send``) does what seed 000 says:
two fill room 1, three fill room 2, which then has 11 and moves up to the standard game; the last six open room 3
for the entry game. The broker is killed (``kill -9``) and started again twice at random moments. At the end the
demo checks, from what the tables themselves played, that every result reached the hall exactly once, that each
was announced once, that the standings are right and that every message arrived and none was taken twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.club.record import GameRecord
from controller.club.standings import standings
from controller.hall.announce import Announcer
from controller.hall.app import serve
from controller.hall.broker import Mosquitto
from controller.hall.demo_report import Report, cancel_all, restart, tell, until
from controller.hall.mqtt import BrokerAddress, MqttPublisher
from controller.hall.outbox import Outbox
from controller.hall.service import HallService, RoomConfig
from controller.hall.simroom import SimulatedRoom
from controller.hall.store import HallStore
from controller.ports import Voice

CLUB = "demo"
ROOMS = [RoomConfig("1", 14, "standard"), RoomConfig("2", 12, "entry"), RoomConfig("3", 12, "entry")]
FIRST = {"1": ("standard-2.0", 12), "2": ("classic-1.0", 9), "3": ("classic-1.0", 0)}
ARRIVING = ["Ada", "Bo", "Cai", "Dong", "Eva", "Fang", "Gao", "Hui", "Ivy", "Jun", "Kai"]
SURNAMES = ["Zhao", "Qian", "Sun", "Li", "Zhou", "Wu", "Zheng", "Wang", "Feng", "Chen", "Chu", "Wei", "Jiang", "Shen", "Han", "Yang", "Zhu", "Qin", "You", "Xu", "He", "Lü"]


@dataclass
class DemoReport(Report):
    games: int = 0
    results_at_hall: int = 0
    announced: int = 0
    messages: int = 0
    taken: int = 0
    copies: int = 0
    restarts: list[float] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)


def _names(room: str, n: int) -> list[str]:
    return [f"{SURNAMES[(int(room) * 7 + i) % len(SURNAMES)]} {room}{chr(65 + i)}" for i in range(n)]


async def evening(root: Path, *, games: int = 3, speed: float = 30.0, restarts: int = 2, seed: int = 1,
                  host: str = "127.0.0.1", port: int = 8088, web: bool = True, voices: list[Voice] | None = None,
                  say: Callable[[str], None] = print, linger: float = 0.0,
                  on_hall: Callable[[HallService], None] | None = None) -> DemoReport:
    report = DemoReport()
    rng = random.Random(seed)
    broker = Mosquitto(root / "broker", CLUB, [r.id for r in ROOMS])
    broker.start()
    stop = asyncio.Event()
    service = HallService(HallStore(root / "hall.sqlite"), CLUB, ROOMS, announcer=Announcer(voices or []),
                          auto_send=True)
    if on_hall is not None:
        on_hall(service)
    hall_pw = broker.files.passwords["hall"]
    hall_task = asyncio.create_task(serve(service, BrokerAddress("127.0.0.1", broker.port, "hall", hall_pw), stop,
                                          host=host, port=port, web=web))
    tasks: list[asyncio.Task[Any]] = []
    try:
        await until(lambda: service.connected, 10, "the hall did not connect to the broker")
        if web:
            say(f"the hall's page: http://{host}:{port}/  (English: http://{host}:{port}/?lang=en)")
        say(f"broker: mosquitto on 127.0.0.1:{broker.port}; rooms 1, 2, 3; {games} games a room at {speed:g}x")
        outboxes: dict[str, Outbox] = {}
        publishers: dict[str, MqttPublisher] = {}
        rooms: list[SimulatedRoom] = []
        for cfg in ROOMS:
            outbox = outboxes[cfg.id] = Outbox(root / f"room-{cfg.id}.outbox.sqlite")
            user = f"room-{cfg.id}"
            pub = publishers[cfg.id] = MqttPublisher(outbox, BrokerAddress("127.0.0.1", broker.port, user,
                                                                           broker.files.passwords[user]),
                                                     CLUB, cfg.id)
            tasks.append(asyncio.create_task(pub.run(stop)))
            variant, n = FIRST[cfg.id]
            rooms.append(SimulatedRoom(cfg.id, pub, functools.partial(outbox.next_game, cfg.id), _names(cfg.id, n),
                                       variant, seats=cfg.seats, seed=seed, speed=speed, between_s=2.0,
                                       plan=functools.partial(getattr, pub, "sent"), kind=cfg.kind))
        play = [asyncio.create_task(r.evening(games, stop)) for r in rooms]
        tasks += play
        started = time.monotonic()
        chaos = asyncio.create_task(_restarts(broker, restarts, rng, report, started, say))
        tasks.append(chaos)
        await until(lambda: sum(r["status"].get("state") == "playing" for r in service.snapshot()["rooms"]) >= 2,
                    30, "rooms 1 and 2 did not start")
        for name in ARRIVING:  # members arrive in the hall one by one; the organiser puts them on the list
            await asyncio.sleep(0.7)
            service.add_waiting(name)
            say(f"  {time.monotonic() - started:5.1f}s  {name} waits in the hall")
        await asyncio.gather(*play)
        await chaos
        await until(lambda: all(o.counts()["unacked"] == 0 for o in outboxes.values()), 90,
                    "messages still unacknowledged")
        await asyncio.sleep(0.5)
        _check(report, service, rooms, outboxes, publishers)
        await tell(report, say, linger)
    finally:
        stop.set()
        await cancel_all(tasks)
        with contextlib.suppress(asyncio.CancelledError):
            await hall_task
        broker.stop()
    return report


async def _restarts(broker: Mosquitto, n: int, rng: random.Random, report: DemoReport, t0: float,
                    say: Callable[[str], None]) -> None:
    """Kill the broker (-9) and start it again ``n`` times, at random moments of the evening."""
    for _ in range(n):
        await asyncio.sleep(rng.uniform(4.0, 14.0))
        down = rng.uniform(1.0, 3.0)
        report.restarts.append(round(down, 2))
        say(f"  {time.monotonic() - t0:5.1f}s  broker killed (kill -9); back in {down:.1f} s")
        broker.kill()
        await asyncio.sleep(down)
        await restart(broker)
        say(f"  {time.monotonic() - t0:5.1f}s  broker back")


def _check(report: DemoReport, service: HallService, rooms: list[SimulatedRoom], outboxes: dict[str, Outbox],
           publishers: dict[str, MqttPublisher]) -> None:
    played = [g for r in rooms for g in r.played]
    report.games = len(played)
    at_hall = service.store.results()
    report.results_at_hall = len(at_hall)
    counts = Counter(r["game"] for r in at_hall)
    by_game = {r["game"]: r for r in at_hall}
    for g in played:
        if counts[g.game] != 1:
            report.problems.append(f"game {g.game}: at the hall {counts[g.game]} times")
        elif by_game[g.game]["winner"] != g.winner:
            report.problems.append(f"game {g.game}: winner {g.winner} at the table, {by_game[g.game]['winner']} "
                                   f"at the hall")
    extra = set(counts) - {g.game for g in played}
    if extra:
        report.problems.append(f"results the tables never played: {sorted(extra)}")
    said = service.announcer.said if service.announcer is not None else []
    report.announced = len(said)
    if Counter(said) != Counter(r["room"] for r in at_hall):
        report.problems.append(f"announcements {Counter(said)} differ from results by room")
    uids = Counter(r["uid"] for r in service.store.records(service.snapshot()["evening"]))
    if sorted(uids) != sorted(str(g.record["uid"]) for g in played if g.record) or set(uids.values()) != {1}:
        report.problems.append(f"club records at the hall {dict(uids)} differ from the games played")
    # the club's own ranking of the club's own records of what the tables played, by the hall's scoring table
    expected = standings([GameRecord.from_dict(g.record) for g in played if g.record], service.scoring)
    shown = service.snapshot()["standings"]
    if shown != expected:
        report.problems.append("the standings on the page differ from the games played")
    report.messages = sum(o.counts()["total"] for o in outboxes.values())
    report.taken = service.counts.taken
    report.copies = service.counts.copies
    if report.taken != report.messages:
        report.problems.append(f"{report.messages} messages written at the tables, {report.taken} taken by the hall")
    report.delays = list(service.counts.result_delays)
    variants = {r.room: [g.variant for g in r.played] for r in rooms}
    if "standard-2.0" not in variants["2"][1:]:
        report.problems.append(f"room 2 never moved up to the standard game: {variants['2']}")
    if not rooms[2].played or not set(rooms[2].played[0].names) <= set(ARRIVING):
        report.problems.append("room 3 did not open with the members who waited")
    if service.store.waiting():
        report.problems.append(f"still waiting: {service.store.waiting()}")
    lines = report.lines
    lines.append("")
    lines.append(f"{report.games} games played; results at the hall: {report.results_at_hall}; announced: "
                 f"{report.announced}")
    for r in rooms:
        lines.append(f"  room {r.room}: " + ", ".join(f"{g.variant} {g.players}p → {g.winner}" for g in r.played))
    outages = sum(p.stats.outages for p in publishers.values())
    lines.append(f"messages: {report.messages} written, {report.taken} taken once, {report.copies} copies dropped; "
                 f"broker restarts: {len(report.restarts)} (down {', '.join(f'{d:.1f}' for d in report.restarts)} s); "
                 f"table links lost: {outages}")
    if report.delays:
        lines.append(f"result delay (table → hall): min {min(report.delays):.2f} s, median "
                     f"{statistics.median(report.delays):.2f} s, max {max(report.delays):.2f} s")
    lines.append("standings: " + ", ".join(f"{s['member']} {s['points']:g}" for s in shown[:6]) + " …")
    lines.append("OK: every result, announcement and standing is right; nothing lost or doubled" if report.ok
                 else "PROBLEMS:\n  " + "\n  ".join(report.problems))
