"""The club's broker as an attacker on the club's Wi-Fi sees it (a real Mosquitto on loopback): a table's login
cannot take the hall's session by sending the hall's client id, and on the club network's listener the
passwords travel inside TLS, to a broker whose certificate the table checks (docs/security.md)."""

from __future__ import annotations

import asyncio
import json
import ssl
from pathlib import Path

import aiomqtt
import pytest

from controller.hall.broker import Mosquitto
from controller.hall.certs import make_ca, server_cert
from controller.hall.mqtt import BrokerAddress, MqttPublisher
from controller.hall.outbox import Outbox
from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from tests.hall.conftest import CLUB, ROOMS, until


def address(broker: Mosquitto, user: str, *, tls: bool = False, cafile: Path | None = None) -> BrokerAddress:
    port = broker.tls_port if tls else broker.port
    ca = str(cafile or broker.files.cafile) if tls else None
    return BrokerAddress("127.0.0.1", port, user, broker.files.passwords[user], ca)


def status(room: str, seq: int) -> bytes:
    """A table's status message as the outbox wraps it (controller/hall/outbox.py)."""
    return json.dumps({"id": f"e-{seq}", "epoch": "e", "seq": seq, "room": room, "kind": "status", "at": 1.0,
                       "body": {"state": "idle"}}).encode()


def test_a_tables_login_sending_the_halls_client_id_does_not_cut_the_hall_off(mosquitto, tmp_path):
    async def go():
        stop = asyncio.Event()
        service = HallService(HallStore(tmp_path / "hall.sqlite"), CLUB, [RoomConfig(r) for r in ROOMS])
        hall = asyncio.create_task(service.run_mqtt(address(mosquitto, "hall"), stop))
        await until(lambda: service.connected)
        for stolen in (f"tianhei-{CLUB}-hall", "hall"):  # the id the hall sends, and its login's
            me = address(mosquitto, "room-1")
            async with aiomqtt.Client("127.0.0.1", me.port, username=me.username, password=me.password,
                                      identifier=stolen, clean_session=False, timeout=5) as thief:
                heard = service.counts.taken
                await thief.publish(f"tianhei/{CLUB}/1/status", status("1", heard + 1), qos=1)
                # the hall hears the thief's message on the connection it had before the thief came
                await until(lambda h=heard: service.counts.taken > h)
        link = (service.link.connects, service.link.outages)
        stop.set()
        await hall
        return link

    assert asyncio.run(go()) == (1, 0)  # one connection, never lost
    log = (mosquitto.root / "mosquitto.log").read_text()
    assert "already connected" not in log and "as room-1 " in log  # the thief's id was its own login


def tls_broker(tmp_path) -> Mosquitto:
    broker = Mosquitto(tmp_path / "broker", CLUB, ROOMS, tls=True)
    broker.start()
    return broker


def test_a_table_reaches_the_clubs_tls_listener_checking_the_brokers_certificate(tmp_path):
    broker = tls_broker(tmp_path)
    try:
        async def go():
            stop = asyncio.Event()
            outbox = Outbox(tmp_path / "room-2.sqlite")
            pub = MqttPublisher(outbox, address(broker, "room-2", tls=True), CLUB, "2")
            service = HallService(HallStore(tmp_path / "hall.sqlite"), CLUB, [RoomConfig(r) for r in ROOMS])
            tasks = [asyncio.create_task(pub.run(stop)),
                     asyncio.create_task(service.run_mqtt(address(broker, "hall", tls=True), stop))]
            pub.publish("status", {"state": "idle"})
            await until(lambda: outbox.counts()["unacked"] == 0 and service.counts.taken == 1)
            stop.set()
            await asyncio.gather(*tasks)
            return pub

        pub = asyncio.run(go())
        assert pub.stats.connects >= 1
    finally:
        broker.stop()
    conf = broker.files.conf.read_text()
    assert f"listener {broker.tls_port} 127.0.0.1" in conf and "tls_version tlsv1.2" in conf


def test_the_tls_listener_refuses_plain_mqtt_and_a_table_refuses_a_broker_it_cannot_check(tmp_path):
    broker = tls_broker(tmp_path)
    impostor_ca = make_ca(tmp_path / "impostor", "Someone else")
    server_cert(tmp_path / "impostor", "broker", "Someone else", ["127.0.0.1"])
    try:
        async def connect(a: BrokerAddress, *, plain_on_tls: bool = False) -> None:
            params = None if plain_on_tls else a.tls_params()
            async with aiomqtt.Client(a.host, a.port, username=a.username, password=a.password, tls_params=params,
                                      timeout=1):
                pass

        me = address(broker, "room-1", tls=True)
        asyncio.run(connect(me))  # the club's own CA: in
        with pytest.raises(aiomqtt.MqttError):
            asyncio.run(connect(me, plain_on_tls=True))  # a password in clear to the TLS port: no answer
        with pytest.raises((aiomqtt.MqttError, ssl.SSLError)):  # a table that trusts another CA sends nothing
            asyncio.run(connect(address(broker, "room-1", tls=True, cafile=impostor_ca)))
    finally:
        broker.stop()
