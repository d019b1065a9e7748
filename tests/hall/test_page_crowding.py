"""The hall's and the league's pages against a crowd of connections that never finish their request, from a
dozen loopback addresses standing in for machines on the club's Wi-Fi: ``/state`` still answers at once, every
such connection is closed by the deadline, and the log grows by a few lines, not one per connection (the
judge's console's doorman, controller/web/guarded.py). Bounded: 240 connections, a deadline of 2 s."""

from __future__ import annotations

import contextlib
import logging
import socket
import time

import httpx
import pytest

from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from controller.hall.web import open_page as hall_page
from controller.league.service import LeagueService
from controller.league.store import LeagueStore
from controller.league.web import open_page as league_page
from controller.web import guarded
from tests.hall.conftest import CLUB
from tests.hall.served import ServedGuarded
from tests.web.test_crowding import HALF_A_REQUEST, wait_closed

ADDRESSES = [f"127.0.0.{n}" for n in range(2, 14)]  # twelve machines
EACH = 20  # connections each: 240 in all, above the 16 an address and the 160 in all a page keeps


def pages(tmp_path):
    hall = HallService(HallStore(tmp_path / "hall.sqlite"), CLUB, [RoomConfig("1")])
    league = LeagueService(LeagueStore(tmp_path / "league.sqlite"))
    return {"hall": (lambda port: hall_page(hall, "127.0.0.1", port), "controller.hall.web"),
            "league": (lambda port: league_page(league, "127.0.0.1", port), "controller.league.web")}


def unfinished(port: int, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    sock.sendall(HALF_A_REQUEST)
    return sock


@pytest.mark.parametrize("page", ["hall", "league"])
def test_a_crowd_of_unfinished_requests_does_not_keep_the_page_from_answering(tmp_path, monkeypatch, caplog, page):
    monkeypatch.setattr(guarded, "HEAD_TIMEOUT_S", 2.0)
    opener, logger = pages(tmp_path)[page]
    caplog.set_level(logging.INFO, logger=logger)
    with ServedGuarded(opener) as served, contextlib.ExitStack() as held, \
            httpx.Client(base_url=served.base, timeout=2.0) as browser:
        crowd = [held.enter_context(unfinished(served.port, ADDRESSES[n // EACH]))
                 for n in range(len(ADDRESSES) * EACH)]
        for _ in range(3):  # the hall's TV asks while every one of them hangs on
            started = time.monotonic()
            assert browser.get("/state").status_code == 200
            assert time.monotonic() - started < 1.0
        assert wait_closed(crowd, within=guarded.HEAD_TIMEOUT_S + 8) == []  # the deadline closed them all
        # The TV's own kept-alive connection sat idle through that wait, and the same deadline closes it too (it
        # sent no request within it): reused at that very moment, it was gone before the answer. A browser asks
        # again on a new connection, and so does this.
        with httpx.Client(base_url=served.base, timeout=2.0) as again:
            assert again.get("/state").status_code == 200
        refused = dict(served.server.doorman.refused)
    # an address's 17th was closed at once, and beyond 160 room was made by closing the oldest waiting ones
    assert refused["address"] > 0 and refused["evicted"] > 0
    assert refused["address"] + refused["evicted"] >= len(ADDRESSES) * EACH - guarded.TOTAL
    lines = [r for r in caplog.records if r.name == logger and r.levelno >= logging.WARNING]
    assert 1 <= len(lines) <= 4, [r.getMessage() for r in lines]  # one a reason, not one a connection
    assert not any(r.exc_info for r in caplog.records)
    assert any(f"{page}'s page: " in r.getMessage() for r in lines)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_tianhei_hall_answers_through_a_flood_and_stops_promptly_on_sigterm(tmp_path):
    """The installed hall (``tianhei hall``, systemd stops it with SIGTERM) with 512 file descriptors: a flood of
    600 unfinished requests (more than it has descriptors) leaves ``/state`` answering, adds a few lines to its
    log, and SIGTERM ends it in seconds (it ignored SIGTERM for 20 s after such a flood)."""
    import os
    import resource
    import signal
    import subprocess
    import sys

    port = free_port()
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[mqtt]\nport = {free_port()}\n[hall]\nhttp_port = {port}\ndb = "{tmp_path / "hall.sqlite"}"\n'
                   'rooms = [{ id = "1" }]\n', encoding="utf-8")
    env = {**os.environ, "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
    log = (tmp_path / "hall.log").open("w+")

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, 512))

    hall = subprocess.Popen([sys.executable, "-m", "controller.cli", "hall", "--config", str(cfg)], stdout=log,
                            stderr=subprocess.STDOUT, env=env, preexec_fn=few_descriptors)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=2.0) as browser, \
                contextlib.ExitStack() as held:
            end = time.monotonic() + 60  # bounded: until the hall's page answers
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if browser.get("/state").status_code == 200:
                        break
                assert hall.poll() is None and time.monotonic() < end, (tmp_path / "hall.log").read_text()
                time.sleep(0.1)  # a real process starting up: polled, bounded by `end` (no clock to inject)
            before = len((tmp_path / "hall.log").read_text().splitlines())
            for n in range(600):
                held.enter_context(unfinished(port, ADDRESSES[n // 50]))
            for _ in range(3):
                assert browser.get("/state").status_code == 200
            hall.send_signal(signal.SIGTERM)
            stopped = time.monotonic()
            hall.wait(10)
            took = time.monotonic() - stopped
    finally:
        if hall.poll() is None:
            hall.kill()
            hall.wait(5)
    text = (tmp_path / "hall.log").read_text()
    assert hall.returncode == 0 and took < 5.0, (took, text)
    added = text.splitlines()[before:]
    assert len(added) <= 6 and "Traceback" not in text, text
