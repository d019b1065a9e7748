"""Wall seconds per 12-player game through the whole director on the simulated table (bots pressing buttons,
every prompt, window and screen redraw) on the virtual clock — what `tianhei run` and the end-to-end tests pay.

    .venv/bin/python benchmarks/director_game.py [--games N] [--journal]

``--journal`` also writes every input durably to a SQLite journal (WAL, synchronous=FULL) in a temporary
directory, as the real table does.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sessions.session import Session


def one_game(seed: int, journal: Path | None, cards: bool) -> tuple[float, float, int]:
    config = configure(load_variant("standard-2.0"), 12)
    t0 = time.perf_counter()
    s = Session(config, seed, "heuristic", journal, cards=cards)
    s.start()
    s.run()
    wall = time.perf_counter() - t0
    assert s.director.stage == "over"
    return wall, s.clock.now(), sum(seat.frames for seat in s.table.seats.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--journal", action="store_true")
    ap.add_argument("--cards", action="store_true")
    args = ap.parse_args()
    walls, table_s, frames = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.games):
            journal = Path(tmp) / f"g{seed}.sqlite" if args.journal else None
            w, t, f = one_game(seed, journal, args.cards)
            walls.append(w)
            table_s.append(t)
            frames.append(f)
    print(f"standard-2.0, 12 players, heuristic bots, {args.games} games, journal={'on' if args.journal else 'off'}, "
          f"cards={'on' if args.cards else 'off'}")
    print(f"  wall s/game: mean {statistics.mean(walls):.3f}  median {statistics.median(walls):.3f}  "
          f"max {max(walls):.3f}")
    print(f"  table time/game: mean {statistics.mean(table_s) / 60:.1f} min of virtual clock "
          f"({statistics.mean(table_s) / statistics.mean(walls):.0f}x real time)")
    print(f"  screen frames sent/game: mean {statistics.mean(frames):.0f}")


if __name__ == "__main__":
    main()
