"""The balance lab on a Dask distributed cluster (``tianhei balance … --cluster ADDRESS``): the same chunks, with
the same seeds, as ``--jobs`` plays on this machine's cores, sent to a scheduler's workers instead (a club's
spare machines: ``dask scheduler`` on one, ``dask worker tcp://HOST:8786`` on each, docs/balance.md). Without an
address (or ``local``) a :class:`distributed.LocalCluster` of worker processes on loopback plays them here.

Which worker plays which chunk never changes the counts: each chunk has its own seed (balance.chunk_seed). Chunks
go a few at a time, about 16 batches a worker, as the process pool's do: a round trip per 20 ms chunk would eat
the speed-up. dask is an optional extra (``pip install 'tianhei[cluster]'``), imported only here.
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


class ClusterError(Exception):
    """No dask, no scheduler at that address, or no workers: the message says which and what to do."""


def _play_batch(play: str, batch: Sequence[Any]) -> list[Any]:
    """A worker plays a batch of chunks (the compiled rules where this machine has their current build).
    ``play`` names the chunk's function as ``module:function``: it is imported only after the compiled rules are
    activated, and this module (which the balance lab imports) never imports the lab back."""
    from controller import compiled_rules

    compiled_rules.activate()
    module, _, name = play.partition(":")
    play_chunk = getattr(importlib.import_module(module), name)
    return [play_chunk(task) for task in batch]


@contextlib.contextmanager
def client_for(address: str | None, workers: int) -> Iterator[Any]:
    """A dask Client: on the scheduler at ``address``, or on a LocalCluster of ``workers`` processes (one thread
    each, loopback, no dashboard) when ``address`` is None or "local"."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(f"--cluster needs dask's distributed: pip install '{EXTRA}'") from None
    if address in (None, "", "local"):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, silence_logs=50) as cluster, Client(cluster) as client:
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
    """Every chunk's result, as the batches finish (in any order: the caller adds them up). ``ready()`` is called
    once the cluster is up and its workers known (the games' time starts there)."""
    from distributed import as_completed

    with client_for(address, workers) as client:
        have = max(1, len(client.scheduler_info().get("workers", {})))
        ready()
        size = max(1, len(work) // (have * 16))
        batches = [work[i:i + size] for i in range(0, len(work), size)]
        futures = client.map(functools.partial(_play_batch, play), batches, pure=False)
        for future in as_completed(futures):
            yield from future.result()
