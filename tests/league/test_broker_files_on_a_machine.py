"""The broker files as a club's or the league's organiser writes them by hand and starts Mosquitto on them, as
root from wherever (systemd starts it from /): ``--out`` given as a relative folder, ``--bind 127.0.0.1`` named
again, the club's key for the bridge in the league's folder of certificates. Started as root, Mosquitto drops
to its own user before it opens the password file, the ACL and the keys: files only root could read stopped it
at once ("Unable to open pwfile")."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from controller.hall import broker
from tests.hall.conftest import until
from tests.league.conftest import collect

TIANHEI = [sys.executable, "-m", "controller.cli"]
REPO = Path(__file__).resolve().parents[2]


def tianhei(cwd: Path, *args: str) -> str:
    """A command that must succeed without a warning (a folder closed to the broker's user would be one)."""
    done = subprocess.run([*TIANHEI, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0 and "warning: Mosquitto" not in done.stderr, done.stderr
    return done.stdout


def stopped(proc: subprocess.Popen[bytes]) -> str:
    """Stop a broker; what it said on its way (its log goes to stderr: the files name no log file)."""
    proc.terminate()
    _, err = proc.communicate(timeout=10)
    return err.decode(errors="replace")


def listeners(conf: Path) -> list[str]:
    return [line for line in conf.read_text().splitlines() if line.startswith("listener ")]


def paths_in(conf: Path) -> list[str]:
    keys = ("acl_file", "password_file", "cafile", "certfile", "keyfile", "persistence_location", "bridge_cafile",
            "bridge_certfile", "bridge_keyfile")
    return [line.split(" ", 1)[1] for line in conf.read_text().splitlines() if line.split(" ", 1)[0] in keys]


@pytest.fixture
def here(certs) -> Iterator[Path]:
    """An organiser's folder with a copy of the league's certificates (the copy is theirs to hand to the broker),
    open to others as /etc's folders are (pytest's own temporary folders are closed: 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="tianhei-broker-files-"))
    folder.chmod(0o755)
    shutil.copytree(certs[0], folder / "league-certs")
    (folder / "league-certs").chmod(0o755)  # as `tianhei league certs` makes it (the copy kept pytest's 0700)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_league_and_a_club_start_mosquitto_on_the_files_and_the_bridge_comes_up(here):
    tls, local, club_port = broker.free_port(), broker.free_port(), broker.free_port()
    tianhei(here, "league", "broker-files", "--out", "league", "--certs", "league-certs", "--clubs", "red,blue",
            "--bind", "127.0.0.1", "--tls-port", str(tls), "--local-port", str(local), "--data-dir", "league-data")
    (here / "tianhei.toml").write_text(f'[mqtt]\nport = {club_port}\nclub = "red"\n')
    said = tianhei(here, "hall", "broker-files", "--out", "red", "--club", "red", "--rooms", "1", "--bind",
                   "127.0.0.1", "--data-dir", "red-data", "--league-address", f"127.0.0.1:{tls}",
                   "--league-certs", "league-certs")
    assert "club red's results" in said
    league_conf, red_conf = here / "league" / "mosquitto.conf", here / "red" / "mosquitto.conf"
    assert listeners(league_conf) == [f"listener {tls} 127.0.0.1", f"listener {local} 127.0.0.1"]
    assert listeners(red_conf) == [f"listener {club_port} 127.0.0.1"]
    for conf in (league_conf, red_conf):
        assert all(p.startswith("/") for p in paths_in(conf)), conf.read_text()
    password = (here / "league" / "secrets" / "league.secret").read_text().strip()

    async def bridge_state() -> list[tuple[str, bytes]]:
        got: list[tuple[str, bytes]] = []
        async with aiomqtt.Client("127.0.0.1", local, username="league", password=password, timeout=5) as lg:
            await lg.subscribe("league/#", qos=1)
            reader = asyncio.create_task(collect(lg, got))
            await until(lambda: ("league/red/bridge", b"1") in got, timeout=30)
            reader.cancel()
        return got

    # started from / as this user (root in CI: Mosquitto then drops to its own user before it opens the files)
    league = broker.launch(league_conf, local, cwd="/")
    logs = ""
    try:
        red = broker.launch(red_conf, club_port, cwd="/")
        try:
            got = asyncio.run(bridge_state())
            assert league.poll() is None and red.poll() is None, "a broker stopped by itself"
        finally:
            logs += stopped(red)
    finally:
        logs += stopped(league)
    assert ("league/red/bridge", b"1") in got, logs
    assert "Error" not in logs and "owner is not" not in logs, logs


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's Mosquitto drops to its own user (CI runs as root)")
def test_files_in_a_folder_the_brokers_user_cannot_reach_are_named_when_they_are_written(tmp_path, certs):
    """pytest's temporary folders are 0700: the broker, as user mosquitto, would stop at its password file."""
    shutil.copytree(certs[0], tmp_path / "league-certs")
    done = subprocess.run([*TIANHEI, "league", "broker-files", "--out", "league", "--certs", "league-certs",
                           "--clubs", "red"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "runs as user mosquitto, which cannot reach these files" in done.stderr
    assert str(tmp_path.parent) in done.stderr and "chmod o+x" in done.stderr
