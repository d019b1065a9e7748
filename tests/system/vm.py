"""One arm64 VM under QEMU (TCG: no KVM for aarch64 here), booted like a Pi: Debian's kernel, systemd as PID 1.

The machine is ``-M virt -cpu max``, its kernel and initramfs given straight to QEMU from the image (a Pi's
firmware does the same from its boot partition). It has no network. The host reaches it through:

* ``hvc0``, a virtio console: the kernel's and systemd's messages, captured to ``console-N.log`` (one per boot);
* a virtio-serial port ``tianhei.agent``: the test's agent (guest/agent.py) runs the commands written on it;
* the PL011 UART (``/dev/ttyAMA0``, the Pi's own UART): whatever ``serial`` says, e.g. a host socket where the
  seat nodes listen, or a file when nothing is wired to it;
* virtio disks: the root file system (a qcow2 overlay on the cached image, kept across the boots of one run as
  a Pi keeps its SD card) and read-only data disks (the checkout, the offline bundle).

A power cut is ``SIGKILL`` to QEMU: what the guest had not yet written out to its disk is lost, as in a real
cut; what it had (an fsync returns once QEMU has written the host file) survives.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Root mounted read-only first so that systemd-fsck-root checks it (after a power cut too), then read-write by
#: /etc/fstab, as Debian boots.
CMDLINE = "root=/dev/vda ro rootwait fsck.repair=yes systemd.show_status=1 loglevel=4"


class VMError(Exception):
    """The VM did not do what the test waited for; the message says what, and where its console log is."""


class Agent:
    """The host's side of the agent's port: requests out, answers matched to them by id."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock: socket.socket | None = None
        self._ids = iter(range(1, 1 << 62))
        self._waiting: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self.hello = threading.Event()
        self.closed = False

    def connect(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(str(self.path))
                self.sock = s
                threading.Thread(target=self._read, daemon=True).start()
                return
            except OSError:
                time.sleep(0.1)  # QEMU runs on real time: a bounded poll of a real process
        raise VMError(f"QEMU's agent socket {self.path} never appeared")

    def _read(self) -> None:
        assert self.sock is not None
        buf = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                with self._lock:
                    for ev, box in self._waiting.values():
                        box.append({"error": "the VM went away"})
                        ev.set()
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if msg.get("hello"):
                    self.hello.set()
                with self._lock:
                    entry = self._waiting.pop(msg.get("id", -1), None)
                if entry is not None:
                    entry[1].append(msg)
                    entry[0].set()

    def request(self, req: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.sock is None or self.closed:
            raise VMError("the agent is not connected (the VM is down)")
        rid = next(self._ids)
        ev: threading.Event = threading.Event()
        box: list[dict[str, Any]] = []
        with self._lock:
            self._waiting[rid] = (ev, box)
        self.sock.sendall((json.dumps({"id": rid, **req}) + "\n").encode())
        if not ev.wait(timeout):
            with self._lock:
                self._waiting.pop(rid, None)
            raise VMError(f"the agent did not answer {req} within {timeout:.0f} s")
        return box[0]

    def send(self, req: dict[str, Any], then: Callable[[dict[str, Any]], None]) -> None:
        """A request whose answer is handed to ``then`` on the reader's thread (the watch for a power cut)."""
        if self.sock is None:
            raise VMError("the agent is not connected")
        rid = next(self._ids)
        ev = threading.Event()
        box: list[dict[str, Any]] = []
        with self._lock:
            self._waiting[rid] = (ev, box)

        def wait() -> None:
            ev.wait()
            then(box[0])

        threading.Thread(target=wait, daemon=True).start()
        self.sock.sendall((json.dumps({"id": rid, **req}) + "\n").encode())

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


class VM:
    def __init__(self, image: Path, root_disk: Path, run_dir: Path, data_disks: tuple[Path, ...] = (),
                 serial: str | None = None, memory_mb: int = 2048, cpus: int = 2) -> None:
        self.image = image
        self.root_disk = root_disk
        self.run_dir = run_dir
        self.data_disks = data_disks
        self.serial = serial
        self.memory_mb = memory_mb
        self.cpus = cpus
        self.boots = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.agent: Agent | None = None
        self.started_at = 0.0

    @property
    def console_log(self) -> Path:
        return self.run_dir / f"console-{self.boots}.log"

    def command(self) -> list[str]:
        sock = self.run_dir / "agent.sock"
        cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", "max", "-smp", str(self.cpus), "-m", str(self.memory_mb),
               "-accel", "tcg,thread=multi", "-display", "none", "-nodefaults", "-no-reboot", "-monitor", "none",
               "-kernel", str(self.image / "vmlinuz"), "-initrd", str(self.image / "initrd.img"),
               # the kernel's own messages also on the UART while nothing is wired to it (they are in the log).
               # On the bus the UART is the seats' alone; the kernel still needs an initial console before the
               # virtio_console module gives hvc0 (with none, the initramfs hangs, silently): the VT's tty0.
               "-append", CMDLINE + (" console=ttyAMA0 console=hvc0" if self.serial is None
                                     else " console=tty0 console=hvc0"),
               "-drive", f"if=none,id=root,file={self.root_disk},format=qcow2,cache=writeback",
               "-device", "virtio-blk-pci,drive=root"]
        for i, disk in enumerate(self.data_disks):
            cmd += ["-drive", f"if=none,id=data{i},file={disk},format=raw,readonly=on",
                    "-device", f"virtio-blk-pci,drive=data{i}"]
        cmd += ["-device", "virtio-rng-pci",
                "-device", "virtio-serial-pci",
                "-chardev", f"file,id=con,path={self.console_log}", "-device", "virtconsole,chardev=con",
                "-chardev", f"socket,id=agent,path={sock},server=on,wait=off",
                "-device", "virtserialport,chardev=agent,name=tianhei.agent",
                "-serial", self.serial or f"file:{self.run_dir / f'ttyAMA0-{self.boots}.log'}"]
        return cmd

    def boot(self, timeout: float = 600) -> float:
        """Start QEMU and wait for the agent (systemd has come far enough to start it); returns the seconds."""
        if self.proc is not None and self.proc.poll() is None:
            raise VMError("the VM is already running")
        self.boots += 1
        sock = self.run_dir / "agent.sock"
        sock.unlink(missing_ok=True)
        cmd = self.command()
        (self.run_dir / f"qemu-{self.boots}.cmd").write_text(" ".join(cmd) + "\n")
        with open(self.run_dir / f"qemu-{self.boots}.log", "wb") as qlog:
            self.started_at = time.monotonic()
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=qlog, stderr=subprocess.STDOUT)
        deadline = self.started_at + timeout
        self.agent = Agent(sock)
        while not sock.exists():
            if self.proc.poll() is not None:
                raise VMError(f"QEMU exited at once ({self.proc.returncode}): {self.run_dir}/qemu-{self.boots}.log")
            if time.monotonic() > deadline:
                raise VMError("QEMU did not start")
            time.sleep(0.05)  # QEMU runs on real time: a bounded poll of a real process
        self.agent.connect(deadline)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise VMError(f"the VM stopped while booting (exit {self.proc.returncode}); {self.console_log}")
            if self.agent.hello.wait(1.0):
                return time.monotonic() - self.started_at
            try:
                self.agent.request({"ping": True}, timeout=2)
                return time.monotonic() - self.started_at
            except VMError:
                continue
        raise VMError(f"the VM did not come up within {timeout:.0f} s; its console: {self.console_log}")

    def sh(self, command: str, timeout: float = 300, check: bool = True) -> tuple[int, str]:
        """Run ``command`` in the VM as root (bash); ``check``: a non-zero exit is an error with its output."""
        assert self.agent is not None
        reply = self.agent.request({"sh": command, "timeout": timeout}, timeout + 30)
        if "error" in reply:
            raise VMError(f"in the VM, `{command}`: {reply['error']}")
        rc, out = int(reply["rc"]), str(reply["out"])
        if check and rc != 0:
            raise VMError(f"in the VM, `{command}` exited {rc}:\n{out[-3000:]}")
        return rc, out

    def power_cut(self) -> None:
        """Pull the plug: SIGKILL to QEMU, no shutdown of any kind."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        if self.agent is not None:
            self.agent.close()

    def shutdown(self, timeout: float = 180) -> None:
        """A clean power-off (systemctl poweroff), then QEMU exits."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            assert self.agent is not None
            self.agent.send({"sh": "systemctl poweroff", "timeout": 30}, lambda _r: None)
            self.proc.wait(timeout)
        except (VMError, subprocess.TimeoutExpired, OSError):
            self.power_cut()
        if self.agent is not None:
            self.agent.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None
