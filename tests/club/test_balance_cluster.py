"""The balance lab on a Dask cluster: a real LocalCluster of two worker processes on loopback plays the same
chunks with the same seeds as --jobs 1, so the counts are the same; a scheduler that is not there is one line."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.club import cluster
from controller.club.balance import BalanceError, run_balance

pytest.importorskip("distributed")


def test_two_local_workers_count_what_one_process_counts(tmp_path, capsys):
    one = run_balance("standard-2.0", [9, 12], "uninformed", 250, seed=7, jobs=1, progress=False)
    out = tmp_path / "report"
    assert main(["balance", "--variant", "standard-2.0", "--players", "9,12", "--games", "250", "--seed", "7",
                 "--jobs", "2", "--cluster", "--out", str(out), "--no-progress"]) == 0
    assert "cluster local" in capsys.readouterr().out
    rows = json.loads((out / "report.json").read_text())["rows"]
    assert [(r["players"], {s: v["wins"] for s, v in r["sides"].items()}) for r in rows] == \
        [(r.players, {s: r.wins.get(s, 0) for s in ("good", "killers", "draw")}) for r in one.rows]
    assert [r["mean_days"] for r in rows] == [round(r.days / r.games, 4) for r in one.rows]


def test_the_same_counts_from_a_local_cluster_through_run_balance():
    one = run_balance("classic-1.0", [8], "uninformed", 300, seed=3, jobs=1, progress=False)
    two = run_balance("classic-1.0", [8], "uninformed", 300, seed=3, jobs=2, progress=False, cluster="local")
    assert [(r.games, dict(r.wins), r.days) for r in two.rows] == [(r.games, dict(r.wins), r.days) for r in one.rows]
    assert two.jobs == 2 and len(two.worker_cpu) == 2 and two.cluster == "local"
    assert "cluster local" in two.summary_lines()[0]


def test_a_scheduler_that_is_not_there_is_one_line(monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_S", 1.0)
    with pytest.raises(BalanceError, match=r"--cluster tcp://127.0.0.1:9: no dask scheduler answers there"):
        run_balance("classic-1.0", [8], "uninformed", 10, jobs=1, progress=False, cluster="tcp://127.0.0.1:9")


def test_two_workers_get_a_few_large_batches_in_order():
    work = list(range(82))  # 82 chunks of 100 games
    cut = cluster.batches(work, 2)
    assert len(cut) == 2 * cluster.BATCHES_PER_WORKER
    assert [c for batch in cut for c in batch] == work
    assert max(map(len, cut)) - min(map(len, cut)) <= 1
    assert cluster.batches(work[:3], 2) == [[0], [1], [2]]


def test_a_batch_sends_back_one_result_per_player_count_with_the_chunks_totals():
    from controller.club.balance import _play_chunk, play_batch, tasks

    work = tasks("classic-1.0", [8, 9], "uninformed", 250, 5, {})
    folded = {n: (games, wins, days) for n, games, wins, days, _, _, _ in play_batch(work)}
    one_by_one: dict[int, tuple[int, dict[str, int], int]] = {}
    for n, games, wins, days, _, _, _ in map(_play_chunk, work):
        g, w, d = one_by_one.get(n, (0, {}, 0))
        one_by_one[n] = (g + games, {s: w.get(s, 0) + wins.get(s, 0) for s in {*w, *wins}}, d + days)
    assert folded == one_by_one and sorted(folded) == [8, 9]


def test_the_local_workers_play_without_dasks_profiler():
    import dask
    from distributed import Client

    with cluster.local_cluster(1) as local, Client(local) as client:
        said = client.run(lambda: dask.config.get("distributed.worker.profile.enabled"))
    assert list(said.values()) == [False]


def test_a_worker_without_the_compiled_build_is_named_in_the_report():
    """A club's spare machine where nobody compiled the rules plays several times slower than the rest."""
    one = run_balance("classic-1.0", [8], "uninformed", 100, seed=3, jobs=1, progress=False)
    one.worker_rules = {101: "mypyc", 102: "python", 103: "mypyc"}
    assert "1 of 3 workers played the Python source" in "\n".join(one.summary_lines())
    one.worker_rules = {101: "mypyc", 102: "mypyc"}
    assert "compiled with mypyc on every worker" in "\n".join(one.summary_lines())


def test_a_worker_with_other_rules_is_refused_before_a_game_is_played():
    """A spare machine on another checkout would play other games for the same seeds: named, nothing counted."""
    from distributed import Client

    with cluster.local_cluster(1) as local, Client(local) as client:
        cluster.check_same_rules(client)  # the same checkout: no complaint
        with pytest.raises(cluster.ClusterError, match=r"1 of 1 workers run other rules than this machine \(tcp://"):
            cluster.check_same_rules(client, mine="yesterday's rules")


def test_the_rules_digest_covers_the_variant_files_and_the_engine():
    from pathlib import Path

    root = Path(cluster.__file__).resolve().parents[1]
    assert (root / "variants" / "standard-2.0.toml").is_file() and (root / "rules" / "engine.py").is_file()
    assert cluster.rules_digest() == cluster.rules_digest() and len(cluster.rules_digest()) == 16
