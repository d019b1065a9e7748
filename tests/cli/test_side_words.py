"""Side IDs (``good``, ``killers``: controller/rules/variant.SIDES) are what journals, results and the club's
records hold; wherever a person reads a side, the variant's own ``[words.sides]`` name it (W1: after a werewolf
board the werewolves won, not "killers")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main


@pytest.mark.parametrize(("lang", "said"), [("en", "winner: Werewolves after"), ("zh", "狼人获胜")])
def test_a_werewolf_game_run_from_the_cli_says_the_werewolves_won(
        capsys: pytest.CaptureFixture[str], lang: str, said: str) -> None:
    assert main(["run", "--variant", "werewolf-12", "--players", "12", "--seed", "2", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert said in out and "killers" not in out


def test_the_json_of_the_same_game_keeps_the_side_id_for_scripts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--variant", "werewolf-12", "--players", "12", "--seed", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["winner"] == "killers"


def test_the_balance_report_of_a_werewolf_board_names_the_werewolves(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lab"
    assert main(["balance", "--variant", "werewolf-12", "--players", "12", "--policy", "heuristic", "--games", "20",
                 "--jobs", "1", "--out", str(out)]) == 0
    summary = capsys.readouterr().out
    assert "Werewolves (killers)" in summary and "Good side (good)" in summary
    header = next(line for line in (out / "report.md").read_text("utf-8").splitlines() if line.startswith("| players"))
    assert "| Werewolves (killers) | 95% CI |" in header and "| Good side (good) | 95% CI |" in header
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert set(report["rows"][0]["sides"]) == {"good", "killers", "draw"}  # the numbers stay keyed by ID


def test_a_seed_versions_balance_report_names_its_sides_as_its_file_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "lab"
    assert main(["balance", "--variant", "standard-2.0", "--players", "12", "--policy", "uninformed", "--games", "20",
                 "--jobs", "1", "--out", str(out)]) == 0
    assert "Killers' side (killers)" in capsys.readouterr().out  # 004 §4's 杀手一方
