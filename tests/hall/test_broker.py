"""The club's broker is a real Mosquitto with its own passwords and ACL: each table writes only under its own room
and reads only the hall's messages for it; the hall reads every room; nobody gets in without a password; it
listens on loopback unless the club's address is given."""

from __future__ import annotations

import asyncio
import json
import socket

import aiomqtt
import pytest

from controller.hall.broker import Mosquitto, PortInUse, acl, config, listens, write_files
from tests.hall.conftest import CLUB, ROOMS, until


def client(broker, user: str | None, password: str | None = None, **kw) -> aiomqtt.Client:
    if user is not None and password is None:
        password = broker.files.passwords[user]
    return aiomqtt.Client("127.0.0.1", broker.port, username=user, password=password, timeout=5, **kw)


async def collect(c: aiomqtt.Client, into: list, stop: asyncio.Event) -> None:
    async for m in c.messages:
        into.append((str(m.topic), bytes(m.payload)))


def test_a_table_publishes_only_under_its_own_room_and_the_hall_reads_every_room(mosquitto):
    async def go():
        got: list = []
        async with client(mosquitto, "hall") as hall, client(mosquitto, "room-1") as table:
            await hall.subscribe(f"tianhei/{CLUB}/#", qos=1)
            reader = asyncio.create_task(collect(hall, got, asyncio.Event()))
            await table.publish(f"tianhei/{CLUB}/2/result", b"forged", qos=1)  # room 1 pretending to be room 2
            await table.publish(f"tianhei/{CLUB}/hall/rooms/1/ack", b"forged", qos=1)
            await table.publish(f"tianhei/{CLUB}/1/result", b"mine", qos=1)
            await until(lambda: any(p == b"mine" for _, p in got))
            reader.cancel()
        return got

    got = asyncio.run(go())
    assert got == [(f"tianhei/{CLUB}/1/result", b"mine")]


def test_a_table_reads_the_halls_messages_for_its_own_room_only(mosquitto):
    async def go():
        got: list = []
        async with client(mosquitto, "hall") as hall, client(mosquitto, "room-1") as table:
            await table.subscribe(f"tianhei/{CLUB}/#", qos=1)
            reader = asyncio.create_task(collect(table, got, asyncio.Event()))
            await hall.publish(f"tianhei/{CLUB}/hall/rooms/2/sent", b"for room 2", qos=1)
            await hall.publish(f"tianhei/{CLUB}/hall/rooms/1/sent", b"for room 1", qos=1)
            await until(lambda: any(p == b"for room 1" for _, p in got))
            reader.cancel()
        return got

    assert asyncio.run(go()) == [(f"tianhei/{CLUB}/hall/rooms/1/sent", b"for room 1")]


def test_the_hall_cannot_write_into_a_rooms_topics(mosquitto):
    async def go():
        got: list = []
        async with client(mosquitto, "hall") as hall, client(mosquitto, "room-3") as table:
            await table.subscribe(f"tianhei/{CLUB}/hall/rooms/3/#", qos=1)
            await hall.subscribe(f"tianhei/{CLUB}/3/#", qos=1)
            reader = asyncio.create_task(collect(hall, got, asyncio.Event()))
            await hall.publish(f"tianhei/{CLUB}/3/result", b"forged", qos=1)
            await table.publish(f"tianhei/{CLUB}/3/status", b"real", qos=1)
            await until(lambda: any(p == b"real" for _, p in got))
            reader.cancel()
        return got

    assert asyncio.run(go()) == [(f"tianhei/{CLUB}/3/status", b"real")]


@pytest.mark.parametrize(("user", "password"), [(None, None), ("room-1", "wrong"), ("nobody", "x")])
def test_nobody_gets_in_without_the_right_password(mosquitto, user, password):
    async def go():
        async with aiomqtt.Client("127.0.0.1", mosquitto.port, username=user, password=password, timeout=5):
            pass

    with pytest.raises(aiomqtt.MqttError, match=r"[Nn]ot authori[sz]ed|[Bb]ad user name or password|refused"):
        asyncio.run(go())


def test_the_broker_listens_on_loopback_unless_the_clubs_address_is_given_and_there_with_tls(tmp_path):
    text = config(port=1883, binds=["127.0.0.1"], password_file=tmp_path / "p", acl_file=tmp_path / "a",
                  data_dir=None)
    assert [line for line in text.splitlines() if line.startswith("listener")] == ["listener 1883 127.0.0.1"]
    assert "allow_anonymous false" in text
    files = write_files(tmp_path / "etc", "redclub", ["1", "2"], binds=["127.0.0.1", "192.168.8.2"])
    conf = files.conf.read_text()
    listeners = [line for line in conf.splitlines() if line.startswith("listener")]
    assert listeners == ["listener 1883 127.0.0.1", "listener 8883 192.168.8.2"]  # the Wi-Fi gets TLS only
    assert conf.count("use_username_as_clientid true") == 2 and "certfile" in conf
    assert files.cafile == tmp_path / "etc" / "certs" / "ca.crt" and files.cafile.is_file()
    assert (tmp_path / "etc" / "certs" / "ca.key").stat().st_mode & 0o777 == 0o600
    plain = write_files(tmp_path / "plain", "redclub", ["1"], binds=["127.0.0.1", "192.168.8.2"], tls=False)
    assert "listener 1883 192.168.8.2" in plain.conf.read_text() and plain.cafile is None
    assert "\nuser room-2\ntopic write tianhei/redclub/2/#\n" in acl("redclub", ["1", "2"])
    assert (files.secret_file("room-1").stat().st_mode & 0o777) == 0o600


def test_writing_the_files_again_keeps_each_users_password(tmp_path):
    first = write_files(tmp_path, "c", ["1"]).passwords
    again = write_files(tmp_path, "c", ["1", "2"]).passwords
    assert again["room-1"] == first["room-1"] and again["hall"] == first["hall"] and "room-2" in again
    assert json.dumps(sorted(again)) == json.dumps(["hall", "room-1", "room-2"])


def test_a_new_club_address_gets_a_broker_certificate_naming_it_from_the_same_ca(tmp_path):
    import subprocess

    first = write_files(tmp_path, "redclub", ["1"], binds=["127.0.0.1", "192.168.8.2"])
    ca, kept = first.cafile.read_bytes(), (tmp_path / "certs" / "broker.crt").read_bytes()
    write_files(tmp_path, "redclub", ["1"], binds=["127.0.0.1", "192.168.8.2"])
    assert (tmp_path / "certs" / "broker.crt").read_bytes() == kept  # the same addresses: the same certificate
    write_files(tmp_path, "redclub", ["1"], binds=["127.0.0.1", "10.0.0.5"])  # the Pi moved to another network
    text = subprocess.run(["openssl", "x509", "-noout", "-text", "-in", str(tmp_path / "certs" / "broker.crt")],
                          capture_output=True, text=True, check=True).stdout
    assert "IP Address:10.0.0.5" in text and "192.168.8.2" not in text
    assert first.cafile.read_bytes() == ca  # the tables' copies of ca.crt stay good
    assert kept != (tmp_path / "certs" / "broker.crt").read_bytes()


def another_program_on(port: int) -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen()
    return s


def test_another_program_on_the_brokers_port_is_named_and_nothing_pretends_to_be_the_broker(tmp_path):
    """Seeing the port open was once taken for the broker up: Mosquitto had exited on "Address already in use" and
    the hall waited on the other program (a test failed by chance when another test's server had the port)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with another_program_on(port):
        broker = Mosquitto(tmp_path, CLUB, ROOMS, port=port)
        with pytest.raises(PortInUse, match=f"127.0.0.1:{port} is in use by another program"):
            broker.start()
        assert not broker.running


def test_a_picked_port_taken_before_the_broker_starts_moves_the_broker_and_its_clients_reach_it(tmp_path):
    broker = Mosquitto(tmp_path, CLUB, ROOMS)  # its port picked, then let go until it starts
    taken = broker.port
    with another_program_on(taken):
        broker.start()
        try:
            assert broker.port != taken and listens(broker.proc.pid, broker.port)

            async def go():
                async with client(broker, "hall") as hall:
                    await hall.publish(f"tianhei/{CLUB}/hall/rooms/1/ack", b"{}", qos=1)

            asyncio.run(go())
        finally:
            broker.stop()
