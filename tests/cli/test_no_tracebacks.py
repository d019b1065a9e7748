"""Every mistake a club member makes at the command line gets one line naming the problem and the fix, and an
exit status; never a Python traceback. Run through the real ``tianhei`` command, as a person would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import guard

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from controller.cli import main; sys.exit(main())"  # the `tianhei` entry point


def tianhei(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_AUDIODRIVER": "dummy", **(env or {})}
    full_env.pop("TIANHEI_TRACEBACK", None)
    return subprocess.run([sys.executable, "-c", CLI, *args], cwd=cwd or ROOT, env=full_env,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    err = result.stderr.strip()
    assert "Traceback" not in err and "Traceback" not in (result.stdout or "")
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("players", ["40", "3"])
def test_a_table_of_40_or_3_players_is_one_line(players: str, tmp_path: Path) -> None:
    result = tianhei("table", "--headless", "--players", players, cwd=tmp_path)
    line = one_line(result)
    assert result.returncode == guard.EXIT_PROBLEM
    assert line.startswith("tianhei: ") and f"players {players}" in line and "Fix:" in line


def test_saying_a_prompt_without_a_sound_card_is_one_line() -> None:
    # SDL with an audio driver that does not exist fails exactly as a Pi without a sound card does
    result = tianhei("sounds", "say", "test.sound", env={"SDL_AUDIODRIVER": "no-such-sound-card"})
    line = one_line(result)
    assert result.returncode == 2 and "no sound device" in line and "aplay -l" in line


def test_variants_into_a_reader_that_stops_early_ends_quietly() -> None:
    """`tianhei variants | head`: the reader goes away before the listing is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = tianhei("variants", stdout=write_end)
    finally:
        os.close(write_end)
    assert result.stderr == ""
    assert result.returncode == guard.EXIT_BROKEN_PIPE


@pytest.mark.parametrize(("encoding", "said"), [("utf-8-sig", "byte-order mark"), ("utf-16", "UTF-16"),
                                                ("utf-16-le", "UTF-16")])
def test_a_config_saved_by_windows_notepad_is_named_with_the_fix(tmp_path: Path, encoding: str, said: str) -> None:
    (tmp_path / "tianhei.toml").write_bytes('[table]\nhardware = "sim"\n'.encode(encoding))
    for command in (["config", "check"], ["table", "--headless"]):
        result = tianhei(*command, cwd=tmp_path)
        assert result.returncode in (1, 2)
        assert "Traceback" not in result.stderr
        assert said in result.stderr and "save it as UTF-8 without a BOM" in result.stderr


def test_config_check_without_a_config_file_does_not_say_ok(tmp_path: Path) -> None:
    result = tianhei("config", "check", cwd=tmp_path)
    line = one_line(result)
    assert result.returncode == 1
    assert "OK" not in result.stdout and "no such file" in line and "tianhei.example.toml" in line


def test_the_deck_the_example_config_names_ships_with_tianhei(tmp_path: Path) -> None:
    text = (ROOT / "tianhei.example.toml").read_text(encoding="utf-8")
    deck_lines = [line for line in text.splitlines() if line.startswith("# deck = ")]
    assert deck_lines, "the example config shows how to name a deck"
    config = ROOT / "tianhei-deck-example.toml"  # beside decks/, where the table looks for them
    config.write_text(text.replace(deck_lines[0], deck_lines[0][2:]), encoding="utf-8")
    try:
        result = tianhei("config", "check", config.name)
    finally:
        config.unlink()
    assert result.returncode == 0, result.stderr
    assert "OK" in result.stdout


def test_a_bug_says_it_is_one_and_where_its_log_is(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    monkeypatch.delenv("TIANHEI_TRACEBACK", raising=False)

    def broken() -> int:
        return {"seat": 1}["sear"]

    assert guard.guarded(broken, ["table"]) == guard.EXIT_BUG
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "internal error KeyError" in err and "This is a bug in Tianhei" in err and "report it" in err
    logs = list((tmp_path / "tianhei").glob("tianhei-crash-*.log"))
    assert len(logs) == 1 and oct(logs[0].stat().st_mode & 0o777) == "0o600"
    assert "Traceback" in logs[0].read_text() and "broken" in logs[0].read_text() and str(logs[0]) in err
    monkeypatch.setenv("TIANHEI_TRACEBACK", "1")  # a developer asks for the traceback itself
    with pytest.raises(KeyError):
        guard.guarded(broken, ["table"])


def test_our_own_errors_are_one_line_and_an_os_error_names_its_file(capsys: pytest.CaptureFixture[str]) -> None:
    from controller.rules.variant import VariantError

    def bad_variant() -> int:
        raise VariantError("standard-9", "", "no such variant", "see tianhei variants")

    def no_port() -> int:
        raise FileNotFoundError(2, "No such file or directory", "/dev/ttyUSB0")

    assert guard.guarded(bad_variant, []) == guard.EXIT_PROBLEM
    assert guard.guarded(no_port, []) == guard.EXIT_PROBLEM
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "tianhei: standard-9: no such variant. Fix: see tianhei variants"
    assert err[1].startswith("tianhei: No such file or directory: /dev/ttyUSB0")


def test_every_error_type_the_guard_knows_exists() -> None:
    """The guard names our error types as text (so `--help` imports nothing); a renamed class must not slip by."""
    import importlib

    for name in guard.USER_ERRORS:
        module, _, cls = name.rpartition(".")
        found = getattr(importlib.import_module(module), cls)
        assert isinstance(found, type) and issubclass(found, Exception), name
        assert f"{found.__module__}.{found.__qualname__}" == name
