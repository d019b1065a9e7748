"""What the judge's console costs the table: memory, the event loop, and a press's way to the seat's screen.

    .venv/bin/python benchmarks/console_load.py [--runs 3] [--seconds 10] [--judges 3] [--public 0] [--plain]

Each run is a fresh controller process (the figures are its own), once as the table alone ("table") and once with
the console serving ``--judges`` paired phones and ``--public`` public pages on real web sockets ("console"). The
phones are a separate process (as they are separate devices), connected before the game starts and reading every
message. The console serves HTTPS with a certificate the table made for itself, as it does by default (``--plain``:
plain HTTP, ``[console] tls = false``, to see what TLS costs). The director runs on the asyncio loop in the main thread, as on the Pi; a second thread plays the
hardware as benchmarks/director_latency.py does: during the first night's kill (a 12-seat standard-2.0 game) a
killer presses ▶ about 20 times a second for ``--seconds``, and each press is timed to its seat's screen command.

Printed per mode (min / median over the runs): the process's resident memory (VmRSS) and peak (VmHWM) at the end,
its CPU time as a share of one core over the pressing time, the loop's lateness (a 50 ms heartbeat, p99), the
press -> screen latency (p50, p99), and, with the console, the views built and messages sent (the phones'
count of messages received is checked against it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from director_latency import ThreadedSimTable, TimedSeat, pct

from controller.director.clock import AsyncioScheduler
from controller.director.director import Director
from controller.director.timing import Timings
from controller.ports import Button
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.voice.null_voice import NullVoice

PHONES = r"""
import contextlib, json, ssl, sys, threading
from websockets.sync.client import connect
port, tokens, public, cert = int(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
tls = {"ssl": ssl.create_default_context(cafile=cert)} if cert else {}
base = f"{'wss' if cert else 'ws'}://127.0.0.1:{port}"
origin = f"{'https' if cert else 'http'}://127.0.0.1:{port}"
opened = contextlib.ExitStack()
sockets = [opened.enter_context(connect(f"{base}/ws/judge?lang=zh", origin=origin, proxy=None, **tls,
                                        additional_headers={"cookie": f"tianhei_judge={t}"})) for t in tokens]
sockets += [opened.enter_context(connect(f"{base}/ws/public?lang=zh", origin=origin, proxy=None, **tls))
            for _ in range(public)]
got = [0] * len(sockets)
def read(i, s):
    try:
        for _ in s:
            got[i] += 1
    except Exception:
        pass
threads = [threading.Thread(target=read, args=(i, s), daemon=True) for i, s in enumerate(sockets)]
for t in threads:
    t.start()
print("ready", flush=True)
sys.stdin.read()
opened.close()
for t in threads:
    t.join(5)
print(json.dumps(got), flush=True)
"""


def status(key: str) -> float:
    """A /proc/self/status figure in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(mode: str, seconds: float, judges: int, public: int, plain: bool) -> dict[str, Any]:
    players = 12
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    clock = AsyncioScheduler(loop)
    hardware = ThreadedSimTable(players, loop)
    table: Any = hardware
    board = console = server = phones = None
    if mode == "console":
        import tempfile

        from controller.config.settings import ConsoleSection
        from controller.web.certificate import own
        from controller.web.console import Console
        from controller.web.server import ConsoleServer

        tls = None if plain else own(Path(tempfile.mkdtemp(prefix="tianhei-bench-")))
        console = Console(ConsoleSection(enabled=True, host="127.0.0.1", port=0, phones=max(1, judges)), loop,
                          certificate=tls)
        table = console.wrap(hardware)
        board = console.board_for(None)
        server = ConsoleServer(console)
        loop.run_until_complete(server.start())
        tokens = []
        for i in range(judges):
            paired: Any = console.access.pair(console.code() or "", f"10.0.0.{i + 1}", "bench", loop.time())
            tokens.append(paired.token)
        phones = subprocess.Popen([sys.executable, "-c", PHONES, str(console.port), json.dumps(tokens), str(public),
                                   str(tls.cert) if tls else ""],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert phones.stdout is not None
        ready = loop.run_until_complete(loop.run_in_executor(None, phones.stdout.readline))  # the loop serves
        assert ready.strip() == "ready", ready

        async def connected() -> None:
            while len(console.wakers) < judges + public:
                await asyncio.sleep(0.01)

        loop.run_until_complete(connected())
    config = configure(load_variant("standard-2.0"), players, {"vote.window_s": 30.0})
    voice = NullVoice(clock.now, part_seconds=0.01)
    timings = Timings(reveal_s=0.05, night_action_s=3600, speech_s=0.05, last_words_s=0.05, recognition_s=0.05,
                      answer_s=0.05, tally_s=0.05, defence_claim_s=0.05, direction_s=0.05, warnings_s=())
    director = Director(table, voice, clock, config, timings=timings, seed=3, board=board)
    if console is not None:
        console.watch(director)
    night = threading.Event()
    director.listeners.append(lambda d, w: night.set() if w.kind == "night" and w.step == "kill" else None)
    lags: list[float] = []
    measuring = {"on": False}

    def heartbeat(expected: float) -> None:
        now = loop.time()
        if measuring["on"]:
            lags.append((now - expected) * 1000)
        loop.call_at(now + 0.05, lambda: heartbeat(now + 0.05))

    screen_ms: list[float] = []
    figures: dict[str, Any] = {}

    def presses() -> None:
        assert night.wait(30), "the night never came"
        killer = next(s for s in range(1, players + 1) if director.state and director.state.role_of(s) == "killer")
        seat = hardware.seats[killer]
        assert isinstance(seat, TimedSeat)
        rng = random.Random(1)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        built0, sent0 = (console.built, console.sent) if console else (0, 0)
        measuring["on"] = True
        while time.perf_counter() - wall0 < seconds:
            seat.shown.clear()
            t0 = time.perf_counter()
            hardware.press(killer, Button.NEXT)
            assert seat.shown.wait(5)
            screen_ms.append((seat.shown_at - t0) * 1000)
            hardware.release(killer, Button.NEXT)
            time.sleep(rng.uniform(0.02, 0.08))  # about 20 presses a second
        measuring["on"] = False
        figures["cpu_share"] = 100 * (time.process_time() - cpu0) / (time.perf_counter() - wall0)
        if console:
            figures["built"] = console.built - built0
            figures["sent"] = console.sent - sent0
        loop.call_soon_threadsafe(loop.stop)

    loop.call_soon(director.start)
    loop.call_soon(lambda: heartbeat(loop.time()))
    worker = threading.Thread(target=presses, daemon=True)
    worker.start()
    loop.run_forever()
    worker.join(5)
    figures.update(rss=status("VmRSS"), hwm=status("VmHWM"), lag_p99=pct(lags, 0.99),
                   p50=statistics.median(screen_ms), p99=pct(screen_ms, 0.99), presses=len(screen_ms))
    if phones is not None and server is not None:
        out = loop.run_until_complete(loop.run_in_executor(None, lambda: phones.communicate("", timeout=30)[0]))
        figures["received"] = sum(json.loads(out.strip().splitlines()[-1]))
        loop.run_until_complete(server.stop())
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--judges", type=int, default=3)
    ap.add_argument("--public", type=int, default=0)
    ap.add_argument("--plain", action="store_true", help="the console over plain HTTP (tls = false)")
    ap.add_argument("--mode", choices=("table", "console"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(child(args.mode, args.seconds, args.judges, args.public, args.plain)))
        return
    results: dict[str, list[dict[str, Any]]] = {"table": [], "console": []}
    for _ in range(args.runs):
        for mode in results:
            out = subprocess.run([sys.executable, __file__, "--mode", mode, "--seconds", str(args.seconds),
                                  "--judges", str(args.judges), "--public", str(args.public)]
                                 + (["--plain"] if args.plain else []),
                                 capture_output=True, text=True, check=True, env={**os.environ})
            results[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"12-seat table on the real clock, {args.seconds:g} s of ▶ presses (~20/s) in the first night, "
          f"{args.runs} runs; console: {args.judges} judge phone(s) + {args.public} public page(s) on web sockets, "
          f"{'plain HTTP' if args.plain else 'HTTPS (wss)'}")
    rows = [("resident memory (MiB)", "rss", "{:.1f}"), ("peak memory (MiB)", "hwm", "{:.1f}"),
            ("CPU, % of one core", "cpu_share", "{:.2f}"), ("loop lateness p99 (ms)", "lag_p99", "{:.2f}"),
            ("press -> screen p50 (ms)", "p50", "{:.3f}"), ("press -> screen p99 (ms)", "p99", "{:.3f}")]
    print(f"  {'':28} {'table alone (min / median)':>28} {'with the console (min / median)':>34}")
    for name, key, fmt in rows:
        cells = []
        for mode in ("table", "console"):
            xs = [r[key] for r in results[mode]]
            cells.append(f"{fmt.format(min(xs))} / {fmt.format(statistics.median(xs))}")
        print(f"  {name:28} {cells[0]:>28} {cells[1]:>34}")
    for r in results["console"]:
        print(f"  console run: {r['presses']} presses, {r['built']} views built, {r['sent']} messages sent while pressing, "
              f"{r['received']} received by the phones in all")


if __name__ == "__main__":
    main()
