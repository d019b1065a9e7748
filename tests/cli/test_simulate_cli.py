"""``tianhei simulate`` and ``tianhei variants``, called in-process like a user types them."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.rules.options import OPTIONS
from controller.rules.variant import builtin_ids, load_variant


def simulate_json(capsys, *args: str) -> dict:
    assert main(["simulate", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_has_games_wins_draws_mean_days_and_speed(capsys):
    out = simulate_json(capsys, "--variant", "standard-2.0", "--players", "12", "--games", "300", "--seed", "5")
    assert out["games"] == 300
    assert set(out["wins"]) >= {"good", "killers"}
    assert sum(out["wins"].values()) + out["draws"] == 300
    assert out["mean_days"] >= 1 and out["games_per_second"] > 0
    for side in ("good", "killers", "draw"):
        lo, hi = out["ci95"][side]
        assert 0 <= lo <= hi <= 1
    assert out["composition"] == {"killer": 3, "police": 3, "civilian": 6}


def test_the_same_seed_gives_the_same_counts_and_another_seed_other_counts(capsys):
    args = ("--players", "10", "--games", "300", "--policy", "random")
    a = simulate_json(capsys, *args, "--seed", "11")
    b = simulate_json(capsys, *args, "--seed", "11")
    c = simulate_json(capsys, *args, "--seed", "12")
    keep = ("wins", "draws", "mean_days")
    assert {k: a[k] for k in keep} == {k: b[k] for k in keep}
    assert {k: a[k] for k in keep} != {k: c[k] for k in keep}


@pytest.mark.parametrize("policy", ["uninformed", "random", "heuristic"])
def test_every_policy_plays_every_variant(capsys, policy):
    for variant in builtin_ids():
        v = load_variant(variant)
        players = str(min(max(12, v.min_players), v.max_players))  # W2: werewolf-9 is for 9
        out = simulate_json(capsys, "--variant", variant, "--players", players, "--games", "40", "--policy", policy)
        assert sum(out["wins"].values()) + out["draws"] == 40, variant


def test_first_day_starts_with_a_blind_lynch_and_changes_the_odds(capsys):
    args = ("--players", "12", "--games", "600", "--seed", "2")
    night = simulate_json(capsys, *args)
    day = simulate_json(capsys, *args, "--first", "day")
    assert night["wins"] != day["wins"]


def test_talk_plays_the_speeches_and_gives_the_same_results(capsys):
    args = ("--players", "12", "--games", "100", "--seed", "4")
    silent = simulate_json(capsys, *args)
    talking = simulate_json(capsys, *args, "--talk")
    assert (silent["wins"], silent["draws"]) == (talking["wins"], talking["draws"])


def test_options_and_an_explicit_composition_are_passed_on(capsys):
    out = simulate_json(capsys, "--players", "12", "--games", "50", "--roles", "killer=2,police=4",
                        "--option", "win=civilians_lose", "--option", "tie=top2")
    assert out["composition"] == {"killer": 2, "police": 4, "civilian": 6}


def test_text_output_shows_each_side_with_its_interval(capsys):
    assert main(["simulate", "--players", "12", "--games", "50"]) == 0
    text = capsys.readouterr().out
    assert "good" in text and "killers" in text and "draws" in text and "95% CI" in text and "games/s" in text


@pytest.mark.parametrize(("args", "names"), [
    (["--option", "tie=coinflip"], ["tie", "club"]),
    (["--option", "ties=club"], ["ties", "tie"]),
    (["--option", "tie.limit=99"], ["tie.limit", "between"]),
    (["--option", "tie"], ["KEY=VALUE"]),
    (["--option", "doctor.self=true"], ["doctor.self"]),
    (["--roles", "kiler=2"], ["kiler", "killer"]),
    (["--players", "40"], ["40"]),
    (["--variant", "standard-3.0"], ["standard-3.0"]),
    (["--games", "0"], ["--games"]),
])
def test_a_bad_argument_exits_2_with_a_message_naming_it(capsys, args, names):
    argv = ["simulate", "--players", "12", "--games", "5", *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    for name in names:
        assert name in err, (name, err)


def test_variants_lists_every_variant_with_its_options_and_rules_ids(capsys):
    assert main(["variants"]) == 0
    text = capsys.readouterr().out
    for vid in builtin_ids():
        v = load_variant(vid)
        assert vid in text
        for rule in v.rules:
            assert rule in text
        for key in v.options:
            assert f"{key}=" in text and f"({OPTIONS[key].rule})" in text


def test_variants_json_gives_options_with_defaults_and_rules_and_role_tables(capsys):
    assert main(["variants", "--json"]) == 0
    data = {v["id"]: v for v in json.loads(capsys.readouterr().out)}
    assert set(data) == set(builtin_ids())
    std = data["standard-2.0"]
    assert std["options"]["tie"]["default"] == "club" and std["options"]["tie"]["rule"] == "V2.7"
    assert std["options"]["win"]["choices"] == ["club", "civilians_lose", "police_only"]
    assert std["role_tables"]["004"][0] == {"players": [11, 14], "killer": 3, "police": 3}


def test_variants_of_an_unknown_variant_exits_2(capsys):
    assert main(["variants", "standard-9.0"]) == 2
    assert "standard-9.0" in capsys.readouterr().err
