"""``tianhei config check``: nothing started, every problem printed, non-zero exit on any."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main


def test_a_good_config_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tianhei.toml"
    path.write_text('[table]\nhardware = "compact-8"\n[game]\nplayers = 8\n', encoding="utf-8")
    assert main(["config", "check", str(path)]) == 0
    assert "OK" in capsys.readouterr().out


def test_a_bad_config_fails_with_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tianhei.toml"
    path.write_text('[game]\nplayres = 12\n[voice]\npack = "klingon"\n', encoding="utf-8")
    assert main(["config", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "2 problems; nothing was started" in err
    assert "did you mean 'players'?" in err and "voice.pack" in err


def test_profiles_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "profiles"]) == 0
    out = capsys.readouterr().out
    assert "compact-8" in out and "bus-16" in out


def test_a_table_of_a_clubs_room_is_said_with_its_broker_and_a_missing_password_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "room-3.secret").write_text("s3cret\n")
    (tmp_path / "ca.crt").write_text("the club's CA\n")
    path = tmp_path / "tianhei.toml"
    path.write_text(f'[mqtt]\nhost = "192.168.8.2"\nclub = "redclub"\nroom = "3"\n'
                    f'password_file = "{tmp_path / "room-3.secret"}"\ncafile = "{tmp_path / "ca.crt"}"\n',
                    encoding="utf-8")
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert ("this table is room 3 of club 'redclub', sending its games to the broker at 192.168.8.2:8883 over TLS "
            f"(checked with {tmp_path / 'ca.crt'})") in out
    assert "no such file" not in out
    path.write_text('[mqtt]\nclub = "redclub"\nroom = "3"\npassword_file = "nowhere/room-3.secret"\n'
                    '[hall]\nrooms = [{ id = "3", seats = 12 }]\n', encoding="utf-8")
    assert main(["config", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "nowhere/room-3.secret (no such file here: copy it from the broker's machine" in out
    assert "hall (tianhei hall): club 'redclub', rooms 3, page http://127.0.0.1:8088/" in out


def test_a_table_whose_broker_is_another_machine_needs_the_clubs_ca_and_config_check_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tianhei.toml"
    path.write_text('[mqtt]\nhost = "192.168.8.2"\nclub = "redclub"\nroom = "3"\n', encoding="utf-8")
    assert main(["config", "check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "mqtt.cafile" in err and "reached over TLS" in err and "tianhei hall broker-files" in err
    path.write_text('[mqtt]\nhost = "192.168.8.2"\nroom = "3"\ncafile = "nowhere/ca.crt"\n', encoding="utf-8")
    assert main(["config", "check", str(path)]) == 1
    assert "nowhere/ca.crt: no such file" in capsys.readouterr().err
    path.write_text('[mqtt]\nhost = "192.168.8.2"\nroom = "3"\ntls = false\n', encoding="utf-8")
    assert main(["config", "check", str(path)]) == 0  # the club chose passwords in clear: plain MQTT on 1883
    assert "sending its games to the broker at 192.168.8.2:1883," in capsys.readouterr().out
