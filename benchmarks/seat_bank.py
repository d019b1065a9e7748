"""The far end of the seat bus for the real-clock benchmarks: benchmarks/bus_nodes.py (the firmware's ``Node``
for each seat, under CPython) on a pseudo-terminal whose other end the table's master opens as its serial port.
One place starts it, starts its finger and takes what it printed, for bus_idle_cpu.py and bus_timing.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

NODES = Path(__file__).with_name("bus_nodes.py")


class SeatBank:
    """``seats`` nodes behind the pty :attr:`port`; with ``press_every`` > 0, :meth:`press` starts a finger."""

    def __init__(self, seats: int, press_every: float = 0.0, baud: int = 1_000_000) -> None:
        """``baud``: the line speed the nodes count their slots' room in (their config.json's ``uart.baud``)."""
        master_fd, self._slave_fd = os.openpty()
        self._proc = subprocess.Popen([sys.executable, str(NODES), str(master_fd), str(seats), str(press_every),
                                       str(baud)],
                                      pass_fds=(master_fd,), stdout=subprocess.PIPE, text=True)
        os.close(master_fd)
        self.port = os.ttyname(self._slave_fd)
        # Its nodes are made before the master starts: a master that polls a bank still importing counts the
        # seats it asked first as down (they come up later), which is not what a run measures.
        assert self._proc.stdout is not None
        if self._proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the seat bank did not start (its traceback is above)")

    def press(self) -> None:
        """The finger starts pressing (SIGUSR1)."""
        self._proc.send_signal(signal.SIGUSR1)

    def running(self) -> bool:
        """Is the bank's process still there (a node that raised ends it, its traceback on stderr)?"""
        return self._proc.poll() is None

    def close(self) -> list[list[str]]:
        """Stop the bank (after the master let go of the port); its printed lines, split into words."""
        os.close(self._slave_fd)
        self._proc.kill()
        out, _ = self._proc.communicate()
        return [line.split() for line in out.splitlines()]

    def presses(self, lines: list[list[str]]) -> list[tuple[int, float]]:
        """(seat, monotonic time) of each press the finger made."""
        return [(int(words[1]), float(words[2])) for words in lines if words[:1] == ["press"]]
