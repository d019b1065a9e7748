"""N simulated tables playing back to back on a loopback Mosquitto while the broker is killed (-9) and started
again at random; the hall runs as its own process (``tianhei hall --no-web``). Every game result must reach the
hall exactly once. Prints messages, outages and delays, for each run and min/median over the runs.

    .venv/bin/python benchmarks/hall_outbox.py [--tables 6] [--games 5] [--outages 3] [--runs 3] [--speed 100]

Measured: the messages the tables wrote (and how many sends that took, resends included), what the hall took
(each once), the results at the hall against the games played, the broker's outages (count, seconds down), the
delay of each result from its writing at the table to its taking at the hall, and how long the table's
``publish`` (the outbox write, all the game ever waits for) took.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import functools
import json
import logging
import math
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.hall.broker import Mosquitto  # noqa: E402
from controller.hall.mqtt import BrokerAddress, MqttPublisher  # noqa: E402
from controller.hall.outbox import Outbox  # noqa: E402
from controller.hall.simroom import SimulatedRoom  # noqa: E402

CLUB = "bench"
VARIANTS = ["standard-2.0", "classic-1.0", "v3.0"]


class TimedPublisher:
    """The table's Publisher with a stopwatch on each call (what the game waits for)."""

    def __init__(self, inner: MqttPublisher) -> None:
        self.inner = inner
        self.calls: list[float] = []

    def publish(self, kind: str, body: Any) -> None:
        t = time.perf_counter()
        self.inner.publish(kind, body)
        self.calls.append(time.perf_counter() - t)


def start_hall(root: Path, broker: Mosquitto, rooms: list[str]) -> subprocess.Popen[bytes]:
    secret = broker.files.secret_file("hall")
    rooms_toml = ", ".join(f'{{ id = "{r}" }}' for r in rooms)
    (root / "hall.toml").write_text(
        f'[mqtt]\nport = {broker.port}\nclub = "{CLUB}"\npassword_file = "{secret}"\n'
        f'[hall]\nrooms = [{rooms_toml}]\ndb = "{root / "hall.sqlite"}"\n', encoding="utf-8")
    env = dict(os.environ, SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())", "hall", "--config", str(root / "hall.toml"),
                             "--no-web"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def one_run(tables: int, games: int, outages: int, seed: int, speed: float) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="tianhei-bench-") as tmp:
        root = Path(tmp)
        rooms = [str(i) for i in range(1, tables + 1)]
        broker = Mosquitto(root / "broker", CLUB, rooms)
        broker.start()
        hall = start_hall(root, broker, rooms)
        try:
            await asyncio.sleep(1.5)  # the hall connects and subscribes (its session then lasts)
            stop = asyncio.Event()
            outboxes, pubs, timed, sims = [], [], [], []
            for room in rooms:
                box = Outbox(root / f"room-{room}.sqlite")
                user = f"room-{room}"
                pub = MqttPublisher(box, BrokerAddress("127.0.0.1", broker.port, user, broker.files.passwords[user]),
                                    CLUB, room)
                t = TimedPublisher(pub)
                sim = SimulatedRoom(room, t, functools.partial(box.next_game, room),
                                    [f"{room}-{i}" for i in range(12)], VARIANTS[int(room) % len(VARIANTS)],
                                    seed=seed, speed=speed, between_s=0.05)
                outboxes.append(box)
                pubs.append(pub)
                timed.append(t)
                sims.append(sim)
            senders = [asyncio.create_task(p.run(stop)) for p in pubs]
            started = time.monotonic()
            play = asyncio.gather(*(s.evening(games) for s in sims))
            downs: list[float] = []

            async def chaos() -> None:
                for _ in range(outages):
                    await asyncio.sleep(rng.uniform(0.5, 4.0))
                    down = rng.uniform(0.5, 3.0)
                    broker.kill()
                    await asyncio.sleep(down)
                    await asyncio.get_running_loop().run_in_executor(None, broker.start)
                    downs.append(down)

            await asyncio.gather(play, chaos())
            played_s = time.monotonic() - started
            deadline = time.monotonic() + 120
            while any(b.counts()["unacked"] for b in outboxes) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            drained_s = time.monotonic() - started
            stop.set()
            await asyncio.gather(*senders)
        finally:
            hall.terminate()
            hall.wait(10)
            broker.stop()
        db = sqlite3.connect(str(root / "hall.sqlite"))
        results = db.execute("SELECT game, at, taken, body FROM results").fetchall()
        taken = db.execute("SELECT COUNT(*) FROM seen").fetchone()[0]
        announced = db.execute("SELECT COUNT(*) FROM announced").fetchone()[0]
        played = [g for s in sims for g in s.played]
        at_hall = {g: json.loads(body)["winner"] for g, _, _, body in results}
        exactly_once = sorted(at_hall) == sorted(g.game for g in played) and all(
            at_hall[g.game] == g.winner for g in played)
        delays = sorted(t2 - t1 for _, t1, t2, _ in results)
        calls = sorted(c for t in timed for c in t.calls)
        return {
            "games": len(played), "results_at_hall": len(results), "exactly_once": exactly_once,
            "announced": announced,
            "written": sum(b.counts()["total"] for b in outboxes), "taken": taken,
            "sends": sum(p.stats.published for p in pubs), "resent": sum(p.stats.resent for p in pubs),
            "unacked": sum(b.counts()["unacked"] for b in outboxes),
            "outages": len(downs), "down_s": round(sum(downs), 2), "play_s": round(played_s, 2),
            "drain_s": round(drained_s, 2),
            "delay_min": delays[0], "delay_median": statistics.median(delays), "delay_max": delays[-1],
            "publish_ms_median": 1000 * statistics.median(calls), "publish_ms_p99": 1000 * calls[int(0.99 * len(calls))],
            "publish_ms_max": 1000 * calls[-1],
        }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=6)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--outages", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", type=float, default=100.0,
                    help="table seconds per real second (0: as fast as the machine plays; default 300, a game in "
                    "about six seconds; faster, and one process playing every table falls behind)")
    args = ap.parse_args()
    faulthandler.dump_traceback_later(float(os.environ.get("HALL_BENCH_WATCHDOG_S", "1800")), exit=True)
    logging.basicConfig(level=logging.ERROR)
    runs = []
    for i in range(args.runs):
        r = asyncio.run(one_run(args.tables, args.games, args.outages, args.seed + i, args.speed or math.inf))
        runs.append(r)
        print(f"run {i + 1}: {r['games']} games on {args.tables} tables, results at the hall {r['results_at_hall']} "
              f"({'each exactly once' if r['exactly_once'] else 'NOT exactly once'}), announced {r['announced']}; "
              f"messages written {r['written']}, sends {r['sends']} ({r['resent']} again), taken by the hall "
              f"{r['taken']}, unacknowledged {r['unacked']}; broker killed {r['outages']}x, down {r['down_s']} s; "
              f"result delay min {r['delay_min']:.3f} / median {r['delay_median']:.3f} / max {r['delay_max']:.2f} s; "
              f"publish() median {r['publish_ms_median']:.2f} ms, p99 {r['publish_ms_p99']:.2f} ms, "
              f"max {r['publish_ms_max']:.1f} ms; played in {r['play_s']} s, all acknowledged at {r['drain_s']} s",
              flush=True)
    print("over the runs (min / median):")
    for key in ("delay_median", "delay_max", "publish_ms_median", "publish_ms_p99", "down_s"):
        values = [r[key] for r in runs]
        print(f"  {key:18} {min(values):8.3f} / {statistics.median(values):8.3f}")
    ok = all(r["exactly_once"] and r["taken"] == r["written"] and r["unacked"] == 0 and
             r["announced"] == r["results_at_hall"] for r in runs)
    print("every result reached the hall exactly once; every message taken once" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
