"""The hall's page under a flood of unfinished requests, as ``tianhei hall`` runs it (its own process, 512 file
descriptors): how long ``/state`` takes while 600 connections from twelve loopback addresses hang on, how many
lines the flood adds to the log, and how long the process takes to exit after SIGTERM. Targets (docs/security.md):
``/state`` within 1 s, a handful of lines, exit within 5 s (it took 20 s, and the log grew 2 MB a second, before
the page had the console's doorman).

    .venv/bin/python benchmarks/page_flood.py [--runs 3] [--connections 600]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HALF_A_REQUEST = b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 14)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def one_run(connections: int) -> tuple[float, int, float]:
    """(the slowest of three /state answers under the flood in s, log lines the flood added, SIGTERM to exit in s)."""
    with tempfile.TemporaryDirectory(prefix="tianhei-flood-") as tmp:
        port, cfg, log_path = free_port(), Path(tmp) / "tianhei.toml", Path(tmp) / "hall.log"
        cfg.write_text(f'[mqtt]\nport = {free_port()}\n[hall]\nhttp_port = {port}\ndb = "{tmp}/hall.sqlite"\n'
                       'rooms = [{ id = "1" }]\n', encoding="utf-8")
        with log_path.open("w") as log:
            hall = subprocess.Popen([sys.executable, "-m", "controller.cli", "hall", "--config", str(cfg)],
                                    stdout=log, stderr=subprocess.STDOUT,
                                    env={**os.environ, "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"},
                                    preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512)))
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5.0) as browser, \
                    contextlib.ExitStack() as held:
                end = time.monotonic() + 60
                while True:
                    with contextlib.suppress(httpx.TransportError):
                        if browser.get("/state").status_code == 200:
                            break
                    if time.monotonic() > end or hall.poll() is not None:
                        raise SystemExit(f"the hall did not start:\n{log_path.read_text()}")
                    time.sleep(0.1)
                before = len(log_path.read_text().splitlines())
                per = -(-connections // len(ADDRESSES))
                for n in range(connections):
                    sock = held.enter_context(socket.create_connection(
                        ("127.0.0.1", port), timeout=5, source_address=(ADDRESSES[n // per], 0)))
                    sock.sendall(HALF_A_REQUEST)
                slowest = 0.0
                for _ in range(3):
                    started = time.monotonic()
                    assert browser.get("/state").status_code == 200
                    slowest = max(slowest, time.monotonic() - started)
                hall.send_signal(signal.SIGTERM)
                stopping = time.monotonic()
                hall.wait(30)
                took = time.monotonic() - stopping
            added = len(log_path.read_text().splitlines()) - before
        finally:
            if hall.poll() is None:
                hall.kill()
                hall.wait(5)
    return slowest, added, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--connections", type=int, default=600)
    args = parser.parse_args()
    runs = [one_run(args.connections) for _ in range(args.runs)]
    for name, values, unit, target in (("/state under the flood (slowest of 3)", [r[0] for r in runs], "s", "<= 1 s"),
                                       ("log lines the flood added", [r[1] for r in runs], "", "a handful"),
                                       ("SIGTERM to exit", [r[2] for r in runs], "s", "<= 5 s")):
        def fmt(v: float, unit: str = unit) -> str:
            return f"{v:.3f} {unit}" if unit else f"{v:g}"

        print(f"{name}: min {fmt(min(values))}, median {fmt(statistics.median(values))} "
              f"({', '.join(map(fmt, values))}; target {target})")


if __name__ == "__main__":
    main()
