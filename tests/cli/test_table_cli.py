"""``tianhei table`` on a machine without a display, as a new user runs it (``./dev table``): the game is printed
once, in the table's language, with its seed; the log stays out of it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.voice.packs import load_voice_pack

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_display(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.chdir(tmp_path)  # no tianhei.toml here: the defaults


def table(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    assert main(["table", "--players", "8", *args]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def said(pack: str, prompt: str) -> str:
    """What the table says for ``prompt``: the voice pack's own words."""
    return load_voice_pack(pack).clip(prompt).text


def seed_of(out: str) -> int:
    m = re.search(r"--seed (\d+)", out)
    assert m, out
    return int(m.group(1))


def test_without_a_seed_each_run_takes_a_fresh_one_and_says_how_to_replay_it(capsys) -> None:
    first, _ = table(capsys)
    second, _ = table(capsys)
    assert seed_of(first) != seed_of(second) or first == second  # (one chance in a million of the same seed)
    replay, _ = table(capsys, "--seed", str(seed_of(first)))
    assert replay == first


def test_the_game_is_told_in_chinese_by_default_and_in_english_with_lang(capsys) -> None:
    zh, err = table(capsys, "--seed", "4")
    assert f"「{said('zh-CN', 'night.falls')}」" in zh and "身份：" in zh
    assert err == ""  # the log (warnings only by default) has nothing to say
    en, _ = table(capsys, "--seed", "4", "--lang", "en")
    assert f"\u201c{said('en', 'night.falls')}\u201d" in en and "Roles: " in en
    for out in (zh, en):
        assert "night.falls" not in out and "Vote(" not in out and "Pick(" not in out


def test_the_log_goes_to_stderr_at_the_level_asked(capsys) -> None:
    """The real command in its own process (logging is set up once a process)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run([sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())", "table", "--players", "8", "--seed", "4",
                          "--log-level", "info"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert " INFO " in run.stderr and " INFO " not in run.stdout
    quiet, _ = table(capsys, "--seed", "4")
    assert run.stdout == quiet


def test_the_nights_come_after_the_ending(capsys) -> None:
    out, _ = table(capsys, "--seed", "4")
    lines = out.splitlines()
    reveal = next(i for i, line in enumerate(lines) if line.startswith("—— "))
    assert "游戏结束" in lines[reveal - 1]
    assert not any("杀人 →" in line for line in lines[:reveal])


def test_a_seat_that_is_not_at_the_table_is_refused_in_one_line(capsys) -> None:
    assert main(["table", "--players", "8", "--seat", "9"]) == 2
    err = capsys.readouterr().err
    assert err == "tianhei: --seat 9: the table has seats 1 to 8\n"


def test_playing_a_seat_needs_the_window(capsys) -> None:
    assert main(["table", "--players", "8", "--seat", "3"]) == 2
    assert "--seat needs the simulator's window" in capsys.readouterr().err


def test_a_board_with_no_screen_anywhere_says_so_and_prints_the_game(capsys, monkeypatch) -> None:
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")  # what SDL falls back to on a machine with no screen
    out, err = table(capsys, "--seed", "4", "--board")
    assert err.startswith("tianhei: --board: no screen to show the public board on")
    assert f"「{said('zh-CN', 'night.falls')}」" in out


def test_a_table_of_a_clubs_room_says_its_printed_game_goes_to_no_hall(capsys, tmp_path) -> None:
    """A club sets [mqtt] room on a headless machine and runs tianhei table: the game is printed on the virtual
    clock, and the table says so rather than leave the hall waiting for it."""
    (tmp_path / "tianhei.toml").write_text('[mqtt]\nclub = "red"\nroom = "1"\npassword_file = "room-1.secret"\n')
    out, err = table(capsys, "--seed", "4")
    assert "身份：" in out
    assert "not sent to the club's hall ([mqtt] room 1)" in err and "tianhei serve --autoplay heuristic" in err


@pytest.mark.parametrize(("lang", "witch", "ending", "villager"), [
    ("zh", "「女巫请睁眼。昨晚他被杀了，你要用解药救他吗？」", "狼人胜利。", "平民"),
    ("en", "\u201cWitch, open your eyes. This player was killed tonight. Will you use your antidote to save them?\u201d",
     "The werewolves win.", "villager"),
])
def test_a_werewolf_board_plays_to_the_end_at_the_table_in_its_own_words(capsys, lang, witch, ending,
                                                                          villager) -> None:
    """W2 werewolf-12 at the table (./dev table --variant werewolf-12): its roles are called in the words of its
    file (W6 the witch's question), every step every night (W3), and it ends in its words (W14)."""
    assert main(["table", "--variant", "werewolf-12", "--seed", "7", "--lang", lang]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # no role without words, no missing prompt
    assert witch in out and villager in out
    assert ending in out or ("好人胜利。" if lang == "zh" else "The good side wins.") in out
    assert "--variant werewolf-12 --seed 7" in out  # the replay names the board
    answers = ("：狼人", "：好人") if lang == "zh" else (": Werewolf", ": Good")
    assert any(a in out for a in answers) and "killer" not in out and "杀手" not in out  # W1: the seer's answer
    nights = out.count("「天黑了" if lang == "zh" else "\u201cNight has fallen")
    seers = out.count("预言家请睁眼" if lang == "zh" else "Seer, open your eyes")
    assert nights == seers  # W3: the seer is called every night, dead or alive


def test_werewolf_9_is_played_by_nine_without_players(capsys) -> None:
    assert main(["table", "--variant", "werewolf-9", "--seed", "3"]) == 0
    assert "9人" in capsys.readouterr().out
