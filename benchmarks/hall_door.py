"""What the hall's door costs: every message of whole simulated games (statuses, public events, the result and the
club record) taken by ``HallService.receive`` into a hall store in memory, and the schema check alone
(controller/hall/schema.py). Prints microseconds a message, min/median over the runs.

    .venv/bin/python benchmarks/hall_door.py [--games 4] [--runs 3]

Target: the door adds little to taking a message (a table sends a few hundred a game, at most a few a second).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.hall.feed import TableFeed  # noqa: E402
from controller.hall.service import HallService, RoomConfig  # noqa: E402
from controller.hall.store import HallStore  # noqa: E402
from controller.rules.setup import configure  # noqa: E402
from controller.rules.variant import load_variant  # noqa: E402
from controller.sessions.session import Session  # noqa: E402


class Kept:
    """A Publisher that keeps what it is given."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, object]] = []

    def publish(self, kind: str, body: object) -> None:
        self.messages.append((kind, dict(body)))  # type: ignore[call-overload]


def messages(games: int) -> list[tuple[str, bytes]]:
    """(topic, payload) of every message ``games`` whole games of standard-2.0 publish, as room 1's envelopes."""
    out: list[tuple[str, bytes]] = []
    for seed in range(1, games + 1):
        s = Session(configure(load_variant("standard-2.0"), 12, {}), seed, "heuristic")
        rec = Kept()
        TableFeed(rec, lambda seed=seed: f"g{seed}", names=[f"P{i}" for i in range(1, 13)]).attach(s.director)
        s.start()
        s.run(max_time=100_000.0)
        for kind, body in rec.messages:
            seq = len(out) + 1
            out.append((f"tianhei/bench/1/{kind}", json.dumps(
                {"id": f"e-{seq}", "epoch": "e", "seq": seq, "room": "1", "kind": kind, "at": 1_764_000_000.0,
                 "body": body}).encode()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sent = messages(args.games)
    taking, checking = [], []
    for _ in range(args.runs):
        hall = HallService(HallStore(":memory:"), "bench", [RoomConfig("1")], clock=lambda: 1_764_000_000.0)
        t0 = time.perf_counter()
        for topic, payload in sent:
            hall.receive(topic, payload)
        taking.append((time.perf_counter() - t0) / len(sent) * 1e6)
        assert hall.counts.taken == len(sent), hall.counts
        try:
            from controller.hall import checks, schema
        except ImportError:  # a tree from before the door
            continue
        t0 = time.perf_counter()
        for topic, payload in sent:
            kind = topic.rsplit("/", 1)[1]
            schema.table_message(checks.parse(payload), "1", kind)
        checking.append((time.perf_counter() - t0) / len(sent) * 1e6)
    print(f"{len(sent)} messages of {args.games} games")
    print(f"receive, whole: min {min(taking):.1f} µs, median {statistics.median(taking):.1f} µs a message")
    if checking:
        print(f"the door alone (parse + schema): min {min(checking):.1f} µs, median {statistics.median(checking):.1f} "
              f"µs a message")


if __name__ == "__main__":
    main()
