"""A league evening on one machine (``tianhei league-demo``): three clubs, each with its own Mosquitto, hall and a
simulated table or two (club-demo's pieces), bridged over TLS to the league's Mosquitto, all on loopback ports.

While the tables play, the links are cut and given back: red's bridge is blocked (its internet gone) while its
games end; blue's broker is killed (``kill -9``) and started again; the league's broker is killed and started
again; gold's bridge is blocked and, while it is, gold's broker is killed too (the queue the bridge kept is lost:
the league's receipts make the hall send again what never arrived). At the end the demo checks, from what the
tables themselves played, that every game reached the league exactly once, that each club's standings at the
league are its hall's, that the league's standings are the club scoring of every game with one person per member
card, that Ada (a card in red and in blue) is one person, and that Bo (a card in red, none in gold) is one once
his two records are merged.

One room of red is poisoned (controller/league/poison.py): its table login publishes what stopped a hall or the
league for every club before they checked their input, and red's hall holds two poisoned records it took before
then and offers the league again. The demo checks that each poison is in the hall's or the league's quarantine
and that every other room's game reached the hall and the league all the same.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.club.record import GameRecord
from controller.club.standings import standings
from controller.hall.broker import Mosquitto
from controller.hall.demo_report import Report, cancel_all, restart, tell, until
from controller.hall.mqtt import BrokerAddress, MqttPublisher
from controller.hall.outbox import Outbox
from controller.hall.service import HallService, RoomConfig, evening_of
from controller.hall.simroom import SimulatedRoom
from controller.hall.store import HallStore
from controller.league import poison
from controller.league.bridge import LEAGUE_USER, Bridge, LeagueMosquitto
from controller.league.certs import make_all
from controller.league.relay import Relay
from controller.league.service import LeagueService
from controller.league.store import LeagueStore

#: A room of red whose table login publishes poison (controller/league/poison.py); no table of ours plays there.
POISONED = ("red", "3")
#: club -> its rooms: (room, variant, players)
CLUBS: dict[str, list[tuple[str, str, int]]] = {
    "red": [("1", "classic-1.0", 8), ("2", "classic-1.0", 7)],
    "blue": [("1", "classic-1.0", 8)],
    "gold": [("1", "classic-1.0", 7)],
}
SURNAMES = ["Zhao", "Qian", "Sun", "Li", "Zhou", "Wu", "Zheng", "Wang", "Feng", "Chen", "Chu", "Wei", "Jiang"]
#: Members who play in two clubs: (club, room, name there, their card UID or None: that club has no card for them)
TRAVELLERS: dict[str, list[tuple[str, str, str, str | None]]] = {
    "Ada": [("red", "1", "Ada", "04a1d2c3"), ("blue", "1", "Ada Wang", "04a1d2c3")],
    "Bo": [("red", "2", "Bo", "04b0b0b0"), ("gold", "1", "Bo", None)],
}


@dataclass
class LeagueReport(Report):
    games: int = 0
    at_league: int = 0
    copies: int = 0
    cuts: list[str] = field(default_factory=list)
    #: messages the poisoned room published
    poisons: int = 0


def card_of(club: str, name: str) -> str:
    return "04" + hashlib.sha256(f"{club}:{name}".encode()).hexdigest()[:12]


def roster(club: str, room: str, n: int) -> tuple[list[str], dict[str, str]]:
    """The room's players (travellers included) and the cards the club knows; every fifth local has no card."""
    names, cards = [], {}
    for visits in TRAVELLERS.values():
        for c, r, name, card in visits:
            if (c, r) == (club, room):
                names.append(name)
                if card:
                    cards[name] = card
    base = sum(ord(ch) for ch in club) + int(room) * 5
    i = 0
    while len(names) < n:
        name = f"{SURNAMES[(base + i) % len(SURNAMES)]} {club[0].upper()}{room}{chr(65 + i)}"
        names.append(name)
        if i % 5 != 4:
            cards[name] = card_of(club, name)
        i += 1
    return names, cards


def canonical(club: str, name: str) -> str:
    """Who a seat is, as the demo knows it (travellers by their one name): the identity the league must find."""
    for person, visits in TRAVELLERS.items():
        if any(c == club and n == name for c, _, n, _ in visits):
            return person
    return f"{club}:{name}"


@dataclass
class _Club:
    name: str
    broker: Mosquitto
    relay: Relay
    hall: HallService
    rooms: list[SimulatedRoom]
    outboxes: list[Outbox]


async def evening(root: Path, *, games: int = 2, speed: float = 60.0, seed: int = 1, host: str = "127.0.0.1",
                  port: int = 8089, web: bool = True, say: Callable[[str], None] = print,
                  linger: float = 0.0) -> LeagueReport:
    report = LeagueReport()
    rng = random.Random(seed)
    stop = asyncio.Event()
    clubs_list = list(CLUBS)
    certs = await asyncio.to_thread(make_all, root / "certs", clubs_list, ["127.0.0.1"])
    league_broker = LeagueMosquitto(root / "league", clubs_list, root / "certs")
    league_broker.start()
    league = LeagueService(LeagueStore(root / "league.sqlite"))
    tasks: list[asyncio.Task[Any]] = [asyncio.create_task(league.run_mqtt(
        BrokerAddress("127.0.0.1", league_broker.port, LEAGUE_USER, league_broker.files.passwords[LEAGUE_USER]),
        stop))]
    clubs: dict[str, _Club] = {}
    server = None
    try:
        for name, rooms in CLUBS.items():
            relay = Relay(league_broker.tls_port)
            await relay.start()
            cert = certs[name]
            bridge = Bridge(name, f"127.0.0.1:{relay.port}", root / "certs" / "ca.crt", cert.cert, cert.key,
                            restart=(1, 2))
            room_ids = [r for r, _, _ in rooms] + ([POISONED[1]] if name == POISONED[0] else [])
            broker = Mosquitto(root / name / "broker", name, room_ids, bridge=bridge)
            broker.start()
            store = HallStore(root / name / "hall.sqlite")
            if name == POISONED[0]:  # what an older hall took from the poisoned room, offered again after a restart
                with store.transaction():
                    for room, at, night, body in poison.stored_poisons(name, time.time(), evening_of(time.time())):
                        store.add_record(str(body["uid"]), room, night, at, body)
            hall = HallService(store, name, [RoomConfig(r, 12) for r in room_ids])
            hall.league.first_s = 4.0  # a demo's minute is short: ask the league again soon
            tasks.append(asyncio.create_task(hall.run_mqtt(
                BrokerAddress("127.0.0.1", broker.port, "hall", broker.files.passwords["hall"]), stop)))
            sims, outboxes = [], []
            for room, variant, n in rooms:
                outbox = Outbox(root / name / f"room-{room}.outbox.sqlite")
                user = f"room-{room}"
                pub = MqttPublisher(outbox, BrokerAddress("127.0.0.1", broker.port, user,
                                                          broker.files.passwords[user]), name, room)
                tasks.append(asyncio.create_task(pub.run(stop)))
                names, cards = roster(name, room, n)
                sims.append(SimulatedRoom(room, pub, functools.partial(outbox.next_game, f"{name}-{room}"), names,
                                          variant, seats=12, seed=seed, speed=speed, between_s=1.0, cards=cards,
                                          plan=lambda: ([], "")))
                outboxes.append(outbox)
            clubs[name] = _Club(name, broker, relay, hall, sims, outboxes)
        await until(lambda: league.connected and all(c.hall.connected for c in clubs.values()), 15,
                    "the halls and the league did not connect to their brokers")
        await until(lambda: all(s[0] == "up" for s in league.store.clubs().values())
                    and len(league.store.clubs()) == len(CLUBS), 20, "the clubs' bridges did not come up")
        if web:
            from controller.league.web import open_page

            server = await open_page(league, host, port, key="tianhei league-demo --host")
            say(f"the league's page: http://{host}:{port}/  (English: http://{host}:{port}/?lang=en)")
        say(f"league broker: TLS on 127.0.0.1:{league_broker.tls_port} for the bridges, "
            f"127.0.0.1:{league_broker.port} for the league; clubs " + ", ".join(
                f"{c.name} (broker :{c.broker.port}, {len(c.rooms)} table(s))" for c in clubs.values())
            + f"; {games} games a table at {speed:g}x")
        poisoned = clubs[POISONED[0]]
        await _poison(poisoned, report, say)
        play = [asyncio.create_task(r.evening(games, stop)) for c in clubs.values() for r in c.rooms]
        started = time.monotonic()
        chaos = asyncio.create_task(_chaos(clubs, league_broker, league, rng, report, started, say))
        await asyncio.gather(*play, chaos)
        played = {(c.name, g.record["uid"]) for c in clubs.values() for r in c.rooms for g in r.played if g.record}
        await until(lambda: {(g["club"], g["uid"]) for g in league.store.games()} >= played, 120,
                    "games still missing at the league")
        await until(lambda: all(not c.hall.league.pending for c in clubs.values()), 60,
                    "a hall still waits for the league's receipt")
        await until(lambda: all(s[0] == "up" for s in league.store.clubs().values()), 30,
                    "a club's bridge did not come back")
        await asyncio.sleep(1.0)  # the last standings through the bridges
        _check(report, league, clubs)
        await tell(report, say, linger)
    finally:
        stop.set()
        if server is not None:
            await server.stop()
        await cancel_all(tasks)
        for c in clubs.values():
            await c.relay.stop()
            c.broker.stop()
        league_broker.stop()
    return report


async def _poison(club: _Club, report: LeagueReport, say: Callable[[str], None]) -> None:
    """The poisoned room's table login publishes every poison on its own room's topics, then the evening plays."""
    import aiomqtt

    user = f"room-{POISONED[1]}"
    sent = poison.room_poisons(club.name, POISONED[1])
    async with aiomqtt.Client("127.0.0.1", club.broker.port, username=user, password=club.broker.files.passwords[user],
                              identifier=f"poisoner-{club.name}-{POISONED[1]}", timeout=5) as client:
        for topic, payload in sent:
            await client.publish(topic, payload, qos=1)
    report.poisons = len(sent)
    say(f"  room {POISONED[1]} of {club.name} published {len(sent)} poisoned messages (a list for a name, a number "
        f"for a card, players 1e999, 100,000 deep, written at 1e300); its hall offers the league 2 more it kept")


async def _chaos(clubs: dict[str, _Club], league_broker: LeagueMosquitto, league: LeagueService, rng: random.Random,
                 report: LeagueReport, t0: float, say: Callable[[str], None]) -> None:
    """Every way a league link goes, each at a moment that matters: red's bridge blocked while its first games
    end; blue's broker killed just after a game of its own; the league's broker killed once games are in; gold's
    bridge blocked while a game ends and gold's broker killed with that record in the bridge's queue."""
    def note(text: str) -> None:
        report.cuts.append(text)
        say(f"  {time.monotonic() - t0:5.1f}s  {text}")

    def ended(club: _Club, n: int = 1) -> Callable[[], bool]:
        return lambda: any(len(r.played) >= n for r in club.rooms)

    red, blue, gold = clubs["red"], clubs["blue"], clubs["gold"]
    await red.relay.block()
    note("red's bridge blocked (its internet gone)")
    await gold.relay.block()
    note("gold's bridge blocked")
    await until(ended(blue), 120, "blue's first game did not end")
    await asyncio.sleep(rng.uniform(0.0, 0.5))
    blue.broker.kill()
    note("blue's broker killed (kill -9) just after its first game")
    await asyncio.sleep(rng.uniform(1.0, 2.5))
    await restart(blue.broker)
    note("blue's broker back")
    await until(ended(gold), 120, "gold's first game did not end")
    await until(lambda: gold.hall.league.sent >= 1, 30, "gold's hall did not pass its record on")
    await asyncio.sleep(1.0)
    gold.broker.kill()
    note("gold's broker killed, its bridge still blocked: the queued record is gone with it")
    await asyncio.sleep(rng.uniform(1.0, 2.0))
    await restart(gold.broker)
    note("gold's broker back")
    await until(lambda: all(len(r.played) >= 1 for r in red.rooms), 120, "red's first games did not end")
    await asyncio.sleep(rng.uniform(1.0, 3.0))
    await red.relay.unblock()
    note("red's bridge back: its broker delivers the queue")
    await until(lambda: league.store.count_games() >= 3, 60, "three games did not reach the league")
    league_broker.kill()
    note("the league's broker killed (kill -9)")
    await asyncio.sleep(rng.uniform(1.0, 2.5))
    await restart(league_broker)
    note("the league's broker back")
    await asyncio.sleep(rng.uniform(2.0, 4.0))
    await gold.relay.unblock()
    note("gold's bridge back")


def _check(report: LeagueReport, league: LeagueService, clubs: dict[str, _Club]) -> None:
    problems, lines = report.problems, report.lines
    played = {(c.name, str(g.record["uid"])): (c.name, g.record) for c in clubs.values() for r in c.rooms
              for g in r.played if g.record}
    report.games = len(played)
    at_league = league.store.games()
    report.at_league = len(at_league)
    report.copies = league.counts.copies
    counts = Counter((g["club"], g["uid"]) for g in at_league)
    for key, (club, g) in played.items():
        found = [x for x in at_league if (x["club"], x["uid"]) == key]
        if counts[key] != 1:
            problems.append(f"{club} game {key[1]}: at the league {counts[key]} times")
        elif found[0]["record"] != g:
            problems.append(f"{club} game {key[1]}: the record at the league differs from the table's")
    extra = set(counts) - set(played)
    if extra:
        problems.append(f"games at the league that no table played: {sorted(extra)}")
    # each club's standings, as its hall published them, are the club's own scoring of what its tables played
    for c in clubs.values():
        mine = [GameRecord.from_dict(g.record) for r in c.rooms for g in r.played if g.record]
        at = league.store.club_standings(c.name)
        evening = evening_of(time.time())
        if at is None:
            problems.append(f"{c.name}: no standings at the league")
        elif at[1] != c.hall.standings(at[0]) or (at[0] == evening and at[1] != standings(mine)):
            problems.append(f"{c.name}: the standings at the league differ from the club's")
    # people: Ada is one person by her card; Bo is two until merged
    try:
        ada = {league.store.find(f"{club}:{name}") for club, _, name, _ in TRAVELLERS["Ada"]}
        if len(ada) != 1:
            problems.append(f"Ada (one card in red and blue) is {len(ada)} people at the league")
        bo = [league.store.find(f"{club}:{name}") for club, _, name, _ in TRAVELLERS["Bo"]]
        if len(set(bo)) != 2:
            problems.append("Bo (a card in red, none in gold) should be two records before the merge")
        merged, _ = league.store.merge(f"card:{TRAVELLERS['Bo'][0][3]}", "gold:Bo")
        lines.append(f"merged gold:Bo into #{merged.id} {merged.name} (clubs {', '.join(merged.clubs)})")
        if len({league.store.find(f"{club}:{name}") for club, _, name, _ in TRAVELLERS["Bo"]}) != 1:
            problems.append("Bo is not one person after the merge")
    except ValueError as exc:
        problems.append(f"people: {exc}")
    # the league's standings: the club scoring of every game, each seat as the person the demo knows it is
    labels = league.labels()
    expected_names = {}
    for club, g in played.values():
        for s in GameRecord.from_dict(g).seats:
            if s.member is not None:
                expected_names[canonical(club, s.member)] = labels[league.store.find(f"{club}:{s.member}")]
    if len(set(expected_names.values())) != len(expected_names) or len(league.store.people()) != len(expected_names):
        problems.append(f"{len(expected_names)} people played, the league counts {len(league.store.people())}")
    renamed = []
    for club, g in played.values():
        rec = GameRecord.from_dict(g)
        renamed.append(replace(rec, seats=tuple(replace(s, member=expected_names[canonical(club, s.member)])
                                                if s.member else s for s in rec.seats)))
    renamed.sort(key=lambda r: next(x["at"] for x in at_league if x["uid"] == r.uid))
    shown = league.standings()
    if shown != standings(renamed, league.scoring):
        problems.append("the league's standings differ from the games played")
    _check_quarantine(report, league, clubs[POISONED[0]])
    not_up = [c for c, (state, _) in league.store.clubs().items() if state != "up"]
    if not_up:
        problems.append(f"bridges not up at the end: {not_up}")
    lines.insert(0, "")
    lines.insert(1, f"{report.games} games played in {len(clubs)} clubs; at the league: {report.at_league} "
                    f"({report.copies} copies dropped); cuts: {len(report.cuts)}")
    for c in clubs.values():
        lines.append(f"  {c.name}: " + "; ".join(f"table {r.room}: " + ", ".join(
            f"{g.variant} {g.players}p → {g.winner}" for g in r.played) for r in c.rooms)
            + f"  (records to the league {c.hall.league.sent}, again {c.hall.league.resent})")
    travellers = [p for p in league.store.people() if len(p.clubs) > 1]
    lines.append("members in two clubs: " + ", ".join(f"{labels.get(p.id, p.name)} ({', '.join(p.clubs)})"
                                                       for p in travellers))
    lines.append("league standings: " + ", ".join(f"{s['member']} {s['points']:g}" for s in shown[:6]) + " …")
    lines.append("OK: every game is at the league once, every club's and the league's standings are right"
                 if report.ok else "PROBLEMS:\n  " + "\n  ".join(problems))


def _check_quarantine(report: LeagueReport, league: LeagueService, club: _Club) -> None:
    """Every poison of the poisoned room is in its hall's quarantine, every poisoned record its hall kept is in
    the league's, and both services still took every other game (checked above)."""
    at_hall = [q for q in club.hall.store.quarantined() if q.sender == f"room {POISONED[1]}"]
    at_league = [q for q in league.store.quarantined() if q.sender == f"club {club.name}"]
    if len(at_hall) != report.poisons:
        report.problems.append(f"{len(at_hall)} of room {POISONED[1]}'s {report.poisons} poisoned messages are in "
                               f"{club.name}'s hall's quarantine")
    if len(at_league) != 2:
        report.problems.append(f"{len(at_league)} of the 2 poisoned records {club.name}'s hall kept are in the "
                               f"league's quarantine")
    report.lines.append(f"quarantine: {club.name}'s hall refused {len(at_hall)} message(s) from room "
                        f"{POISONED[1]} (" + ", ".join(sorted({q.field for q in at_hall})) + f"); the league "
                        f"refused {len(at_league)} from {club.name} ("
                        + ", ".join(sorted({q.field for q in at_league})) + ")")
