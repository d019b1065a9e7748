"""systemd/install.sh as a club runs it, against a scratch root: the dry run prints every change and makes none;
the files it writes are the ones the service needs, and the config it writes passes `tianhei config check`."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "systemd" / "install.sh"
CLI = "import sys; from controller.cli import main; sys.exit(main())"


def install(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


def tianhei(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", CLI, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("profile", ["compact-8", "bus-16", "sim"])
def test_a_dry_run_prints_every_change_and_makes_none(tmp_path: Path, profile: str) -> None:
    scratch = tmp_path / "root"
    result = install("--dry-run", "--root", str(scratch), "--profile", profile)
    assert result.returncode == 0, result.stderr
    assert not scratch.exists(), "a dry run writes nothing, not even its root"
    out = result.stdout
    for kind in ("[packages]", "[user]", "[files]", "[boot]", "[udev]", "[units]"):
        assert kind in out, kind
    assert "apt-get install -y" in out and "useradd --system" in out
    assert "write /etc/tianhei/tianhei.toml" in out and f'hardware = "{profile}"' in out
    assert "write /etc/systemd/system/tianhei.service" in out and "Type=notify" in out
    assert "write /etc/udev/rules.d/99-tianhei.rules" in out
    assert ("append 'dtparam=i2c_arm_baudrate=400000'" in out) == (profile == "compact-8")
    assert ("[pairing]" in out) == (profile == "bus-16")
    assert out.rstrip().endswith("Dry run: nothing was changed.")


@pytest.mark.parametrize(("profile", "extras"), [("bus-16", "[record]"), ("compact-8", "[pi,record]")])
def test_a_table_that_records_its_judge_gets_sox_and_the_record_extra(tmp_path: Path, profile: str,
                                                                      extras: str) -> None:
    """The console's recording page and ``tianhei sounds record`` need sox, numpy and pyloudnorm, which a table
    that only plays does not: ``--record`` asks for them."""
    result = install("--dry-run", "--root", str(tmp_path / "root"), "--profile", profile, "--record")
    assert result.returncode == 0, result.stderr
    assert "sox libsox-fmt-all" in result.stdout and f"install tianhei{extras} into it" in result.stdout
    plain = install("--dry-run", "--root", str(tmp_path / "root"), "--profile", "bus-16")
    assert "sox" not in plain.stdout and "install tianhei into it" in plain.stdout


def rooted_config(scratch: Path) -> Path:
    """The written config with its absolute paths moved under the scratch root, where the files would be."""
    text = (scratch / "etc" / "tianhei" / "tianhei.toml").read_text(encoding="utf-8")
    moved = scratch / "check.toml"
    moved.write_text(text.replace('"/var/lib/tianhei/', f'"{scratch}/var/lib/tianhei/'), encoding="utf-8")
    return moved


@pytest.mark.parametrize("profile", ["compact-8", "bus-16", "sim"])
def test_the_files_it_writes_make_a_table_that_waits_for_players(tmp_path: Path, profile: str) -> None:
    scratch = tmp_path / "root"
    result = install("--root", str(scratch), "--profile", profile)
    assert result.returncode == 0, result.stderr
    unit = (scratch / "etc" / "systemd" / "system" / "tianhei.service").read_text()
    assert "Type=notify" in unit and "WatchdogSec=" in unit and "UMask=0077" in unit and "User=tianhei" in unit
    assert "ExecStart=/opt/tianhei/.venv/bin/tianhei serve --config /etc/tianhei/tianhei.toml" in unit
    assert "--autoplay" not in unit, "nothing plays by itself"
    assert (scratch / "etc" / "udev" / "rules.d" / "99-tianhei.rules").read_text() == \
        (ROOT / "systemd" / "99-tianhei.rules").read_text()
    state = scratch / "var" / "lib" / "tianhei"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    boot = scratch / "boot" / "firmware" / "config.txt"
    assert boot.exists() == (profile == "compact-8")
    config = rooted_config(scratch)
    if profile == "bus-16":  # the installer's pairing step, run as it would run it
        assert tianhei("remote", "pair", "--config", str(config), cwd=state).returncode == 0
        assert stat.S_IMODE((state / "remote.key").stat().st_mode) == 0o600
    check = tianhei("config", "check", str(config), cwd=state)
    assert check.returncode == 0, check.stderr
    assert f"hardware {profile}" in check.stdout


def test_running_it_again_keeps_the_config_unless_asked(tmp_path: Path) -> None:
    scratch = tmp_path / "root"
    assert install("--root", str(scratch), "--profile", "compact-8").returncode == 0
    config = scratch / "etc" / "tianhei" / "tianhei.toml"
    config.write_text(config.read_text() + "# the club's own note\n")
    again = install("--root", str(scratch), "--profile", "compact-8")
    assert "keep /etc/tianhei/tianhei.toml" in again.stdout and "the club's own note" in config.read_text()
    assert "keep the I2C speed" in again.stdout
    assert (scratch / "boot" / "firmware" / "config.txt").read_text().count("i2c_arm_baudrate") == 1
    assert install("--root", str(scratch), "--profile", "compact-8", "--reconfigure").returncode == 0
    assert "the club's own note" in (scratch / "etc" / "tianhei" / "tianhei.toml.bak").read_text()
    assert "the club's own note" not in config.read_text()


def test_without_a_profile_and_nobody_to_ask_it_says_what_to_give(tmp_path: Path) -> None:
    result = install("--dry-run", "--root", str(tmp_path / "root"))
    assert result.returncode == 2 and "--profile compact-8" in result.stderr
    assert install("--dry-run", "--profile", "bus-32").returncode == 2


@pytest.mark.parametrize("name, command", [("tianhei.service", "serve"), ("tianhei-hall.service", "hall"),
                                           ("tianhei-league.service", "league")])
def test_systemd_accepts_the_unit(tmp_path: Path, name: str, command: str) -> None:
    """`systemd-analyze verify` reads the unit as systemd would: a misspelt directive or a bad value fails here
    (the program it starts is swapped for one that exists on this machine)."""
    unit = (ROOT / "systemd" / name).read_text()
    assert f"ExecStart=/opt/tianhei/.venv/bin/tianhei {command}" in unit
    (tmp_path / name).write_text(unit.replace("/opt/tianhei/.venv/bin/tianhei", "/bin/true"))
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / name)], capture_output=True,
                            text=True, timeout=60)
    complaints = [line for line in (result.stdout + result.stderr).splitlines() if name in line]
    assert result.returncode == 0 and complaints == [], result.stdout + result.stderr


def test_the_league_units_command_line_is_one_the_league_takes() -> None:
    from controller.cli import build_parser

    unit = (ROOT / "systemd" / "tianhei-league.service").read_text()
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    args = build_parser().parse_args(line.split()[1:])
    assert args.password_file == Path("/etc/tianhei/league/secrets/league.secret") and args.port == 8089
    # the page on loopback unless the league's organiser names its address (never every interface by default)
    assert args.host == "${TIANHEI_LEAGUE_HOST}" and "Environment=TIANHEI_LEAGUE_HOST=127.0.0.1" in unit
    assert "EnvironmentFile=-/etc/tianhei/league.env" in unit and "0.0.0.0" not in unit


@pytest.mark.parametrize("name", ["tianhei.service", "tianhei-hall.service", "tianhei-league.service"])
def test_every_unit_with_a_page_has_room_for_its_connections(name: str) -> None:
    """The pages hold at most 160 connections each; the default 1,024 descriptors left a flood one step from
    EMFILE. Each unit sets its own limit, far above what the pages let in."""
    unit = (ROOT / "systemd" / name).read_text()
    limit = next(int(x.split("=", 1)[1]) for x in unit.splitlines() if x.startswith("LimitNOFILE="))
    from controller.web.guarded import TOTAL

    assert limit >= 4 * TOTAL + 1024


def test_the_bus_16_table_opens_the_port_the_udev_rule_names(tmp_path: Path) -> None:
    """The udev rule names the USB RS-485 adapter /dev/tianhei-bus; the bus-16 profile the installed config names
    must open that name, not /dev/ttyUSB0 (which another USB serial device may take first)."""
    from controller.config.profile import load_profile

    scratch = tmp_path / "root"
    assert install("--root", str(scratch), "--profile", "bus-16").returncode == 0
    rules = (scratch / "etc" / "udev" / "rules.d" / "99-tianhei.rules").read_text()
    links = {line.split('SYMLINK+="')[1].split('"')[0] for line in rules.splitlines()
             if 'SYMLINK+="' in line and not line.startswith("#")}
    config = (scratch / "etc" / "tianhei" / "tianhei.toml").read_text()
    assert 'hardware = "bus-16"' in config
    profile = load_profile("bus-16")
    assert profile.bus is not None and links == {profile.bus.port.removeprefix("/dev/")}
    dry = install("--dry-run", "--root", str(tmp_path / "dry"), "--profile", "bus-16").stdout
    assert "the USB RS-485 adapter appears as /dev/tianhei-bus" in dry and "warning" not in dry


def test_a_venue_without_internet_installs_from_the_bundle_it_was_given(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "wheels").mkdir(parents=True)
    (bundle / "debs").mkdir()
    (bundle / "debs" / "rsync_3.2.7-1_arm64.deb").write_bytes(b"")
    result = install("--dry-run", "--root", str(tmp_path / "root"), "--profile", "bus-16", "--offline", str(bundle))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "apt-get update" not in out, "no index to update without internet"
    assert f"dpkg -i 1 .debs from {bundle}/debs" in out
    assert f"--no-index --find-links {bundle}/wheels" in out


def test_an_offline_bundle_without_wheels_is_one_line_saying_how_to_make_it(tmp_path: Path) -> None:
    result = install("--dry-run", "--root", str(tmp_path / "root"), "--profile", "sim", "--offline",
                     str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"install.sh: --offline {tmp_path}/nothing has no wheels/ folder "
        f"(systemd/fetch-offline.sh {tmp_path}/nothing makes it)"]
