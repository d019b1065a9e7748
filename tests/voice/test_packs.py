"""Finding packs, and a club pack falling back to the default pack."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.voice.packs import SOURCE_PACKS, Pack, PackError, find_pack, load_voice_pack, ogg_duration

from .conftest import ZH, MakePack


def test_committed_packs_are_found_by_name_from_the_checkout() -> None:
    assert find_pack("zh-CN") == SOURCE_PACKS / "zh-CN"
    assert find_pack("en") == SOURCE_PACKS / "en"


def test_a_pack_is_found_by_path(make_pack: MakePack) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg"})
    assert find_pack(str(club)) == club


def test_tianhei_sounds_adds_folders_to_search(make_pack: MakePack, monkeypatch: pytest.MonkeyPatch) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg"})
    monkeypatch.setenv("TIANHEI_SOUNDS", str(club.parent))
    assert find_pack(club.name) == club


def test_a_missing_pack_says_where_it_looked() -> None:
    with pytest.raises(PackError, match=r"voice pack 'klingon' not found .*sounds/packs/klingon"):
        find_pack("klingon")


def test_club_pack_missing_a_prompt_falls_back_with_one_warning(make_pack: MakePack,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg", "dawn.breaks": None})
    with caplog.at_level(logging.WARNING):
        pack = load_voice_pack(club)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "lacks" in warnings[0].getMessage() and "dawn.breaks" in warnings[0].getMessage()
    assert pack.clip("night.falls").path == club / "night.falls.ogg"  # its own recording
    assert pack.clip("dawn.breaks").path == ZH / "dawn.breaks.ogg"  # listed but absent: borrowed
    assert pack.clip("seat.9").path == ZH / "seat.9.ogg"  # not listed: borrowed
    caplog.clear()
    pack.clip("seat.9")
    assert not caplog.records  # playing a borrowed prompt logs nothing more


def test_a_club_manifest_without_durations_reads_them_from_the_files(make_pack: MakePack) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg"})
    assert Pack.load(club).clips["night.falls"].duration == pytest.approx(ogg_duration(ZH / "night.falls.ogg"))


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("[prompts", "not valid TOML"),
        ('[prompts."night.falls"]\ntext = "x"\n', r'\[prompts."night.falls"\] needs file'),
        ('[prompts."night.falls"]\nfile = "a.ogg"\nduration = -1\n', "duration must be seconds >= 0"),
    ],
)
def test_a_broken_manifest_names_the_file_and_key(tmp_path: Path, manifest: str, message: str) -> None:
    (tmp_path / "manifest.toml").write_text(manifest)
    with pytest.raises(PackError, match=message) as err:
        Pack.load(tmp_path)
    assert str(tmp_path / "manifest.toml") in str(err.value)


def test_ogg_duration_refuses_a_file_that_is_not_ogg(tmp_path: Path) -> None:
    bad = tmp_path / "x.ogg"
    bad.write_bytes(b"RIFF....WAVE")
    with pytest.raises(ValueError, match="not an OGG file"):
        ogg_duration(bad)
