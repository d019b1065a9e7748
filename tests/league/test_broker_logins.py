"""The league's broker as one club's organiser could attack it (real Mosquittos on loopback): a club's
certificate cannot take another club's bridge or the league service's session by sending their client ids; a
record sent while the league service is off reaches it when it is back (its session kept); the league's page
shows a bridge as down when it is."""

from __future__ import annotations

import asyncio
import json
import socket

from controller.hall.broker import Mosquitto, listens
from controller.hall.mqtt import BrokerAddress
from controller.league.bridge import LEAGUE_USER, Bridge, LeagueMosquitto
from controller.league.service import LeagueService
from controller.league.store import LeagueStore
from tests.hall.conftest import until
from tests.league.conftest import CLUBS, club_tls_client, collect, league_client, message, record


def club_broker(tmp_path, league_broker, certs, club: str) -> Mosquitto:
    root, made = certs
    bridge = Bridge(club, f"127.0.0.1:{league_broker.tls_port}", root / "ca.crt", made[club].cert, made[club].key,
                    restart=(1, 2))
    return Mosquitto(tmp_path / club, club, ["1"], bridge=bridge)


def red_as(league_broker, certs, identifier: str):
    """Club red's certificate at the league broker, sending someone else's client id."""
    root, made = certs
    return club_tls_client(league_broker, root / "ca.crt", made["red"].cert, made["red"].key,
                           identifier=identifier, clean_session=False)


def league_address(league_broker) -> BrokerAddress:
    return BrokerAddress("127.0.0.1", league_broker.port, LEAGUE_USER, league_broker.files.passwords[LEAGUE_USER])


def taken_log(league_broker) -> str:
    return (league_broker.root / "mosquitto.log").read_text()


def test_club_reds_certificate_sending_blues_bridge_id_does_not_take_blues_bridge(tmp_path, league_broker, certs):
    blue = club_broker(tmp_path, league_broker, certs, "blue")

    async def go():
        got: list = []
        with blue:
            async with league_client(league_broker) as lg:
                await lg.subscribe("league/blue/#", qos=1)
                reader = asyncio.create_task(collect(lg, got))
                await until(lambda: ("league/blue/bridge", b"1") in got)
                for stolen in ("league-blue", "club-blue"):  # the bridge's id before and now
                    async with red_as(league_broker, certs, stolen) as thief:
                        await thief.publish("league/red/record", b"red's own", qos=1)
                async with blue_hall(blue) as hall:
                    await hall.publish("tianhei/blue/hall/league/record", b"blue's game", qos=1)
                await until(lambda: ("league/blue/record", b"blue's game") in got)
                reader.cancel()
        return got

    got = asyncio.run(go())
    assert ("league/blue/bridge", b"0") not in got  # blue's bridge never went down
    log = taken_log(league_broker)
    assert "already connected" not in log and "as club-red " in log  # the thief was club red all along


def blue_hall(blue: Mosquitto):
    import aiomqtt

    return aiomqtt.Client("127.0.0.1", blue.port, username="hall", password=blue.files.passwords["hall"], timeout=5)


def test_a_clubs_certificate_sending_the_league_services_id_does_not_cut_the_league_off(tmp_path, league_broker,
                                                                                          certs):
    async def go():
        stop = asyncio.Event()
        service = LeagueService(LeagueStore(tmp_path / "league.sqlite"))
        link = asyncio.create_task(service.run_mqtt(league_address(league_broker), stop))
        await until(lambda: service.connected)
        for n, stolen in enumerate(("tianhei-league", LEAGUE_USER)):
            async with red_as(league_broker, certs, stolen) as thief:
                body = record(f"g{n}", "good", [("Ann", "police", "good", "04A1")])
                await thief.publish("league/red/record", message("red", body), qos=1)
                await until(lambda n=n: service.counts.taken == n + 1)
        stop.set()
        await link
        return service

    service = asyncio.run(go())
    assert service.counts.taken == 2
    log = taken_log(league_broker)
    assert "already connected" not in log and "as club-red " in log


def test_a_record_sent_while_the_league_service_is_off_reaches_it_when_it_is_back(tmp_path, league_broker, certs):
    store = LeagueStore(tmp_path / "league.sqlite")

    async def league_for_a_while(until_taken: int) -> LeagueService:
        stop = asyncio.Event()
        service = LeagueService(store)
        link = asyncio.create_task(service.run_mqtt(league_address(league_broker), stop))
        await until(lambda: service.connected and service.counts.taken >= until_taken)
        stop.set()
        await link
        return service

    async def go():
        await league_for_a_while(0)  # the league service subscribes once, then its machine goes off
        root, made = certs
        async with club_tls_client(league_broker, root / "ca.crt", made["red"].cert, made["red"].key) as red:
            body = record("while-off", "killers", [("Bo", "killer", "killers", None)])
            await red.publish("league/red/record", message("red", body), qos=1)
        return await league_for_a_while(1)  # back: the broker kept the record for it

    service = asyncio.run(go())
    assert service.counts.taken == 1 and [g["uid"] for g in store.games()] == ["while-off"]


def test_the_league_page_shows_a_bridge_down_when_its_club_broker_is_gone(tmp_path, league_broker, certs):
    blue = club_broker(tmp_path, league_broker, certs, "blue")

    async def go():
        stop = asyncio.Event()
        service = LeagueService(LeagueStore(tmp_path / "league.sqlite"))
        link = asyncio.create_task(service.run_mqtt(league_address(league_broker), stop))

        def bridge() -> str | None:
            clubs = {c["club"]: c["bridge"] for c in service.snapshot()["clubs"]}
            return clubs.get("blue")

        blue.start()
        await until(lambda: bridge() == "up")
        blue.kill()  # kill -9: the club's Pi loses its power
        await until(lambda: bridge() == "down")
        stop.set()
        await link
        return json.dumps(service.snapshot()["clubs"])

    assert '"bridge": "down"' in asyncio.run(go())


def test_the_league_broker_whose_picked_port_was_taken_before_it_started_moves_and_the_service_gets_in(tmp_path,
                                                                                                     certs):
    """As the club's broker (tests/hall/test_broker.py): a port picked and let go may be another program's by the
    start; the league's broker picks again, with its files written again and the service's password kept."""
    broker = LeagueMosquitto(tmp_path / "league", CLUBS, certs[0])
    password = broker.files.passwords[LEAGUE_USER]
    taken = broker.port
    with socket.socket() as other:
        other.bind(("127.0.0.1", taken))
        other.listen()
        broker.start()
        try:
            assert broker.port != taken and listens(broker.proc.pid, broker.port)
            assert broker.files.passwords[LEAGUE_USER] == password

            async def go():
                async with league_client(broker) as client:
                    await client.subscribe("league/#")

            asyncio.run(go())
        finally:
            broker.stop()
