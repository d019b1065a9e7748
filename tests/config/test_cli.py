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
