"""Who speaks and under what terms: every pack's licence record, printed by ``sounds check``, shown by
``config check``, refused by ``[voice] commercial = true`` when not free for every use, and said once when the
table starts."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli import sounds as sounds_cli
from controller.config import ConfigError, load
from controller.live import voice_terms_notice
from controller.voice.licence import VOICE_LICENCES, start_notice
from controller.voice.packs import SOURCE_PACKS, Pack, PackError, load_voice_pack

from .conftest import ZH, MakePack


def sounds(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tianhei")
    sounds_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sounds", *argv])
    return int(args.func(args))


def test_the_neural_zh_pack_says_it_is_for_non_commercial_use_only() -> None:
    licence = Pack.load(SOURCE_PACKS / "zh-CN").licence
    assert licence == VOICE_LICENCES["neural"]
    assert not licence.free
    assert "BZNSYP" in licence.data and "non-commercial" in licence.data


def test_the_espeak_en_pack_is_free_for_every_use() -> None:
    licence = Pack.load(SOURCE_PACKS / "en").licence
    assert licence == VOICE_LICENCES["espeak"] and licence.free


@pytest.mark.usefixtures("mixer")
def test_sounds_check_prints_each_packs_record(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("controller.voice.check.measures_true_peak", lambda: False)  # (test_sounds_check does)
    assert sounds("check", "zh-CN", "en") == 0
    out = capsys.readouterr().out
    assert "zh-CN: licence use:     non-commercial use only" in out
    assert "en: licence use:     free for every use" in out


@pytest.mark.usefixtures("mixer")
def test_a_club_pack_without_a_record_is_said_to_have_none(make_pack: MakePack,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg"})
    sounds("check", str(club))
    assert "licence: no record in its manifest" in capsys.readouterr().out


def test_a_record_with_an_unknown_use_is_refused_by_name(make_pack: MakePack) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg"})
    manifest = club / "manifest.toml"
    manifest.write_text(manifest.read_text() + '\n[licence]\nvoice = "our judge"\nuse = "maybe"\n', encoding="utf-8")
    with pytest.raises(PackError, match=r"use = 'maybe' is not one of: any, non-commercial"):
        Pack.load(club)


def club_recording(make_pack: MakePack) -> Path:
    """A club that recorded two prompts so far, its record written as the build writes it."""
    club = make_pack({"night.falls": ZH / "night.falls.ogg", "dawn.breaks": ZH / "dawn.breaks.ogg"})
    manifest = club / "manifest.toml"
    manifest.write_text(manifest.read_text() + '\n[licence]\nvoice = "our judge"\nuse = "any"\n', encoding="utf-8")
    return club


def test_a_half_recorded_pack_names_the_neural_voice_that_says_the_rest(make_pack: MakePack) -> None:
    club = club_recording(make_pack)
    terms = load_voice_pack(club).terms()
    assert terms[0] == ("club", Pack.load(club).licence, 2)
    assert terms[1][0] == "zh-CN" and terms[1][2] == len(Pack.load(SOURCE_PACKS / "zh-CN").clips) - 2
    notice = start_notice(terms)
    assert notice is not None and "pack zh-CN" in notice and "non-commercial use only" in notice
    assert "our judge" not in notice  # the club's own voice is free: only what is not is named


def test_the_table_says_nothing_of_a_free_voice_and_names_a_restricted_one() -> None:
    assert voice_terms_notice("en") is None
    notice = voice_terms_notice("zh-CN")
    assert notice is not None and notice.startswith("the voice is not free for every use: pack zh-CN")


def config(tmp_path: Path, voice: str) -> Path:
    path = tmp_path / "tianhei.toml"
    path.write_text(f"[voice]\n{voice}\n", encoding="utf-8")
    return path


def test_a_club_that_charges_cannot_play_the_neural_voice(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(config(tmp_path, 'pack = "zh-CN"\ncommercial = true'), validate_game=None)
    (problem,) = caught.value.problems
    assert problem.key == "voice.commercial" and "non-commercial use only" in str(problem)
    assert "--voice espeak" in str(problem)


def test_a_club_that_charges_may_play_espeak(tmp_path: Path) -> None:
    assert load(config(tmp_path, 'pack = "en"\ncommercial = true'), validate_game=None).voice.commercial


def test_commercial_must_be_true_or_false(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="'yes' is not true or false"):
        load(config(tmp_path, 'commercial = "yes"'), validate_game=None)


def test_config_check_shows_the_voice_and_its_terms(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "check", str(config(tmp_path, 'pack = "zh-CN"'))]) == 0
    out = capsys.readouterr().out
    assert "voice: not free for every use ([voice] commercial = true if the club charges" in out
    assert "pack zh-CN (" in out


@pytest.mark.parametrize(("pack", "said"), [("zh-CN", True), ("en", False)])
def test_tianhei_table_says_once_at_start_whose_terms_its_voice_speaks_under(tmp_path: Path, pack: str,
                                                                           said: bool) -> None:
    """A table that speaks aloud (here with the judge's console; its port is taken, so it stops right after)."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        cfg = tmp_path / "tianhei.toml"
        cfg.write_text(f'[voice]\npack = "{pack}"\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                       f'[console]\nhost = "127.0.0.1"\nport = {taken.getsockname()[1]}\ntls = false\n',
                       encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "controller.cli", "table", "--config", str(cfg), "--console"],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "SDL_AUDIODRIVER": "dummy", "SDL_VIDEODRIVER": "dummy"})
    notices = [line for line in done.stderr.splitlines() if "not free for every use" in line]
    assert len(notices) == int(said), done.stderr
    if said:
        assert "pack zh-CN" in notices[0] and "non-commercial use only" in notices[0]
