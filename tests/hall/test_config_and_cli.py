"""[mqtt] and [hall] in tianhei.toml, and the commands a club runs: ``tianhei hall broker-files`` to set up the
broker, ``tianhei hall`` with a password that is not there, ``tianhei club-demo`` for an evening."""

from __future__ import annotations

from pathlib import Path

from controller.cli import main
from controller.hall.app import broker_address
from tests.config.test_settings import load, problems, write

CLUB_TOML = """
[mqtt]
host = "192.168.8.2"
club = "redclub"
room = "3"
password_file = "secrets/room-3.secret"
[hall]
rooms = [{ id = "1", seats = 16 }, { id = "2", kind = "entry", seats = 12 }, { id = "3" }]
languages = ["zh-CN", "en"]
auto_send = true
"""


def test_a_clubs_config_names_its_broker_its_room_and_its_rooms(tmp_path, monkeypatch):
    (tmp_path / "ca.crt").write_text("the club's CA\n")
    toml = CLUB_TOML.replace("[hall]", f'cafile = "{tmp_path / "ca.crt"}"\n[hall]')
    config = load(write(tmp_path, toml + 'http_names = ["hall.redclub.lan"]\n'))
    assert config.hall.http_names == ("hall.redclub.lan",)
    assert config.mqtt.club == "redclub" and config.mqtt.room == "3" and config.mqtt.port == 1883
    assert [r["id"] for r in config.hall.rooms] == ["1", "2", "3"] and config.hall.languages == ("zh-CN", "en")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "room-3.secret").write_text("s3cret\n")
    monkeypatch.chdir(tmp_path)
    address = broker_address(config, "room-3")
    assert (address.host, address.username, address.password) == ("192.168.8.2", "room-3", "s3cret")
    assert (address.port, address.cafile) == (8883, str(tmp_path / "ca.crt"))  # another machine: TLS


def test_every_club_mistake_is_named_with_its_key_and_fix(tmp_path):
    found = problems(write(tmp_path, """
[mqtt]
club = "Red Club"
port = 99999
[hall]
rooms = [{ id = "hall" }, { id = "2", kind = "vip" }, { id = "4", seats = 40 }, "5"]
languages = ["fr"]
auto_send = "yes"
http_names = "hall.lan"
[console]
names = ["tianhei.local", "two words"]
"""))
    text = "\n".join(found)
    for key in ("mqtt.club", "mqtt.port", "hall.rooms[0].id", "hall.rooms[1].kind", "hall.rooms[2].seats",
                "hall.rooms[3]", "hall.languages", "hall.auto_send", "hall.http_names", "console.names"):
        assert key in text, f"{key} not reported:\n{text}"


def test_broker_files_writes_the_config_the_acl_and_a_password_per_table(tmp_path, capsys):
    cfg = write(tmp_path, CLUB_TOML)
    assert main(["hall", "broker-files", "--config", str(cfg), "--out", str(tmp_path / "mq"),
                 "--bind", "192.168.8.2"]) == 0
    conf = (tmp_path / "mq" / "mosquitto.conf").read_text()
    assert "listener 1883 127.0.0.1" in conf and "listener 8883 192.168.8.2" in conf  # the Wi-Fi: TLS
    assert sorted(p.name for p in (tmp_path / "mq" / "secrets").iterdir()) == [
        "hall.secret", "room-1.secret", "room-2.secret", "room-3.secret"]
    out = capsys.readouterr().out
    assert "wrote" in out and f"copy {tmp_path / 'mq' / 'certs' / 'ca.crt'} to each table" in out
    assert main(["hall", "broker-files", "--config", str(cfg), "--out", str(tmp_path / "plain"),
                 "--bind", "192.168.8.2", "--no-tls"]) == 0
    assert "listener 1883 192.168.8.2" in (tmp_path / "plain" / "mosquitto.conf").read_text()
    assert "passwords cross the club's network in clear" in capsys.readouterr().err


def test_the_hall_without_its_password_file_says_which_file_and_what_to_do(tmp_path, capsys):
    cfg = write(tmp_path, '[mqtt]\npassword_file = "nowhere/hall.secret"\n')
    assert main(["hall", "--config", str(cfg), "--no-web"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nowhere/hall.secret" in err and "install-broker.sh" in err


def test_club_demo_refuses_nonsense_arguments_in_one_line(capsys):
    assert main(["club-demo", "--games", "0"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_an_evening_at_the_club_demo_every_result_announcement_and_standing_right(tmp_path, capsys):
    code = main(["club-demo", "--games", "2", "--speed", "120", "--no-web", "--silent", "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "broker killed (kill -9)" in out and out.count("broker back") == 2
    assert "OK: every result, announcement and standing is right; nothing lost or doubled" in out
    assert Path(tmp_path / "hall.sqlite").is_file()
