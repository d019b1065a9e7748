"""systemd's notification protocol against a real unix datagram socket, and ``tianhei serve`` speaking it as the
installed service does: READY once the table is up, WATCHDOG pings from the event loop (and none while the loop is
stuck), and after a kill the unfinished game is resumed from the journal."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.service.notify import Notifier, socket_address, watchdog_interval

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from controller.cli import main; sys.exit(main())"


class SystemdSocket:
    """What systemd listens on: a unix datagram socket; collects what arrives, with the time it arrived."""

    def __init__(self, path: Path | None = None, abstract: str | None = None) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract is not None:
            self.sock.bind("\0" + abstract)
            self.env = f"@{abstract}"
        else:
            assert path is not None
            self.sock.bind(str(path))
            self.env = str(path)
        self.sock.settimeout(0.2)
        self.got: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            self.got.append((time.monotonic(), data.decode()))

    def wait_for(self, text: str, timeout: float = 60.0, count: int = 1) -> list[tuple[float, str]]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            hits = [(t, m) for t, m in list(self.got) if text in m]
            if len(hits) >= count:
                return hits
            time.sleep(0.02)
        raise AssertionError(f"systemd never heard {text!r} x{count}; it heard {[m for _, m in self.got]}")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[SystemdSocket]:
    s = SystemdSocket(tmp_path / "notify.sock")
    yield s
    s.close()


def test_ready_and_status_arrive_as_one_datagram(systemd: SystemdSocket) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": systemd.env})
    assert notifier.ready("waiting for players")
    assert systemd.wait_for("READY=1")[0][1] == "READY=1\nSTATUS=waiting for players"


def test_an_abstract_socket_is_reached_too() -> None:
    s = SystemdSocket(abstract=f"tianhei-test-{os.getpid()}")
    try:
        assert Notifier({"NOTIFY_SOCKET": s.env}).status("playing")
        assert s.wait_for("STATUS=playing")
    finally:
        s.close()


def test_without_systemd_nothing_is_sent_and_nothing_breaks(tmp_path: Path) -> None:
    assert not Notifier({}).ready("x")
    gone = Notifier({"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert not gone.ready("x") and not gone.send("WATCHDOG=1")  # logged once, the table goes on
    assert socket_address({"NOTIFY_SOCKET": "vsock:2:1234"}) is None


def test_the_watchdog_interval_is_half_of_what_systemd_asks() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, pid=2) is None  # not for us
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"}, pid=7) == 15.0
    assert watchdog_interval({}) is None and watchdog_interval({"WATCHDOG_USEC": "soon"}) is None


def test_the_pings_stop_while_the_event_loop_is_stuck(systemd: SystemdSocket) -> None:
    """A director stuck in a callback holds the loop: no WATCHDOG=1 until it lets go (systemd would kill it)."""
    sent: list[float] = []

    class Watched(Notifier):
        def send(self, *fields: str) -> bool:
            sent.append(time.monotonic())
            return super().send(*fields)

    notifier = Watched({"NOTIFY_SOCKET": systemd.env, "WATCHDOG_USEC": "100000"})  # a ping every 50 ms
    stuck_for = 0.5

    async def table() -> tuple[float, float]:
        pings = asyncio.create_task(notifier.watchdog())
        await asyncio.sleep(0.2)
        start = time.monotonic()
        time.sleep(stuck_for)  # the director's callback that never returns (for half a second here)
        end = time.monotonic()
        await asyncio.sleep(0.2)
        pings.cancel()
        return start, end

    start, end = asyncio.run(table())
    assert len(systemd.wait_for("WATCHDOG=1", count=len(sent))) == len(sent) >= 6  # each one reached systemd
    assert not [t for t in sent if start < t < end], "no ping while the loop is held"
    assert [t for t in sent if t < start] and [t for t in sent if t >= end], "pings before and after"
    assert max(b - a for a, b in itertools.pairwise(sent)) >= stuck_for


CONFIG = """
[table]
hardware = "sim"
judge = "none"
[journal]
path = "state/journal.sqlite"
[timers]
deal_s = 1
night_action_s = 3
speech_s = 2
last_words_s = 2
defence_s = 2
vote_window_s = 0.5
warning_s = 1
"""


def serve(cwd: Path, systemd: SystemdSocket, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_AUDIODRIVER": "dummy", "NOTIFY_SOCKET": systemd.env,
           "WATCHDOG_USEC": "400000"}
    return subprocess.Popen([sys.executable, "-c", CLI, "serve", *extra], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def records(journal: Path) -> int:
    if not journal.exists():
        return 0
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM records").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def test_the_installed_table_is_ready_pings_and_plays_nothing_by_itself(tmp_path: Path,
                                                                        systemd: SystemdSocket) -> None:
    (tmp_path / "tianhei.toml").write_text(CONFIG, encoding="utf-8")
    proc = serve(tmp_path, systemd)
    try:
        ready = systemd.wait_for("READY=1")[0]
        assert "waiting for players" in ready[1]
        systemd.wait_for("WATCHDOG=1", count=3)
        assert records(tmp_path / "state" / "journal.sqlite") == 0, "the simulated table waits; no bot plays"
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert systemd.wait_for("STOPPING=1")
    assert "Traceback" not in err


def test_a_killed_service_resumes_its_game_from_the_journal(tmp_path: Path, systemd: SystemdSocket) -> None:
    """The watchdog's kill (SIGABRT from systemd; SIGKILL here) in the middle of a game, then the restart."""
    (tmp_path / "tianhei.toml").write_text(CONFIG, encoding="utf-8")
    journal = tmp_path / "state" / "journal.sqlite"
    first = serve(tmp_path, systemd, "--autoplay", "heuristic")
    try:
        assert "bots are playing" in systemd.wait_for("READY=1")[0][1]
        end = time.monotonic() + 90
        while records(journal) < 4 and time.monotonic() < end:  # the game is under way: dealt, its first inputs written
            time.sleep(0.05)
        assert records(journal) >= 4
    finally:
        first.kill()
        first.communicate(timeout=30)
    before = records(journal)
    second = serve(tmp_path, systemd, "--autoplay", "heuristic")
    try:
        ready = systemd.wait_for("READY=1", count=2)[1]
        assert "resuming the unfinished game" in ready[1]
        assert systemd.wait_for("STATUS=resumed standard-2.0, 12 players")
    finally:
        second.send_signal(signal.SIGTERM)
        _, err = second.communicate(timeout=30)
    assert records(journal) >= before
    assert "resumed from the journal" in err and "Traceback" not in err


def test_serve_plays_game_after_game_with_a_check_in_before_each(tmp_path: Path, systemd: SystemdSocket,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop itself, with the table replaced by one that ends each game at once."""
    import argparse
    from types import SimpleNamespace

    import controller.live
    from controller.cli import serve as serve_cli
    from controller.config import load

    (tmp_path / "tianhei.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = load(tmp_path / "tianhei.toml")
    seen: list[Any] = []

    async def one_game(cfg: Any, opts: Any) -> Any:
        seen.append(opts)
        opts.on_ready()
        return SimpleNamespace(state=SimpleNamespace(winner="good"))

    monkeypatch.setattr(controller.live, "run_live", one_game)
    notifier = Notifier({"NOTIFY_SOCKET": systemd.env})
    args = argparse.Namespace(autoplay=None, board=False, games=3)
    assert asyncio.run(serve_cli.serve(config, args, notifier, simulated=True)) == 0
    assert [o.checkin for o in seen] == [True, True, True], "players check in before every game; no bot plays"
    assert [o.autoplay for o in seen] == [None, None, None]
    assert len({o.seed for o in seen}) == 3, "each game its own deal"
    assert len(systemd.wait_for("READY=1", count=3)) == 3
    assert systemd.wait_for("STATUS=game over (good); the next check-in begins", count=3)
