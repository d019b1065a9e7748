"""A seat-bus table with the judge's remote needs the remote's pairing key: `config check` says so and how to make
it, `tianhei remote pair` makes it, and then the check passes."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from controller.cli import main

BUS_TABLE = '[table]\nhardware = "bus-16"\n[remote]\nkey_file = "state/remote.key"\n'


@pytest.fixture
def club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tianhei.toml").write_text(BUS_TABLE, encoding="utf-8")
    return tmp_path


def test_a_bus_table_without_a_paired_remote_is_refused_with_the_fix(club: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check"]) == 1
    err = capsys.readouterr().err
    assert "no pairing key at state/remote.key" in err and "tianhei remote pair" in err


def test_pairing_then_the_check_passes_and_the_remote_gets_its_config(club: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["remote", "pair", "--remote-config", "remote-config.json"]) == 0
    key_file = club / "state" / "remote.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    cfg = json.loads((club / "remote-config.json").read_text())
    assert cfg["key"] == key_file.read_text().strip() and cfg["address"] == 17 and cfg["role"] == "remote"
    assert main(["config", "check"]) == 0
    assert "OK" in capsys.readouterr().out
    # pairing again keeps the key; --new replaces it
    assert main(["remote", "pair", "--show"]) == 0
    out = capsys.readouterr().out
    assert "is kept" in out and cfg["key"] in out
    assert main(["remote", "pair", "--new"]) == 0
    assert key_file.read_text().strip() != cfg["key"]


def test_a_table_without_a_judge_needs_no_key(club: Path) -> None:
    (club / "tianhei.toml").write_text(BUS_TABLE.replace("[table]\n", '[table]\njudge = "none"\n'), encoding="utf-8")
    assert main(["config", "check"]) == 0


def test_a_key_file_others_may_read_stops_pairing_with_one_line(club: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["remote", "pair"]) == 0
    (club / "state" / "remote.key").chmod(0o644)
    capsys.readouterr()
    assert main(["remote", "pair", "--show"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("tianhei: ") and "chmod 600" in err
