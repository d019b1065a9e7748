"""``./dev system-test``: the table on a real operating system, Debian bookworm arm64 under QEMU.

What a club does with a Pi, done to a VM that boots Debian's own kernel with systemd as PID 1 (docs/system-test.md
says what this proves and what only a real Pi can):

1. the image (built once, cached: tests/system/image.py), booted on a fresh overlay;
2. ``install.sh --profile bus-16 --offline DIR`` from the checkout on a second disk (the VM has no network);
3. the service up: READY after the unit starts (the figure), its memory;
4. the game: on the simulated table with bots (a drop-in), or over the VM's UART with the seat nodes on the host;
5. the watchdog: the table's process frozen (SIGSTOP), systemd kills and restarts it, the game goes on;
6. power cuts: QEMU killed at several points of the game (one while the journal is being written), booted again,
   the same game resumed with no hand on it, its events equal to an uncut game with the same seed;
7. the upgrade: install.sh again from a newer tree keeps the config, the decks, the journal and the remote's key;
8. ext4 checked from outside once the VM is off;
9. on the host, a whole game with two seats on emulated Picos running the seat firmware's rp2 image
   (tests/nodes/test_pico_game.py: a minute of emulation, more than ``./dev test`` has left).

Every step prints a line as it starts and its result; a step that cannot run says why and the run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.system import image as img  # noqa: E402
from tests.system.tty_profile import write_on_pty  # noqa: E402
from tests.system.vm import VM, VMError  # noqa: E402

ROOT = HERE.parent.parent
DATA = "/mnt/system-test"  # where the VM mounts the second disk
JOURNAL = "/var/lib/tianhei/journal.sqlite"
SEED = 20231
PLAYERS = 8
#: Short timers: a whole game in a few minutes of real time (the voice's lines still take their time).
TEST_CONFIG = f"""# The system test's game: the simulated table, bots at every seat, a fixed seed (tests/system/run.py).
[table]
hardware = "sim"
language = "en"
judge = "none"

[game]
variant = "standard-2.0"
players = {PLAYERS}
seed = {SEED}

[voice]
pack = "en"
volume = 0.5

[journal]
path = "{{journal}}"

[timers]
deal_s = 3
night_action_s = 6
last_words_s = 4
speech_s = 4
defence_s = 4
vote_window_s = 1.0
warning_s = 2
"""
DROPIN = """# The system test: the installed service plays the simulated table with bots (no seats are wired to the VM).
[Service]
ExecStart=
ExecStart=/opt/tianhei/.venv/bin/tianhei serve --config /etc/tianhei/system-test.toml --autoplay heuristic
"""


class Failed(Exception):
    pass


@dataclass
class Report:
    started: float = field(default_factory=time.monotonic)
    results: list[tuple[str, bool, str]] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)

    def step(self, name: str) -> None:
        print(f"\n[{self.elapsed()}] == {name}", flush=True)

    def info(self, line: str) -> None:
        print(f"[{self.elapsed()}]    {line}", flush=True)

    def ok(self, name: str, detail: str = "") -> None:
        self.results.append((name, True, detail))
        print(f"[{self.elapsed()}] ok   {name}{': ' + detail if detail else ''}", flush=True)

    def fail(self, name: str, detail: str) -> None:
        self.results.append((name, False, detail))
        print(f"[{self.elapsed()}] FAIL {name}: {detail}", flush=True)

    def figure(self, name: str, value: str) -> None:
        self.figures.append((name, value))
        print(f"[{self.elapsed()}] figure {name}: {value}", flush=True)

    def elapsed(self) -> str:
        s = int(time.monotonic() - self.started)
        return f"{s // 60:02d}:{s % 60:02d}"


def monotonic_props(vm: VM, unit: str, *props: str) -> dict[str, int]:
    _, out = vm.sh(f"systemctl show {unit} " + " ".join(f"-p {p}" for p in props))
    values = {}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        values[k] = int(v) if v.isdigit() else 0
    return values


def journal_state(vm: VM) -> dict[str, Any]:
    rc, out = vm.sh(f"test -e {JOURNAL} && python3 {DATA}/system-test/journal_dump.py {JOURNAL} 1", check=False)
    if rc != 0:
        return {"records": [], "counts": {}, "ended": False, "integrity": "no journal yet"}
    return dict(json.loads(out))


def progress(state: dict[str, Any]) -> int:
    return int(state["counts"].get("event", 0)) + int(state["counts"].get("input", 0))


def wait_for(what: str, test: Any, timeout: float, every: float = 2.0) -> Any:
    """A bounded poll of the VM (the VM runs on its own clock; nothing here can be injected)."""
    deadline = time.monotonic() + timeout
    while True:
        value = test()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failed(f"{what}: not within {timeout:.0f} s")
        time.sleep(every)  # the VM runs on real time: a bounded poll of a real process


def service_pid(vm: VM) -> int:
    _, out = vm.sh("systemctl show -p MainPID --value tianhei")
    return int(out.strip() or 0)


def wait_ready(vm: VM, report: Report, timeout: float, label: str) -> float:
    """Wait for the unit to be active (Type=notify: READY=1 received); the seconds from the unit's start."""
    def active() -> bool:
        _, out = vm.sh("systemctl is-active tianhei", check=False)
        return out.strip() == "active"

    wait_for(f"tianhei.service READY ({label})", active, timeout, every=1.0)
    p = monotonic_props(vm, "tianhei", "InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic",
                        "ExecMainStartTimestampMonotonic")
    seconds = (p["ActiveEnterTimestampMonotonic"] - p["ExecMainStartTimestampMonotonic"]) / 1e6
    report.info(f"READY {seconds:.1f} s after the unit started ({label})")
    return seconds


def rss_mb(vm: VM) -> float:
    pid = service_pid(vm)
    _, out = vm.sh(f"grep VmRSS /proc/{pid}/status")
    return int(out.split()[1]) / 1024


def game_records(state: dict[str, Any], kinds: tuple[str, ...] = ("input", "event")) -> list[tuple[str, str]]:
    """What must equal the uncut game: the inputs and the rule events, in order (timer checkpoints and notes say
    when, not what). On the bus only the rule events: the players' presses reach the table in real time over a
    line, and a press it lost to a cut (or a timeout it did not reach) is an input of its own."""
    out = []
    for kind, data in state["records"]:
        if kind not in kinds:
            continue
        if kind == "input":
            d = json.loads(data)
            d.pop("delay_s", None)  # how late a bot's press was noted on this machine's clock
            data = json.dumps(d, sort_keys=True)
        out.append((kind, data))
    return out


def same_moves(records: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What players did at the same moment, in seat order: the hands raised at one call (V2.6: at once) and the
    picks of a night group's members in one window. Over a real line they cross in either order; the game is
    the same (as tests/bus/test_tty_game.py compares its cut games)."""
    out: list[tuple[str, str]] = []
    run: list[tuple[tuple[str, Any], tuple[str, str]]] = []

    def key(record: tuple[str, str]) -> tuple[str, Any] | None:
        if record[0] != "event":
            return None
        d = json.loads(record[1])
        if d.get("type") == "voted":
            return ("voted", d.get("target"))
        if d.get("type") == "picked":
            return ("picked", None)
        return None

    def seat(record: tuple[str, str]) -> int:
        return int(json.loads(record[1]).get("seat", 0))

    for record in [*records, None]:
        k = key(record) if record is not None else None
        if k is not None and record is not None and (not run or run[0][0] == k):
            run.append((k, record))
            continue
        out += sorted((r for _, r in run), key=seat)
        run = [(k, record)] if k is not None and record is not None else []
        if record is not None and k is None:
            out.append(record)
    return out


def winner(state: dict[str, Any]) -> str:
    for kind, data in state["records"]:
        if kind == "event":
            d = json.loads(data)
            if d.get("type") == "game_ended":
                return str(d.get("winner"))
    return "(no end)"


TIANHEI = Path(sys.executable).parent / "tianhei"
BUS_CONFIG = ROOT / "hardware/system-test/tianhei.toml"


def bus_missing() -> str:
    """Why the game over the VM's UART cannot be played from this tree ('' when it can)."""
    if not BUS_CONFIG.is_file():
        return f"no {BUS_CONFIG.relative_to(ROOT)} (the bus table's config for the system test)"
    if not (ROOT / "controller/cli/seat_nodes.py").is_file():
        return "no `tianhei seat-nodes` in this tree (the seat nodes behind a real tty)"
    return ""


def bus_seed() -> int:
    """The seed of the bus table's game (its config's [game] seed)."""
    import tomllib

    return int(tomllib.loads(BUS_CONFIG.read_text())["game"]["seed"])


def bus_reference_config(where: Path) -> Path:
    """The system test's bus table on a host pty in ``where``, its journal there: the uncut game."""
    write_on_pty(where, where / "bus")
    lines = []
    for line in BUS_CONFIG.read_text().splitlines():
        if line.split("=", 1)[0].strip() == "path":
            line = f"path = {json.dumps(str(where / 'journal.sqlite'))}"
        lines.append(line)
    cfg = where / "tianhei.toml"
    cfg.write_text("\n".join(lines) + "\n")
    return cfg


class Reference(threading.Thread):
    """The uncut game with the same seed and configuration, played on the host meanwhile (the same engine,
    the same bots; the null voice takes the same time as the VM's ALSA one). On the bus: ``tianhei serve`` and
    ``tianhei seat-nodes`` over a pty."""

    def __init__(self, run_dir: Path, bus: bool) -> None:
        super().__init__(daemon=True)
        self.dir = run_dir / "reference"
        self.bus = bus
        self.state: dict[str, Any] | None = None
        self.error = ""

    def run(self) -> None:
        self.dir.mkdir(exist_ok=True)
        journal = self.dir / "journal.sqlite"
        env = dict(os.environ, SDL_AUDIODRIVER="dummy")
        nodes = None
        if self.bus:
            cfg = bus_reference_config(self.dir)
            cmd = ["nice", "-n", "10", str(TIANHEI), "serve", "--config", str(cfg), "--games", "1"]
            with open(self.dir / "seat-nodes.log", "wb") as nlog:
                nodes = subprocess.Popen(["nice", "-n", "10", str(TIANHEI), "seat-nodes", "--pty",
                                          str(self.dir / "bus"), "--config", str(cfg), "--timeout", "1500"],
                                         cwd=self.dir, stdout=nlog, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
            deadline = time.monotonic() + 120
            while not (self.dir / "bus").exists() and time.monotonic() < deadline:
                time.sleep(0.2)  # the VM runs on real time: a bounded poll of a real process
        else:
            cfg = self.dir / "reference.toml"
            cfg.write_text(TEST_CONFIG.replace("{journal}", str(journal)))
            cmd = ["nice", "-n", "10", str(TIANHEI), "serve", "--config", str(cfg), "--autoplay", "heuristic",
                   "--games", "1"]
        with open(self.dir / "reference.log", "wb") as log:
            done = subprocess.run(cmd, cwd=self.dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, timeout=1800)
        if nodes is not None:
            try:
                nodes.wait(120)
            except subprocess.TimeoutExpired:
                nodes.kill()
        if done.returncode != 0:
            self.error = f"the reference game exited {done.returncode} ({self.dir}/reference.log)"
            return
        out = subprocess.run([sys.executable, str(HERE / "guest/journal_dump.py"), str(journal), "1"],
                             capture_output=True, text=True, check=True).stdout
        self.state = json.loads(out)


def copy_tree(dest: Path, marker: str) -> Path:
    """The checkout as a club would have it (what git tracks, with uncommitted edits), and a marker file."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        src = ROOT / f.decode()
        if not src.is_file():
            continue
        target = dest / f.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    (dest / "SYSTEM-TEST-TREE").write_text(marker + "\n")
    return dest


def wheels(report: Report) -> Path:
    """The aarch64 wheels (systemd/fetch-offline.sh, as a club without internet would fetch them), cached by
    what they are for: the project's requirements and the fetch script."""
    import hashlib

    h = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + (ROOT / "systemd/fetch-offline.sh").read_bytes())
    d = img.cache_root() / f"wheels-{h.hexdigest()[:16]}"
    if (d / ".complete").is_file():
        report.info(f"cached wheels {d}")
        return d / "wheels"
    shutil.rmtree(d, ignore_errors=True)
    report.info("fetching the aarch64 wheels (systemd/fetch-offline.sh --no-debs)")
    done = subprocess.run(["bash", str(ROOT / "systemd/fetch-offline.sh"), str(d), "--no-debs"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise Failed(f"fetch-offline.sh failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")
    (d / ".complete").touch()
    return d / "wheels"


def sh_q(s: str) -> str:
    return shlex.quote(s)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="./dev system-test", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuts", type=int, default=5, help="power cuts during the game (default 5; at least 5 "
                                                         "for the full proof, 0 leaves the step out: said, and "
                                                         "the run fails)")
    ap.add_argument("--keep", action="store_true", help="keep the run's folder (logs, overlay) after a pass")
    ap.add_argument("--run-dir", type=Path, default=None, help="where the run's logs and disks go")
    ap.add_argument("--bus", choices=("auto", "on", "off"), default="auto",
                    help="the game over the VM's UART with the seat nodes on the host (auto: when this tree has "
                         "them); off: the simulated table with bots (the tty game then counts as not run)")
    args = ap.parse_args(argv)
    report = Report()
    if os.environ.get("TIANHEI_REAL_HARDWARE") == "1":
        print("TIANHEI_REAL_HARDWARE=1: run this suite on the Pi itself with tests/system/on_pi.sh "
              "(docs/system-test.md); ./dev system-test is the VM's", file=sys.stderr)
        return 2
    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="tianhei-system-test-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    print(f"Tianhei system test: Debian bookworm arm64 under QEMU (TCG); logs in {run_dir}", flush=True)
    vm: VM | None = None
    reference: Reference | None = None
    nodes: subprocess.Popen[bytes] | None = None
    missing = bus_missing()
    bus = args.bus == "on" or (args.bus == "auto" and not missing)
    try:
        if args.bus == "on" and missing:
            raise Failed(f"--bus on: {missing}")
        report.step("image")
        try:
            image = img.build(img.install_packages(), run_dir / "image-build.log")
        except img.ImageError as exc:
            raise Failed(str(exc)) from exc
        report.ok("image", str(image))
        report.step("the offline bundle and the trees")
        bundle = run_dir / "disk"
        wh = wheels(report)
        copy_tree(bundle / "tree-1", "1")
        copy_tree(bundle / "tree-2", "2")
        (bundle / "system-test").mkdir(parents=True)
        shutil.copy2(HERE / "guest/journal_dump.py", bundle / "system-test/journal_dump.py")
        (bundle / "system-test/system-test.toml").write_text(TEST_CONFIG.replace("{journal}", JOURNAL))
        (bundle / "system-test/dropin.conf").write_text(DROPIN)
        data = img.data_disk({"offline/wheels": wh, "offline/debs": image / "debs", "tree-1": bundle / "tree-1",
                              "tree-2": bundle / "tree-2", "system-test": bundle / "system-test"},
                             run_dir, "system-test-data")
        shutil.rmtree(bundle)
        root = img.overlay(image, run_dir)
        report.ok("bundle", f"{len(list(wh.glob('*.whl')))} wheels, {len(list((image / 'debs').glob('*.deb')))} "
                            f".debs, two trees, on a second disk")
        reference = Reference(run_dir, bus)
        reference.start()
        report.info("the uncut reference game (same seed) is being played on the host meanwhile")

        serial = None
        if bus:
            sock = run_dir / "bus.sock"
            report.info("the seat nodes on the host, behind the VM's PL011 (tianhei seat-nodes --connect)")
            with open(run_dir / "seat-nodes.log", "wb") as nlog, open(run_dir / "seat-nodes.json", "wb") as nout:
                nodes = subprocess.Popen([str(TIANHEI), "seat-nodes", "--connect", str(sock), "--config",
                                          str(BUS_CONFIG), "--slow", "4", "--timeout", "3600", "--json-log",
                                          str(run_dir / "seats.jsonl")], stdout=nout, stderr=nlog,
                                         stdin=subprocess.DEVNULL)
            serial = f"unix:{sock},server=on,wait=off"
        else:
            report.fail("tty game", f"not run ({missing or '--bus off'}): the game is played on the simulated "
                                    "table instead")
        vm = VM(image, root, run_dir, data_disks=(data,), serial=serial)
        report.step("boot")
        boot_s = vm.boot()
        _, kernel = vm.sh("uname -srm; systemctl is-system-running || true; cat /proc/1/comm")
        report.ok("boot", f"agent up {boot_s:.0f} s after QEMU started; " + " | ".join(kernel.split()))
        report.figure("boot (QEMU start to the agent, TCG)", f"{boot_s:.1f} s")
        _, state = vm.sh("systemctl is-system-running --wait", timeout=300, check=False)
        report.info(f"systemd: {state.strip()}")
        vm.sh(f"mkdir -p {DATA} && mount -o ro /dev/vdb {DATA}")
        _, snd = vm.sh("cat /proc/asound/cards || true")
        if "Loopback" not in snd:
            raise Failed(f"snd-aloop is not loaded (no ALSA card for pygame): {snd.strip()}")
        report.ok("ALSA", "snd-aloop (Debian's arm64 kernel has no snd-dummy): " + snd.strip().splitlines()[0])

        report.step("install.sh --profile bus-16 --offline (as a club without internet)")
        t0 = time.monotonic()
        rc, out = vm.sh(f"{DATA}/tree-1/systemd/install.sh --profile bus-16 --offline {DATA}/offline", timeout=2400,
                        check=False)
        (run_dir / "install-1.log").write_text(out)
        if rc != 0:
            raise Failed(f"install.sh exited {rc}; the end of its output:\n{out[-2500:]}")
        report.ok("install.sh --offline", f"{time.monotonic() - t0:.0f} s; log {run_dir}/install-1.log")
        report.figure("install.sh --offline in the VM", f"{time.monotonic() - t0:.0f} s")
        # what install.sh must have set up, before the test changes anything
        vm.sh("test -f /etc/tianhei/tianhei.toml && test -f /var/lib/tianhei/remote.key && "
              "test \"$(stat -c %a /var/lib/tianhei/remote.key)\" = 600 && test -x /opt/tianhei/.venv/bin/tianhei "
              "&& systemctl is-enabled tianhei && id tianhei")
        report.ok("installed", "config, remote key (0600), venv, tianhei user, the unit enabled")

        if bus:
            report.step("the service on the bus: /dev/ttyAMA0, the seat nodes on the host (the installed unit as is)")
            setup = (f"install -m 0644 {DATA}/tree-1/hardware/system-test/tianhei.toml /etc/tianhei/tianhei.toml && "
                     f"install -m 0644 {DATA}/tree-1/hardware/system-test/bus-8-tty.toml /etc/tianhei/ && ")
        else:
            report.step("the service on the simulated table (a drop-in: no seats are wired)")
            setup = (f"install -m 0644 {DATA}/system-test/system-test.toml /etc/tianhei/system-test.toml && "
                     f"mkdir -p /etc/systemd/system/tianhei.service.d && install -m 0644 "
                     f"{DATA}/system-test/dropin.conf /etc/systemd/system/tianhei.service.d/system-test.conf && ")
        vm.sh(setup +
              "mkdir -p /etc/tianhei/decks && printf '# a club deck (the upgrade must keep it)\\n' > "
              "/etc/tianhei/decks/system-test.toml && "
              "printf '\\n# edited by the club after install (the upgrade must keep it)\\n' >> /etc/tianhei/tianhei.toml"
              f" && systemctl stop tianhei; rm -f {JOURNAL} {JOURNAL}-wal {JOURNAL}-shm; systemctl daemon-reload && "
              "systemctl start --no-block tianhei")
        ready = wait_ready(vm, report, 300, "first start")
        report.figure("boot to READY (unit start to READY=1)", f"{ready:.1f} s (target <= 10 s)")
        mem = rss_mb(vm)
        report.figure("RSS of tianhei serve in the VM", f"{mem:.0f} MiB")
        _, silent = vm.sh("journalctl -u tianhei -b -o cat --no-pager | grep -m1 'no sound' || true")
        if silent.strip():
            raise Failed(f"the table runs silent in the VM, though ALSA has a card: {silent.strip()}")
        report.ok("sound", "the table opened ALSA's card (no 'no sound' in its log)")
        wait_for("the game's first events in the journal", lambda: progress(journal_state(vm)) >= 5, 600)
        report.ok("playing", f"the service plays {'over /dev/ttyAMA0' if bus else 'on the simulated table'}; "
                             "the journal fills")
        if bus:  # direction = "rts": Debian's kernel took the PL011's RS-485 mode (TIOCSRS485, read back)
            _, rs485 = vm.sh("journalctl -u tianhei -b -o cat --no-pager | grep -m1 'DE from RTS' || true")
            if not rs485.strip():
                raise Failed("the table on /dev/ttyAMA0 did not say it turns the line with RTS (Linux's RS-485 "
                             "mode); its log: journalctl -u tianhei")
            report.ok("RS-485 mode", f"the kernel's PL011 driver turns the line with RTS: {rs485.strip()}")

        report.step("watchdog: the table's process frozen (SIGSTOP)")
        _, wd = vm.sh("systemctl show -p WatchdogUSec --value tianhei")
        pid = service_pid(vm)
        before = progress(journal_state(vm))
        stopped_at = time.monotonic()
        vm.sh(f"kill -STOP {pid}")
        report.info(f"SIGSTOP to {pid} with {before} records; WatchdogSec={wd.strip()}")

        def restarted() -> bool:
            new = service_pid(vm)
            _, act = vm.sh("systemctl is-active tianhei", check=False)
            return new not in (0, pid) and act.strip() == "active"

        wait_for("systemd restarts the frozen table", restarted, 180, every=1.0)
        took = time.monotonic() - stopped_at
        _, jl = vm.sh("journalctl -u tianhei -o cat --no-pager | grep -i -m1 watchdog || true")
        if "watchdog" not in jl.lower():
            raise Failed(f"the table was restarted but systemd's log names no watchdog timeout: {jl.strip()}")
        _, status = vm.sh("systemctl show -p StatusText --value tianhei")
        wait_for("the game goes on after the watchdog's restart", lambda: progress(journal_state(vm)) > before + 2,
                 240)
        report.ok("watchdog", f"{jl.strip()}; active again {took:.0f} s after SIGSTOP; status '{status.strip()}'")
        report.figure("SIGSTOP to READY again (WatchdogSec + RestartSec + start)", f"{took:.0f} s")

        if args.cuts <= 0:
            report.fail("power cuts", "left out (--cuts 0): the resume after a power cut is not proven by this run")
        else:
            power_cuts(vm, report, args.cuts)

        report.step("the game to its end")
        final = wait_for("game 1 ends", lambda: (lambda s: s if s["ended"] else None)(journal_state(vm)), 900, 5)
        report.info(f"game 1 over in the VM: {winner(final)}; {final['counts']}")
        if final["integrity"] != "ok":
            raise Failed(f"the journal's integrity check: {final['integrity']}")
        assert reference is not None
        reference.join(timeout=900)
        if reference.state is None:
            raise Failed(reference.error or "the reference game did not finish")
        kinds = ("event",) if bus else ("input", "event")
        mine, theirs = same_moves(game_records(final, kinds)), same_moves(game_records(reference.state, kinds))
        if mine != theirs:
            first = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                         min(len(mine), len(theirs)))
            (run_dir / "vm-game.json").write_text(json.dumps(mine, indent=0))
            (run_dir / "reference-game.json").write_text(json.dumps(theirs, indent=0))
            raise Failed(f"the cut game differs from the uncut one at record {first} of {len(mine)}/{len(theirs)}"
                         f": VM {mine[first] if first < len(mine) else '(end)'} vs uncut "
                         f"{theirs[first] if first < len(theirs) else '(end)'}")
        if nodes is not None:
            try:
                nodes.wait(300)
            except subprocess.TimeoutExpired as exc:
                raise Failed("the seat nodes did not see the game end on their screens") from exc
            summary_line = (run_dir / "seat-nodes.json").read_text().strip()
            if nodes.returncode != 0:
                raise Failed(f"tianhei seat-nodes exited {nodes.returncode}: {summary_line[-500:]}")
            seen = json.loads(summary_line)
            lat = seen.get("latency_ms", {})
            report.ok("tty game", f"a whole game over /dev/ttyAMA0: the nodes saw {seen.get('winners')}, "
                                  f"{seen.get('presses')} presses, {seen.get('screens')} screens")
            report.figure("press latency over the emulated UART (press to the seat's next frame)",
                          f"p50 {lat.get('p50')} ms, p99 {lat.get('p99')} ms, max {lat.get('max')} ms "
                          f"(n={lat.get('n')}; informational: TCG)")
        report.ok("same game", f"{len(mine)} {'events' if bus else 'inputs and events'} equal to the uncut game with seed {bus_seed() if bus else SEED}; "
                               f"outcome {winner(final)} = {winner(reference.state)}")

        upgrade(vm, report, "/etc/tianhei/bus-8-tty.toml" if bus else "/etc/tianhei/system-test.toml")
        report.step("shut down; ext4 checked from outside")
        vm.shutdown()
        fsck(root, run_dir, report)
        pico_game(report, run_dir)
    except (Failed, VMError) as exc:
        report.fail("system test", str(exc))
        if vm is not None:
            report.info(f"console log of the last boot: {vm.console_log}")
    except KeyboardInterrupt:
        report.fail("system test", "interrupted")
    finally:
        if vm is not None and vm.alive():
            vm.power_cut()
        if nodes is not None and nodes.poll() is None:
            nodes.terminate()
            nodes.wait(30)
    return summary(report, run_dir, args.keep)


def power_cuts(vm: VM, report: Report, cuts: int) -> None:
    """SIGKILL QEMU at ``cuts`` points of the game, each a different moment: while the table plays, while the
    journal is being written, while the service is starting (resuming) after a boot; boot again each time."""
    step = 6  # records of progress between two cuts: every cut leaves some game to be played after it
    for n in range(1, cuts + 1):
        kind = {3: "journal write", 4: "service starting"}.get(n, "playing")
        report.step(f"power cut {n}/{cuts} ({kind})")
        state = journal_state(vm)
        if state["ended"]:
            raise Failed(f"the game ended before cut {n}: make the cuts closer together")
        at = progress(state)
        if kind == "journal write":
            cut = threading.Event()
            assert vm.agent is not None

            def on_change(reply: dict[str, Any], cut: threading.Event = cut) -> None:
                if "changed" in reply:
                    vm.power_cut()  # as soon as the guest sees the WAL grow: the write is on its way to the disk
                cut.set()

            vm.agent.send({"watch": f"{JOURNAL}-wal", "timeout": 300}, on_change)
            if not cut.wait(320) or vm.alive():
                raise Failed("the journal's WAL did not change within 300 s")
            report.info(f"cut while the WAL was being written (after {at}+ records)")
        elif kind == "service starting":
            # the table restarted (as after a crash or the watchdog), cut while it reads the journal to resume
            vm.sh("systemctl restart --no-block tianhei")

            def starting() -> bool:
                _, out = vm.sh("systemctl is-active tianhei", check=False)
                return out.strip() == "activating"

            wait_for("the service starting again", starting, 60, every=0.2)
            vm.power_cut()
            report.info("cut while the service was starting (reading the journal to resume)")
        else:
            wait_for(f"{step} more records before cut {n}", lambda at=at: progress(journal_state(vm)) >= at + step,
                     300, every=1.0)
            vm.power_cut()
            report.info(f"cut while playing (after {at + step}+ records)")
        boot = vm.boot()
        vm.sh(f"mkdir -p {DATA} && mount -o ro /dev/vdb {DATA}")
        ready = wait_ready(vm, report, 300, f"after cut {n}")
        _, ext4 = vm.sh("{ journalctl -k -b -o cat --no-pager | grep -E 'EXT4-fs \\(vda\\)'; "
                        "journalctl -b -u systemd-fsck-root -o cat --no-pager; } || true")
        _, status = vm.sh("systemctl show -p StatusText --value tianhei")
        after = journal_state(vm)
        if after["integrity"] != "ok":
            raise Failed(f"the journal after cut {n}: {after['integrity']}")
        if not after["ended"] and "resum" not in status.lower():
            raise Failed(f"after cut {n} the service did not resume the game: status '{status.strip()}'")
        recovered = any(w in ext4 for w in ("recovery complete", "recovering journal", "orphan"))
        report.ok(f"power cut {n}", f"booted in {boot:.0f} s, READY {ready:.1f} s after the unit started, "
                                    f"'{status.strip()}', journal ok with {progress(after)} records"
                                    f"{', ext4 journal replayed' if recovered else ''}")


def upgrade(vm: VM, report: Report, config: str) -> None:
    report.step("upgrade: install.sh again from a newer tree")
    keep = f"/etc/tianhei/tianhei.toml {config} /etc/tianhei/decks/system-test.toml /var/lib/tianhei/remote.key"
    _, before = vm.sh(f"sha256sum {keep}; cat /opt/tianhei/SYSTEM-TEST-TREE")
    old = game_records(journal_state(vm))
    rc, out = vm.sh(f"{DATA}/tree-2/systemd/install.sh --profile bus-16 --offline {DATA}/offline", timeout=1800,
                    check=False)
    (vm.run_dir / "install-2.log").write_text(out)
    if rc != 0:
        raise Failed(f"the upgrade's install.sh exited {rc}:\n{out[-2500:]}")
    _, after = vm.sh(f"sha256sum {keep}; cat /opt/tianhei/SYSTEM-TEST-TREE")
    if before.splitlines()[:-1] != after.splitlines()[:-1]:
        raise Failed(f"the upgrade changed what it must keep:\nbefore\n{before}\nafter\n{after}")
    if after.splitlines()[-1].strip() != "2":
        raise Failed("the upgrade did not install the newer tree (/opt/tianhei/SYSTEM-TEST-TREE is not 2)")
    wait_ready(vm, report, 300, "after the upgrade")
    if game_records(journal_state(vm))[:len(old)] != old:
        raise Failed("the upgrade changed the journal's finished game")
    report.ok("upgrade", "newer code in /opt/tianhei; config, deck, remote key unchanged (sha256); the journal's "
                         "game kept; the service up again")


def fsck(root: Path, run_dir: Path, report: Report) -> None:
    raw = run_dir / "root-check.raw"
    chk = subprocess.run(["qemu-img", "check", str(root)], capture_output=True, text=True)
    subprocess.run(["qemu-img", "convert", "-O", "raw", str(root), str(raw)], check=True)
    done = subprocess.run(["e2fsck", "-fn", str(raw)], capture_output=True, text=True)
    raw.unlink()
    if done.returncode != 0:
        raise Failed(f"e2fsck -fn of the VM's disk after the power cuts: exit {done.returncode}\n{done.stdout[-1500:]}")
    report.ok("ext4", f"e2fsck -fn clean after every cut ({done.stdout.strip().splitlines()[-1]}); "
                      f"qemu-img check: {chk.stdout.strip().splitlines()[-1] if chk.stdout.strip() else chk.returncode}")


def pico_game(report: Report, run_dir: Path) -> None:
    """The whole game at a table with two seats on emulated Picos (tests/nodes/test_pico_game.py), on the host
    once the VM is off: its minute of emulation would not fit in ./dev test."""
    report.step("a whole game with seats 2 and 5 on emulated Picos (the rp2 image; on the host)")
    t0 = time.monotonic()
    log = run_dir / "pico-game.log"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "whole_game",
                           str(ROOT / "tests/nodes/test_pico_game.py")], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, TIANHEI_PICO_GAME="1"))
    log.write_text(done.stdout + done.stderr)
    took = time.monotonic() - t0
    if done.returncode != 0:
        last = (done.stdout.strip().splitlines() or ["no output"])[-1]
        report.fail("Pico game", f"pytest exited {done.returncode} ({last}); log {log}")
        return
    report.ok("Pico game", f"played to its end, the same game as with micropython seats ({took:.0f} s)")
    report.figure("a whole game with two emulated Picos (host)", f"{took:.0f} s")


def summary(report: Report, run_dir: Path, keep: bool) -> int:
    total = time.monotonic() - report.started
    print("\n== system test summary", flush=True)
    for name, value in report.figures:
        print(f"   figure  {name}: {value}")
    failed = [r for r in report.results if not r[1]]
    for name, good, detail in report.results:
        print(f"   {'ok  ' if good else 'FAIL'}    {name}" + ("" if good else f": {detail.splitlines()[0]}"))
    print(f"   total {total / 60:.1f} min; logs in {run_dir}")
    passed = len(report.results) - len(failed)
    print(f"system-test: {passed} passed, {len(failed)} failed")
    if not failed and not keep:
        shutil.rmtree(run_dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
