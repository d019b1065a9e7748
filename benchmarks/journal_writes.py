"""What the journal writes in a game, and what a write costs: commits and checkpoints per 12-player game, the
file's size at the end, and the wall time of one commit (fsync'd: synchronous=FULL) and of one checkpoint.

    .venv/bin/python benchmarks/journal_writes.py [--games N] [--dir PATH]

``--dir`` puts the journals on the disk to measure (an SD card on the Pi); the default is a temporary folder.
The game is played under the virtual clock with inline writes (one commit per input, as the tests write): the
cost of the writes themselves. On the live table the writer thread takes them off the event loop and groups
those that come together; what a press then waits for is measured by ``benchmarks/vote_hand_latency.py``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from controller.director.journal import SqliteJournal
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sessions.session import Session


def one_game(seed: int, path: Path) -> tuple[list[float], list[float], int]:
    commits: list[float] = []
    checkpoints: list[float] = []
    write, checkpoint = SqliteJournal._write, SqliteJournal.checkpoint  # inline: Session starts no writer thread

    def timed_write(self: SqliteJournal, rows, checkpoint: bool = False) -> None:  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        write(self, rows, checkpoint=False)
        commits.append(time.perf_counter() - t0)
        if checkpoint:
            self.checkpoint()

    def timed_checkpoint(self: SqliteJournal) -> None:
        t0 = time.perf_counter()
        checkpoint(self)
        checkpoints.append(time.perf_counter() - t0)

    SqliteJournal._write = timed_write  # type: ignore[method-assign]
    SqliteJournal.checkpoint = timed_checkpoint  # type: ignore[method-assign]
    try:
        s = Session(configure(load_variant("standard-2.0"), 12), seed, "heuristic", path)
        s.start()
        s.run()
        assert s.director.stage == "over" and s.journal is not None
        s.journal.close()
    finally:
        SqliteJournal._write, SqliteJournal.checkpoint = write, checkpoint  # type: ignore[method-assign]
    return commits, checkpoints, path.stat().st_size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        runs = [one_game(seed, Path(tmp) / f"g{seed}.sqlite") for seed in range(args.games)]
    commits = [c for r in runs for c in r[0]]
    checkpoints = [c for r in runs for c in r[1]]
    print(f"standard-2.0, 12 players, heuristic bots, {args.games} games")
    print(f"  commits/game: mean {statistics.mean(len(r[0]) for r in runs):.0f}  "
          f"checkpoints/game: mean {statistics.mean(len(r[1]) for r in runs):.0f}  "
          f"file at the end: mean {statistics.mean(r[2] for r in runs) / 1024:.0f} KiB")
    print(f"  commit ms: median {statistics.median(commits) * 1e3:.2f}  max {max(commits) * 1e3:.2f}")
    print(f"  checkpoint ms: median {statistics.median(checkpoints) * 1e3:.2f}  max {max(checkpoints) * 1e3:.2f}")


if __name__ == "__main__":
    main()
