"""The balance lab: the same counts for a seed whatever --jobs is, the exact model beside the uninformed rows,
a report a person reads (table and plots)."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.club.balance import BalanceError, parse_players, run_balance, tasks
from controller.club.exact import ExactModel, exact_shares
from controller.rules.setup import configure
from controller.rules.variant import load_variant


def test_the_counts_for_a_seed_are_the_same_with_one_process_or_two():
    one = run_balance("standard-2.0", [9, 12], "uninformed", 250, seed=7, jobs=1, progress=False)
    two = run_balance("standard-2.0", [9, 12], "uninformed", 250, seed=7, jobs=2, progress=False)
    assert [(r.players, dict(r.wins), r.days) for r in one.rows] == [(r.players, dict(r.wins), r.days)
                                                                      for r in two.rows]
    assert all(r.games == 250 for r in one.rows)
    other = run_balance("standard-2.0", [9, 12], "uninformed", 250, seed=8, jobs=1, progress=False)
    assert [dict(r.wins) for r in other.rows] != [dict(r.wins) for r in one.rows]


def test_every_worker_of_two_says_which_rules_it_plays_even_when_one_of_them_plays_every_chunk():
    """Each worker reports its rules as it starts, before any chunk: two workers are named with a single chunk's
    worth of work for the pool (a test of "every worker" once passed or failed by which process got chunks)."""
    two = run_balance("classic-1.0", [8], "uninformed", 150, seed=3, jobs=2, progress=False)
    assert len(two.worker_rules) == 2
    assert set(two.worker_rules.values()) <= {"mypyc", "python"}


def test_the_work_is_cut_into_chunks_that_do_not_depend_on_the_number_of_processes():
    work = tasks("standard-2.0", [8, 9], "uninformed", 250, 1, {})
    assert [(t[1], t[4], t[6]) for t in work] == [(8, 100, 0), (8, 100, 1), (8, 50, 2), (9, 100, 0), (9, 100, 1),
                                                  (9, 50, 2)]


@pytest.mark.parametrize(("variant", "players", "options"), [("standard-2.0", 12, {}), ("classic-1.0", 13, {}),
                                                              ("standard-2.0", 9, {"win": "civilians_lose"})])
def test_the_labs_exact_shares_are_the_models_outcomes_by_side(variant, players, options):
    config = configure(load_variant(variant), players, options, talk=False)
    by_side: dict[str, float] = {}
    for (side, _), p in ExactModel(config).outcomes().items():
        by_side[side] = by_side.get(side, 0.0) + p
    shares = exact_shares(config, "uninformed")
    assert shares is not None and sum(shares.values()) == pytest.approx(1.0)
    assert {k: v for k, v in shares.items() if v} == pytest.approx(by_side)


def test_no_exact_model_for_other_policies_or_variants():
    config = configure(load_variant("standard-2.0"), 12, {}, talk=False)
    assert exact_shares(config, "heuristic") is None
    assert exact_shares(configure(load_variant("v4.0"), 12, {}, talk=False), "uninformed") is None


def test_the_report_has_a_table_the_exact_rows_and_the_plots(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["balance", "--variant", "classic-1.0", "--players", "10-12", "--games", "300", "--jobs", "1",
                 "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "10p:" in printed and "exact" in printed
    data = json.loads((out / "report.json").read_text())
    assert [r["players"] for r in data["rows"]] == [10, 11, 12]
    assert all("exact" in r["sides"]["good"] for r in data["rows"])
    md = (out / "report.md").read_text()
    assert "| 10 | 2 killer, 8 civilian |" in md and "![winrate.png](winrate.png)" in md
    for png in ("winrate.png", "vs-exact.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_on_a_table_without_matplotlib_the_lab_writes_its_tables_and_says_why_there_are_no_plots(
        tmp_path, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    out = tmp_path / "report"
    assert main(["balance", "--variant", "classic-1.0", "--players", "10", "--games", "50", "--jobs", "1",
                 "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "no plots: matplotlib is not installed here (pip install 'tianhei[lab]')" in printed
    assert (out / "report.md").is_file() and (out / "report.json").is_file()
    assert not list(out.glob("*.png")) and "winrate.png" not in (out / "report.md").read_text()


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "8-x"], "--players '8-x': write a count or a range"),
    (["--players", "1-3"], "counts are 2..20"),
    (["--policy", "psychic"], "--policy 'psychic': use one of"),
    (["--games", "0"], "--games must be at least 1"),
    (["--option", "tie"], "write KEY=VALUE"),
])
def test_bad_requests_get_one_line(tmp_path, capsys, args, message):
    assert main(["balance", "--variant", "standard-2.0", "--out", str(tmp_path), "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_count_the_variant_does_not_play_is_said():
    with pytest.raises(BalanceError, match="no row for 5 players"):
        run_balance("standard-2.0", parse_players("5"), "uninformed", 10, jobs=1, progress=False)
