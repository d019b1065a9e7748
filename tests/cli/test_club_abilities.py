"""A club's own ability module, from the club's side (docs/architecture.md, "Add a role"): the club writes
``my_abilities.py`` (registering the 守墓人 gravekeeper's ability of tests/rules/roles/gravekeeper.py) and a variant
file that uses it, and names the module in its settings file's ``[game] abilities``; the table, the simulator, the
balance lab and the resume path import it. The commands run as processes of their own: a registered ability
stays registered for the life of a process (and other tests read the gravekeeper's file as an unknown ability).
A module that cannot be used is one line naming its file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

ROOT = Path(__file__).parents[2]
RUN = "import sys\nfrom controller.cli import main\nsys.exit(main(sys.argv[1:]))\n"
BOARD = ROOT / "tests" / "rules" / "roles" / "gravekeeper-2.0.toml"
#: What the club adds to the board for the table's voice and screens (the simulator needs none of it).
WORDS = """
[words.roles]
gravekeeper = ["守墓人", "Gravekeeper"]
[words.actions]
read_grave = ["验尸", "Read the grave"]
[words.calls]
"gravekeeper.wake" = ["守墓人请睁眼。", "Gravekeeper, open your eyes."]
"gravekeeper.read_grave" = ["这是昨天被投出的玩家。", "This is the player voted out yesterday."]
"gravekeeper.sleep" = ["守墓人请闭眼。", "Gravekeeper, close your eyes."]
"""


@pytest.fixture
def club(tmp_path: Path) -> Path:
    """The club's folder: its settings file, its ability module and its variant file."""
    (tmp_path / "my_abilities.py").write_text(
        '"""Our club\'s 守墓人."""\nfrom tests.rules.roles.gravekeeper import install\n\ninstall()\n', "utf-8")
    (tmp_path / "gravekeeper.toml").write_text(BOARD.read_text("utf-8") + WORDS, "utf-8")
    (tmp_path / "tianhei.toml").write_text('[game]\nabilities = ["my_abilities.py"]\n', "utf-8")
    return tmp_path


def tianhei(club: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``tianhei ARGS`` in the club's folder, headless (no display: the game is printed)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)  # my_abilities.py borrows the test-local gravekeeper
    return subprocess.run([sys.executable, "-c", RUN, *args], cwd=club, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_table_plays_a_game_with_the_clubs_gravekeeper_to_the_end(club: Path) -> None:
    done = tianhei(club, "table", "--variant", "gravekeeper.toml", "--seed", "2", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "Gravekeeper (seat 6): read the grave -> seat" in done.stdout
    assert "minutes of table time. Replay: tianhei table --variant gravekeeper.toml --seed 2" in done.stdout


def test_the_simulator_plays_it_with_the_settings_file_named(club: Path) -> None:
    done = tianhei(club, "simulate", "--config", "tianhei.toml", "--variant", "gravekeeper.toml", "--players", "12",
                   "--games", "30", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["games"] == 30 and out["composition"]["gravekeeper"] == 1


def test_the_balance_labs_workers_import_it_too(club: Path) -> None:
    done = tianhei(club, "balance", "--variant", "gravekeeper.toml", "--players", "12", "--games", "200",
                   "--jobs", "2", "--out", "lab", "--no-progress")
    assert done.returncode == 0, done.stderr
    report = json.loads((club / "lab" / "report.json").read_text("utf-8"))
    assert sum(s["wins"] for s in report["rows"][0]["sides"].values()) == 200


def test_a_game_cut_off_resumes_with_the_module_the_settings_name_and_ends_as_if_never_cut(club: Path) -> None:
    game = ("run", "--config", "tianhei.toml", "--variant", "gravekeeper.toml", "--players", "12", "--seed", "1",
            "--json")
    whole = tianhei(club, *game, "--journal", "whole.sqlite")
    cut = tianhei(club, *game, "--journal", "cut.sqlite", "--stop-after", "150")
    assert whole.returncode == 0 and cut.returncode == 0, whole.stderr + cut.stderr
    assert json.loads(cut.stdout)["finished"] is False
    resumed = tianhei(club, *game, "--journal", "cut.sqlite")
    assert resumed.returncode == 0, resumed.stderr
    ended, uncut = json.loads(resumed.stdout), json.loads(whole.stdout)
    assert ended["finished"] and {k: ended[k] for k in ("winner", "days", "events", "roles")} == {
        k: uncut[k] for k in ("winner", "days", "events", "roles")}
    assert "gravekeeper" in ended["roles"].values()


@pytest.mark.parametrize(("module", "said"), [
    (None, "no such ability module"),
    ('raise RuntimeError("a comma is missing")\n', "raised RuntimeError while being imported: a comma is missing"),
    ('from controller.rules.ability import Ability, register\nregister(Ability("kill", ("C6",)))\n',
     "ability 'kill' is registered twice"),
])
@pytest.mark.parametrize("command", ["simulate", "table"])
def test_a_module_that_cannot_be_used_is_one_line_naming_its_file(
        club: Path, capsys: pytest.CaptureFixture[str], module: str | None, said: str, command: str) -> None:
    """In this process: none of these registers anything."""
    if module is not None:
        (club / "ours.py").write_text(module, "utf-8")
    settings = club / "broken.toml"
    settings.write_text('[game]\nabilities = ["ours.py"]\n', "utf-8")
    args = {"simulate": ["simulate", "--players", "12", "--games", "1"], "table": ["table", "--seed", "1"]}[command]
    assert main([*args, "--config", str(settings), "--variant", str(club / "gravekeeper.toml")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(club / "ours.py") in err and said in err


def test_the_settings_file_says_where_a_wrong_abilities_value_is(tmp_path: Path) -> None:
    from controller.config import ConfigError, load

    settings = tmp_path / "tianhei.toml"
    settings.write_text('[game]\nabilities = "my_abilities.py"\n', "utf-8")
    with pytest.raises(ConfigError) as caught:
        load(settings, find_pack=None)
    (problem,) = caught.value.problems
    assert problem.key == "game.abilities" and "is not a list of Python files" in problem.message
    assert 'abilities = ["my_abilities.py"]' in problem.fix


def test_the_club_lists_its_file_and_checks_its_lines_with_the_settings_file_named(club: Path) -> None:
    """``tianhei variants`` and ``sounds check --variant`` read the club's file only once its module is in."""
    shown = tianhei(club, "variants", "gravekeeper.toml", "--config", "tianhei.toml")
    assert shown.returncode == 0, shown.stderr
    assert "gravekeeper" in shown.stdout
    checked = tianhei(club, "sounds", "check", "en", "--variant", "gravekeeper.toml", "--config", "tianhei.toml")
    assert "Traceback" not in checked.stderr and "line(s) without a recording" in checked.stdout
    assert "gravekeeper.wake" in checked.stdout
