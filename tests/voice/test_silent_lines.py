"""A table without espeak-ng says a club's unrecorded lines as silence: the judge is told before the game, in one
line naming the lines and the fix, at the table's start, on the remote and the phone console, and by `tianhei
config check`. espeak-ng is made unavailable by the lookup the table uses (controller/voice/silent_lines.py's
``find_program``), not uninstalled."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.rules.variant import load_variant
from controller.voice import silent_lines, variant_lines
from controller.voice.silent_lines import table_notice
from tests.voice.test_variant_lines import REWORDED


@pytest.fixture
def no_espeak(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """This machine as one without espeak-ng, and nothing synthesised before (an empty cache)."""
    monkeypatch.setattr(silent_lines, "find_program", lambda name: None)
    monkeypatch.setenv("TIANHEI_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def our_night(tmp_path: Path) -> str:
    """The club's own copy of werewolf-9 in its own words for the werewolves' and the witch's calls."""
    board = Path(variant_lines.__file__).resolve().parents[2] / load_variant("werewolf-9").source
    text = board.read_text(encoding="utf-8")
    for old, new in REWORDED.items():
        text = text.replace(old, new)
    own = tmp_path / "our-night.toml"
    own.write_text(text, encoding="utf-8")
    return str(own)


def test_a_table_without_espeak_names_the_clubs_lines_it_would_say_as_silence(no_espeak: None,
                                                                             our_night: str) -> None:
    silent = table_notice("en", our_night, every_variant=False)
    # the two calls it rewords, and its endings (under its own id, which no pack has)
    ending = ["ending.our_night.good", "ending.our_night.killers"]
    assert silent is not None and silent.by_variant == {"our-night": [*ending, "role.witch.antidote",
                                                                      "role.witch.wake"]}
    line = silent.line()
    assert "\n" not in line and line.startswith("no espeak-ng here: 4 line(s) of our-night")
    assert "apt-get install espeak-ng" in line and "tianhei sounds build en" in line
    zh = table_notice("zh-CN", our_night, every_variant=False)
    assert zh is not None and zh.by_variant == {"our-night": [*ending, "role.werewolf.wake", "role.witch.antidote"]}


def test_a_line_synthesised_before_plays_without_espeak_and_is_not_counted(no_espeak: None, our_night: str) -> None:
    words = "Witch, please open your eyes."
    cached = variant_lines.cache_path(words, "en")
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"RIFF")
    silent = table_notice("en", our_night, every_variant=False)
    assert silent is not None and "role.witch.wake" not in silent.by_variant["our-night"]
    assert "role.witch.antidote" in silent.by_variant["our-night"]


def test_with_espeak_or_with_every_line_recorded_nothing_is_said(our_night: str, no_espeak: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the built-in boards, every one the judge may choose at check-in: the packs have all their lines
    assert table_notice("zh-CN", "werewolf-12", every_variant=True) is None
    monkeypatch.setattr(silent_lines, "find_program", lambda name: "/usr/bin/" + name)
    assert table_notice("en", our_night, every_variant=False) is None


def test_config_check_says_which_lines_will_be_silent(no_espeak: None, our_night: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[game]\nvariant = "{our_night}"\nplayers = 9\n[voice]\npack = "en"\n', encoding="utf-8")
    main(["config", "check", str(cfg)])
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if "no espeak-ng" in x]
    assert "4 line(s) of our-night" in line and "tianhei sounds build en" in line


def test_the_judges_console_says_it_at_check_in(no_espeak: None, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the first game: the remote's lines, which the phone console shows, say the lines will be silent.
    (The pack's gap is stood in for here; the tests above find a real one.)"""
    from controller.web.views import judge_view
    from tests.web.live import LiveTable

    monkeypatch.setattr(silent_lines, "unrecorded", lambda pack, files=(): {"werewolf-12": ["role.witch.antidote"]})
    with LiveTable(tmp_path, checkin=True, tls=False) as t:
        t.wait_for(lambda: t.console.lobby is not None, 20, "the lobby never opened")
        view = t.on_loop(lambda: judge_view(None, "en", lobby=t.console.lobby))
        remote = t.on_loop(lambda: [str(line) for line in t.console.lobby.remote_lines])
    assert any("No espeak-ng: 1 line(s) of werewolf-12 silent" in line for line in view["lines"]), view["lines"]
    assert any("espeak" in line for line in remote)
