"""The balance lab on a Dask distributed cluster (``tianhei balance … --cluster ADDRESS``): the same chunks, with
the same seeds, as ``--jobs`` plays on this machine's cores, sent to a scheduler's workers instead (a club's
spare machines: ``dask scheduler`` on one, ``dask worker tcp://HOST:8786`` on each, docs/balance/README.md). Without an
address (or ``local``) a :class:`distributed.LocalCluster` of worker processes on loopback plays them here.

Which worker plays which chunk never changes the counts: each chunk has its own seed (balance.chunk_seed). Where
the time went on a 2-core machine (two workers, the scheduler and the client sharing the cores): a task per 20 ms
chunk, and a result and a progress-bar step per chunk, kept the client and the scheduler busy on the cores the
games needed. So the chunks go in a few large batches, :data:`BATCHES_PER_WORKER` a worker (the scheduler hands
them out as workers come free, so a worker that gets less of the machine plays fewer, and none waits at the end
for more than one batch); a worker adds up its batch's counts itself and sends back one small result per player
count; the client takes the results as they come, in groups (``as_completed(..., with_results=True).batches()``),
and only adds them up. dask is an optional extra (``pip install 'tianhei[cluster]'``), imported only here.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

#: The optional extra that brings dask.distributed.
EXTRA = "tianhei[cluster]"
CONNECT_S = 10.0
#: Dask settings for the workers of a LocalCluster: no statistical profiler (it wakes every 10 ms to walk the
#: playing thread's stack, a few per cent of every game's CPU; a club's own workers: docs/balance/README.md).
WORKER_CONFIG = {"distributed.worker.profile.enabled": False}
#: Batches per worker: one each would leave a worker idle at the end whenever the other gets less of the machine;
#: many each puts the scheduler's and the client's work per task back on the cores the games need.
BATCHES_PER_WORKER = 8


class ClusterError(Exception):
    """No dask, no scheduler at that address, or no workers: the message says which and what to do."""


def _play_batch(play: str, batch: Sequence[Any]) -> list[Any]:
    """A worker plays a batch of chunks (the compiled rules where this machine has their current build).
    ``play`` names the batch's function as ``module:function`` (it plays the whole batch and returns its results,
    added up as it likes): it is imported only after the compiled rules are activated, and this module (which the
    balance lab imports) never imports the lab back."""
    from controller import compiled_rules

    compiled_rules.activate()
    module, _, name = play.partition(":")
    return list(getattr(importlib.import_module(module), name)(batch))


#: What decides a simulated game's counts: the rules, the bots, the variant files, the simulator and the lab.
_SOURCES = ("rules/*.py", "bots/*.py", "variants/*.toml", "simulate.py", "club/balance.py")


def rules_digest() -> str:
    """A digest of the source that decides the counts, on the machine that runs it: a club's spare machine with
    another checkout would play other games for the same seeds, and the report would add them up silently."""
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for pattern in _SOURCES:
        for path in sorted(root.glob(pattern)):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def check_same_rules(client: Any, mine: str | None = None) -> None:
    """Every worker the scheduler has now plays the source this machine plays, else a ClusterError naming them."""
    mine = mine or rules_digest()
    try:
        theirs = client.run(rules_digest)
    except Exception as exc:  # a worker's own error, re-raised here: most likely a checkout without this function
        raise ClusterError(f"a worker could not say which rules it runs ({type(exc).__name__}: {exc}); give every "
                           f"worker this checkout (git pull, then restart 'dask worker')") from None
    other = sorted(address for address, digest in theirs.items() if digest != mine)
    if other:
        raise ClusterError(f"{len(other)} of {len(theirs)} workers run other rules than this machine "
                           f"({', '.join(other)}): their games would not be these seeds' games; give them the same "
                           f"checkout (git pull, then restart 'dask worker')")


def batches(work: Sequence[Any], workers: int) -> list[Sequence[Any]]:
    """``work`` cut in order into ``workers * BATCHES_PER_WORKER`` batches (fewer when there is less work) whose
    sizes differ by one at most."""
    count = max(1, min(len(work), workers * BATCHES_PER_WORKER))
    size, extra = divmod(len(work), count)
    out, start = [], 0
    for i in range(count):
        end = start + size + (1 if i < extra else 0)
        out.append(work[start:end])
        start = end
    return [b for b in out if b]


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[Any]:
    """A LocalCluster of ``workers`` processes here (one thread each, loopback, no dashboard, no profiler)."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(WORKER_CONFIG), LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                       host="127.0.0.1", dashboard_address=None,
                                                       silence_logs=50) as cluster:
        yield cluster


@contextlib.contextmanager
def client_for(address: str | None, workers: int) -> Iterator[Any]:
    """A dask Client: on the scheduler at ``address``, or on a LocalCluster of ``workers`` processes (one thread
    each, loopback, no dashboard) when ``address`` is None or "local"."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(f"--cluster needs dask's distributed: pip install '{EXTRA}'") from None
    if address in (None, "", "local"):
        with local_cluster(workers) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(address, timeout=CONNECT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"--cluster {address}: no dask scheduler answers there ({exc}); start one with "
                           f"'dask scheduler' and workers with 'dask worker {address}'") from None
    try:
        try:
            client.wait_for_workers(1, timeout=CONNECT_S)
        except (TimeoutError, OSError):
            raise ClusterError(f"--cluster {address}: the scheduler has no workers; start 'dask worker {address}' "
                               f"on each machine") from None
        yield client
    finally:
        client.close()


def run_on_cluster(work: list[Any], address: str | None, workers: int, play: str,
                   ready: Callable[[], None] = lambda: None) -> Iterator[Any]:
    """Every batch's results, as the batches finish (in any order: the caller adds them up). ``play`` names the
    function that plays a batch (see :func:`_play_batch`). ``ready()`` is called once the cluster is up and its
    workers known (the games' time starts there)."""
    from distributed import as_completed

    with client_for(address, workers) as client:
        have = max(1, len(client.scheduler_info().get("workers", {})))
        check_same_rules(client)
        ready()
        futures = client.map(functools.partial(_play_batch, play), batches(work, have), pure=False)
        for done in as_completed(futures, with_results=True).batches():
            for _future, results in done:
                yield from results
