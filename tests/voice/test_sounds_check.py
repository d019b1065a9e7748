"""``tianhei sounds check``: the committed packs pass; broken club packs are caught."""

from __future__ import annotations

import argparse

import pytest

from controller.cli import sounds as cli
from controller.voice.check import check_pack
from controller.voice.packs import Pack, find_pack

from .conftest import DATA, ZH, MakePack

pytestmark = pytest.mark.usefixtures("mixer")


def run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="tianhei")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sounds", *argv])
    return int(args.func(args))


def test_the_committed_packs_pass(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("check", "zh-CN", "en") == 0
    verdicts = [line for line in capsys.readouterr().out.splitlines()
                if ": licence " not in line and ": variant " not in line]
    assert verdicts == ["zh-CN: OK", "en: OK"]


def test_the_built_in_boards_lines_are_all_recorded(capsys: pytest.CaptureFixture[str]) -> None:
    """The W boards' lines live in their files, and the committed packs were rebuilt with them: the check has no
    variant line to name."""
    assert run("check", "zh-CN", "en") == 0
    assert [line for line in capsys.readouterr().out.splitlines() if ": variant " in line] == []


def test_the_check_lists_a_clubs_variant_file_lines_the_pack_has_not_recorded(
        tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """A club's copy of werewolf-9 with its own id (so its own endings) and its own words for the witch's
    question: until the pack is rebuilt with them the fallback voice says them, and the check names them
    without failing the pack."""
    from controller.rules.variant import load_variant

    board = load_variant("werewolf-9").source
    text = (find_pack("en").parents[2] / board).read_text(encoding="utf-8")
    own = tmp_path / "our-werewolf.toml"
    own.write_text(text.replace('id = "werewolf-9"', 'id = "our-werewolf"').replace(
        "Will you use your antidote to save them?", "Will you use your antidote on them?"), encoding="utf-8")
    assert run("check", "en", "--variant", str(own)) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if ": variant " in line]
    assert len(listed) == 1 and listed[0].startswith("en: variant our-werewolf: 3 line(s)"), listed
    for prompt_id in ("ending.our_werewolf.good", "ending.our_werewolf.killers", "role.witch.antidote"):
        assert prompt_id in listed[0]


def test_a_club_pack_with_every_kind_of_fault(make_pack: MakePack, capsys: pytest.CaptureFixture[str]) -> None:
    club = make_pack({
        "night.falls": ZH / "night.falls.ogg",  # fine
        "dawn.breaks": DATA / "silent.ogg",  # the recorder was muted
        "vote.begins": ZH / "sfx.mask.ogg",  # twelve seconds: a recording left running
        "time.up": b"\x00\x01 not audio",  # unreadable
        "game.paused": None,  # listed, file absent
    })
    required = {"night.falls", "dawn.breaks", "vote.begins", "time.up", "game.paused", "game.resumed"}
    found = {(p.prompt_id, p.kind) for p in check_pack(club, required)}
    assert found == {
        ("dawn.breaks", "silent"),
        ("vote.begins", "overlong"),
        ("time.up", "unreadable"),
        ("game.paused", "missing"),
        ("game.resumed", "missing"),
    }
    assert run("check", str(club)) == 1
    out = capsys.readouterr().out
    assert "silent     dawn.breaks" in out and "problem(s)" in out


def test_a_manifest_duration_that_is_wrong_is_reported(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "manifest.toml").write_text('[prompts."night.falls"]\nfile = "n.ogg"\nduration = 9.0\n')
    (tmp_path / "n.ogg").write_bytes((ZH / "night.falls.ogg").read_bytes())
    [problem] = check_pack(tmp_path, {"night.falls"})
    assert problem.kind == "duration" and "manifest says 9.000 s" in problem.detail


def test_a_pack_that_does_not_exist_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("check", "no-such-pack") == 1
    assert "not found" in capsys.readouterr().out


def test_sounds_say_plays_the_test_prompt_until_it_is_said(clock, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    parser = argparse.ArgumentParser(prog="tianhei")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sounds", "say", "--pack", "en"])
    start = clock.now
    assert cli.run_say(args, clock=clock, sleep=clock.advance) == 0
    assert "saying test.sound" in capsys.readouterr().out
    assert clock.now - start >= Pack.load(find_pack("en")).clips["test.sound"].duration


def test_a_clip_whose_true_peak_passes_minus_one_dbtp_after_encoding_is_reported(make_pack: MakePack) -> None:
    club = make_pack({"night.falls": ZH / "night.falls.ogg", "dawn.breaks": DATA / "hot.ogg"})
    found = {(p.prompt_id, p.kind): p.detail for p in check_pack(club, {"night.falls", "dawn.breaks"})}
    assert list(found) == [("dawn.breaks", "peak")]
    assert "dBTP after encoding" in found["dawn.breaks", "peak"]
