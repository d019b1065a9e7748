"""The balance lab (``tianhei balance``): "is this table fair at 9 players?"

Plays many games with bots at every player count a variant allows and reports, per count and side, the share of
games won with a 95% Wilson interval, the exact model beside it where one exists (uninformed classic-1.0 and
standard-2.0, controller/club/exact.py), and PNG plots (controller/club/plots.py).

``--jobs N`` runs N processes. The games are cut into fixed chunks (:data:`CHUNK` games each), and each chunk
plays from its own seed, derived from the run's seed, the player count and the chunk's number only: so the
counts for a seed are the same whatever N is, and chunks go to whichever process is free.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from controller.club.balance_result import SIDES, Z95, BalanceResult, Row, wilson
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import VariantError, load_variant
from controller.screens.strings import side_label

__all__ = ["SIDES", "Z95", "BalanceError", "BalanceResult", "Row", "run_balance", "wilson", "write_report"]

#: Games per chunk: small enough to keep two processes busy to the end, large enough that the hand-off costs
#: nothing (a chunk of standard-2.0 takes about 0.1 s).
CHUNK = 100


class BalanceError(Exception):
    """A request the lab cannot run, said in one line."""


def parse_players(text: str) -> list[int]:
    """"8-16" or "9" or "8,10,12"."""
    try:
        out: list[int] = []
        for part in text.split(","):
            a, sep, b = part.strip().partition("-")
            out += list(range(int(a), int(b) + 1)) if sep else [int(a)]
    except ValueError:
        raise BalanceError(f"--players {text!r}: write a count or a range, like 9 or 8-16") from None
    if not out or min(out) < 2 or max(out) > 20:
        raise BalanceError(f"--players {text!r}: counts are 2..20 (the judge is not counted)")
    return sorted(set(out))


def chunk_seed(seed: int, players: int, chunk: int) -> int:
    """The seed of one chunk: a function of the run's seed, the count and the chunk only (never of --jobs)."""
    digest = hashlib.sha256(f"balance:{seed}:{players}:{chunk}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _config(variant: str, players: int, options: dict[str, object]) -> GameConfig:
    return configure(load_variant(variant), players, options, talk=False)


def allowed_counts(variant: str, options: dict[str, object]) -> list[int]:
    out = []
    for n in range(2, 21):
        try:
            _config(variant, n, options)
        except VariantError:
            continue
        out.append(n)
    return out


_CACHE: dict[tuple[str, int, str], GameConfig] = {}


ChunkResult = tuple[int, int, dict[str, int], int, float, int, str]
#: (variant, players, policy, options, games, seed, chunk, the club's ability modules)
Task = tuple[str, int, str, dict[str, object], int, int, int, tuple[str, ...]]


@functools.cache
def _rules() -> str:
    """Which rules this worker plays, "mypyc" or "python" (controller/compiled_rules.py): a club's spare machine
    without the compiled build plays several times slower, and the report says so. Asked once a process: the
    engine, once imported, stays what it is."""
    from controller import compiled_rules

    return compiled_rules.mode()


def _play_chunk(task: Task) -> ChunkResult:
    """(players, games, wins by side, days, CPU seconds, worker pid, rules played) of one chunk; runs in a worker
    process."""
    from controller.simulate import simulate

    cpu = time.process_time()
    variant, players, policy, options, games, seed, chunk, modules = task
    if modules:
        from controller.config import club_abilities

        club_abilities.load(modules)  # once a process; before the variant that may use them
    key = (variant, players, json.dumps(options, sort_keys=True))
    config = _CACHE.get(key)
    if config is None:
        config = _CACHE[key] = _config(variant, players, options)
    summary = simulate(config, policy, games, chunk_seed(seed, players, chunk))
    wins = dict(summary.wins)
    wins["draw"] = summary.draws
    return players, games, wins, summary.days_total, time.process_time() - cpu, os.getpid(), _rules()


def play_batch(batch: Iterable[Task]) -> list[ChunkResult]:
    """A batch of chunks played in one process, added up into one result per player count (the cluster's task:
    its worker sends back a few small tuples, not one per chunk). Sums of whole counts: the same totals as the
    chunks' results added up one by one."""
    out: dict[int, ChunkResult] = {}
    for task in batch:
        n, games, wins, days, seconds, pid, rules = _play_chunk(task)
        if n in out:
            _, g, w, d, s, _, _ = out[n]
            merged = dict(w)
            for side, count in wins.items():
                merged[side] = merged.get(side, 0) + count
            out[n] = (n, g + games, merged, d + days, s + seconds, pid, rules)
        else:
            out[n] = (n, games, wins, days, seconds, pid, rules)
    return list(out.values())


def tasks(variant: str, counts: Sequence[int], policy: str, games: int, seed: int,
          options: dict[str, object], modules: tuple[str, ...] = ()) -> list[Task]:
    """The chunks of a run; each carries the club's ability modules its worker imports before the variant
    (controller/config/club_abilities.py: the files the settings named, never anything a game sent)."""
    out = []
    for n in counts:
        for chunk, start in enumerate(range(0, games, CHUNK)):
            out.append((variant, n, policy, options, min(CHUNK, games - start), seed, chunk, modules))
    return out


def run_balance(variant: str, counts: Sequence[int] | None, policy: str, games: int, *, seed: int = 1,
                jobs: int | None = None, options: dict[str, object] | None = None,
                progress: bool = True, cluster: str | None = None,
                modules: tuple[str, ...] = ()) -> BalanceResult:
    """The lab's run. ``cluster``: a dask scheduler's address, or "local" for a LocalCluster of ``jobs`` worker
    processes here (controller/club/cluster.py); the same chunks and seeds, so the same counts as ``--jobs``.
    ``modules``: the club's own ability modules, imported here already and by every worker before its first
    chunk."""
    from controller.bots import POLICIES
    from controller.club.exact import exact_shares
    from controller.club.progress import games_bar

    options = dict(options or {})
    if policy not in POLICIES:
        raise BalanceError(f"--policy {policy!r}: use one of {', '.join(POLICIES)}")
    if games < 1:
        raise BalanceError("--games must be at least 1")
    try:
        words_of = load_variant(variant)  # its [words.sides] name the sides in the report
        if counts is None:
            counts = allowed_counts(variant, options)
        configs = {n: _config(variant, n, options) for n in counts}
    except VariantError as exc:
        raise BalanceError(str(exc)) from None
    if not counts:
        raise BalanceError(f"{variant} plays at no player count with these options")
    jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
    rows = {n: Row(n, configs[n].composition, exact=exact_shares(configs[n], policy)) for n in counts}
    work = tasks(variant, counts, policy, games, seed, options, modules)
    started = time.perf_counter()
    setup = 0.0
    cpu: dict[int, float] = {}
    rules: dict[int, str] = {}
    if cluster is not None:
        from controller.club.cluster import ClusterError, run_on_cluster

        def ready() -> None:  # the cluster is up: the games' time starts now
            nonlocal started, setup
            setup = time.perf_counter() - started
            started = time.perf_counter()

        results: Iterable[ChunkResult] = run_on_cluster(work, cluster, jobs, f"{__name__}:play_batch", ready)
    else:
        results = _run(work, jobs, rules)
    with games_bar(games * len(counts), f"{variant} {policy}", progress) as advance:
        try:
            for n, played, wins, days, seconds, pid, played_with in results:
                row = rows[n]
                row.games += played
                row.wins.update(wins)
                row.days += days
                cpu[pid] = cpu.get(pid, 0.0) + seconds
                rules[pid] = played_with
                advance(played)
        except Exception as exc:
            if cluster is not None and isinstance(exc, ClusterError):
                raise BalanceError(str(exc)) from None
            raise
    result = BalanceResult(variant, policy, seed, games, len(cpu) if cluster is not None else jobs, options,
                           [rows[n] for n in counts], worker_cpu=cpu, cluster=cluster, setup_seconds=setup,
                           worker_rules=rules, side_labels={s: side_label(s, words_of) for s in SIDES})
    result.seconds = time.perf_counter() - started
    return result


def _run(work: list[Any], jobs: int, rules: dict[int, str]) -> Iterable[ChunkResult]:
    """The chunks' results, played here (one job) or by a pool of ``jobs`` processes. ``rules`` is filled with
    what every worker process plays *before the first chunk is handed out*: each worker reports it as it starts, so
    the report names every worker whichever of them happened to get chunks (it once named only the ones that did,
    and a test of "every worker" passed or failed by which process won the race)."""
    if jobs == 1 or len(work) == 1:
        rules[os.getpid()] = _rules()
        yield from map(_play_chunk, work)
        return
    import multiprocessing

    # Not "fork": a process that already runs threads (a table's bus or voice, a test run) can fork a worker in
    # the middle of another thread's lock, and the pool then waits on it for ever. "forkserver" forks the workers
    # from a clean server process instead (spawn where there is no fork).
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    # Chunks go to the workers a few at a time: one chunk is ~20 ms of games, and a round trip to a worker per chunk
    # cost the pool a tenth of its speed-up once the games got faster. About 32 batches a worker keep the last ones
    # short, so neither worker waits long for the other at the end. (Which chunks a worker plays never changes
    # the counts: each chunk has its own seed.)
    batch = max(1, len(work) // (jobs * 32))
    # The workers play the rules this process plays: the compiled build where it is active here (each worker
    # activates it before its first chunk imports the engine), else the Python source.
    from controller import compiled_rules

    reports = context.SimpleQueue()
    with context.Pool(jobs, initializer=compiled_rules.start_pool_worker,
                      initargs=(reports, compiled_rules.mode() == "mypyc")) as pool:
        for _ in range(jobs):
            pid, played_with = reports.get()
            rules[pid] = played_with
        yield from pool.imap_unordered(_play_chunk, work, chunksize=batch)


def write_report(result: BalanceResult, out: Path) -> list[Path]:
    """report.md (the table), report.json (the numbers), winrate.png and, with the exact model, vs-exact.png (the
    pictures only where matplotlib is installed: plots.missing())."""
    from controller.club.plots import missing, plot_vs_exact, plot_winrate

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.md", out / "report.json"]
    if not missing():
        paths.append(plot_winrate(result, out / "winrate.png"))
        if any(r.exact is not None for r in result.rows):
            paths.append(plot_vs_exact(result, out / "vs-exact.png"))
    data = {"variant": result.variant, "policy": result.policy, "seed": result.seed, "games": result.games,
            "options": result.options, "agrees_with_exact": result.agrees(),
            "rows": [r.as_dict() for r in result.rows]}
    paths[1].write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    paths[0].write_text(markdown(result, [p.name for p in paths[2:]]), encoding="utf-8")
    return paths


def _counts(result: BalanceResult) -> str:
    counts = [r.players for r in result.rows]
    if counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}" if len(counts) > 1 else str(counts[0])
    return ",".join(map(str, counts))


def markdown(result: BalanceResult, images: Sequence[str]) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in sorted(result.options.items())) or "the variant's defaults"
    lines = [f"# Balance: {result.variant}, policy {result.policy}", "",
             f"{result.games} games at each player count, seed {result.seed}, options: {opts}. Shares of games "
             f"won by each side with 95% Wilson intervals"
             + (", and the exact model of uninformed play beside them (z: simulated minus exact, in standard "
                "errors)." if any(r.exact for r in result.rows) else "."),
             "", f"Made with `tianhei balance --variant {result.variant} --players {_counts(result)} --policy "
             f"{result.policy} --games {result.games} --seed {result.seed}"
             + "".join(f" --option {k}={v}" for k, v in sorted(result.options.items()))
             + "` (the counts are the same for any --jobs).", ""]
    lines += [f"![{name}]({name})" for name in images] + [""]
    has_exact = any(r.exact is not None for r in result.rows)
    head = "| players | roles | " + " | ".join(
        f"{result.side(s)} | 95% CI" + (" | exact | z" if has_exact else "") for s in SIDES) + " | mean days |"
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for r in result.rows:
        roles = ", ".join(f"{n} {role}" for role, n in r.composition if n)
        cells = []
        for side in SIDES:
            lo, hi = r.interval(side)
            cells.append(f"{r.share(side):.1%} | {lo:.1%}–{hi:.1%}")
            if has_exact:
                exact = r.exact or {}
                cells.append(f"{exact.get(side, 0.0):.1%} | {r.z(side) or 0.0:+.2f}")
        lines.append(f"| {r.players} | {roles} | " + " | ".join(cells) + f" | {r.days / r.games:.2f} |")
    agree = result.agrees()
    if agree is not None:
        lines += ["", "Every simulated share lies within 3 standard errors of the exact model." if agree else
                  "**A simulated share lies more than 3 standard errors from the exact model: a rules bug, or a "
                  "1-in-300 chance; run again with another seed.**"]
    return "\n".join(lines) + "\n"
