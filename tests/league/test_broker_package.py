"""systemd/mosquitto-package.sh, which gives a club's Pi (and ./dev test) a Mosquitto whose bridge survives cut
handshakes: dry runs against a stand-in broker binary and os-release file, so nothing on this machine changes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "systemd" / "mosquitto-package.sh"
BOOKWORM = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n'
RASPBIAN = 'ID=raspbian\nID_LIKE=debian\nVERSION_CODENAME=bookworm\n'
NOBLE = 'ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=noble\n'


def a_broker(tmp_path: Path, version: str | None) -> Path:
    """A stand-in for /usr/sbin/mosquitto that says its version as Mosquitto's -h does (None: not installed)."""
    path = tmp_path / "mosquitto"
    if version is not None:
        path.write_text(f"#!/bin/sh\necho 'mosquitto version {version}'\necho\necho 'Usage: mosquitto ...'\nexit 3\n")
        path.chmod(0o755)
    return path


def package(tmp_path: Path, version: str | None, os_release: str, *args: str) -> subprocess.CompletedProcess[str]:
    release = tmp_path / "os-release"
    release.write_text(os_release)
    env = {**os.environ, "TIANHEI_MOSQUITTO": str(a_broker(tmp_path, version)), "TIANHEI_OS_RELEASE": str(release),
           "PATH": "/usr/bin:/bin"}  # no /usr/sbin: this machine's own Mosquitto stays out of it
    return subprocess.run(["sh", str(SCRIPT), *args], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=30)


@pytest.mark.parametrize("version", ["2.0.11", None])
def test_a_bookworm_pi_with_bookworms_mosquitto_or_none_gets_the_backports_one(tmp_path, version):
    done = package(tmp_path, version, BOOKWORM, "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "apt-get install -y -qq --no-install-recommends -t bookworm-backports mosquitto" in done.stdout
    assert "bookworm-backports" in done.stdout.splitlines()[0]  # the source first (written, or there already)


@pytest.mark.parametrize("version", ["2.0.15", "2.0.21", "2.1.0", "3.0"])
def test_a_mosquitto_new_enough_is_left_as_it_is_and_dev_hears_nothing(tmp_path, version):
    said = package(tmp_path, version, BOOKWORM)  # not a dry run: it must not need root nor touch apt
    assert said.returncode == 0 and said.stdout == f"[broker]    Mosquitto {version} is 2.0.15 or later: left as it is\n"
    quiet = package(tmp_path, version, BOOKWORM, "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""


@pytest.mark.parametrize(("os_release", "named"), [(NOBLE, "ubuntu noble"), (RASPBIAN, "raspbian bookworm")])
def test_another_system_is_told_in_one_line_what_to_install(tmp_path, os_release, named):
    done = package(tmp_path, "2.0.11", os_release, "--dry-run")
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert f"not on {named}" in done.stderr and "Mosquitto 2.0.15 or later" in done.stderr


def a_deb(folder: Path, name: str, version: str) -> Path:
    """A .deb with only its control file, as dpkg-deb reads it."""
    tree = folder / f"{name}-tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(f"Package: {name}\nVersion: {version}\nArchitecture: all\n"
                                             f"Maintainer: test <test@example.org>\nDescription: test\n")
    deb = folder / f"{name}_{version}_all.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(tree), str(deb)], check=True,
                   capture_output=True, timeout=30)
    return deb


def test_offline_the_pi_takes_what_it_lacks_and_the_newer_mosquitto_never_another_base_package(tmp_path):
    bundle = tmp_path / "broker-debs"
    bundle.mkdir()
    installed_libc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libc6"], capture_output=True, text=True,
                                    timeout=30).stdout
    assert installed_libc, "this test reads the machine's own dpkg database, which has libc6"
    newer = a_deb(bundle, "mosquitto", "99.0.21-1~bpo12+1")  # newer than any installed one, a backport
    lacking = a_deb(bundle, "tianhei-test-lacking", "1.0-1")  # a dependency the Pi does not have
    libc = a_deb(bundle, "libc6", installed_libc + "+other")  # the base system's, at another version
    done = package(tmp_path, "2.0.11", BOOKWORM, "--dry-run", "--offline", str(bundle))
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if "dpkg -i" in x]
    assert str(newer) in line and str(lacking) in line and str(libc) not in line
    assert "apt-get" not in done.stdout  # no network offline


def test_offline_with_no_debs_says_where_they_come_from(tmp_path):
    (tmp_path / "broker-debs").mkdir()
    done = package(tmp_path, "2.0.11", BOOKWORM, "--dry-run", "--offline", str(tmp_path / "broker-debs"))
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "fetch-offline.sh" in done.stderr
