"""A bank of seat nodes on one serial line, for benchmarks on the real clock: the real firmware's ``Node`` (from
firmware/lib) for each address, under CPython, on a pseudo-terminal that the table's bus master opens as its
serial port. Every node sees every byte on the line (RS-485 is a party line) and answers only its own frames, as
on the table. Nothing here is timed for wire speed: a pty moves bytes at once, so the master's pace is its own;
but an answer in a slot (LISTEN, POLL_ALL) goes out at its slot's time, and the bank steps a node that wants to
answer when it asks, so the master sleeps through its window as it would on the table.

On the table each node is its own chip. One process stands in for all of them here, so a node's wait for its slot
must not hold up the others: an answer for a later slot is kept (``Line.due``) and written when its moment comes,
while the bank goes on stepping every node. (Until this was so, a seat whose slot came after a neighbour's in the
same round, both with news from one pass, missed its slot while the bank slept for the neighbour's, and waited a
round more: the figure measured the bank, not the table.) A frame from the master in the master slot an answer's
wait watches ends the window: the answer is dropped, as the chip's machine-code wait (firmware/lib/rp2send.py)
keeps quiet then.

    python benchmarks/bus_nodes.py FD SEATS [PRESS_EVERY [BAUD]]   (started by benchmarks/seat_bank.py with the
                                                                  pty's master fd)

With PRESS_EVERY (seconds), once the bank gets SIGUSR1 a finger presses PREV on one seat after another, at random
moments about PRESS_EVERY apart (and lets go 60 ms later), and each press is printed as ``press SEAT MONOTONIC``
on stdout, and each EVENTS frame with news as ``sent ADDRESS MONOTONIC`` once written: the benchmark times the
press to the master on the same clock.
"""

from __future__ import annotations

import os
import random
import select
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "firmware" / "lib"))

import seatbus as sb
from node import Node


class Line:
    """The shared line: what arrived this pass is read by every node; what a node writes goes out at once."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.rx = b""
        self.given: dict[int, int] = {}  # how much of ``rx`` each node's buffer has had
        self.slot_timed = True  # each node answers at its slot's moment on this clock (CAP_SLOT_TIMED)
        self.timed = True  # every frame's end on the line is known (rs485.py's ``timed``): a pty hands it over at once
        #: Print ``sent ADDRESS MONOTONIC`` when a node's EVENTS frame with news has gone into the pty (set once
        #: presses begin): the benchmark splits a press's time into the wait for the slot and the host's part.
        self.trace = False
        #: Answers for slots still to come: (moment on ``us``'s clock, frame, the start of the master slot its
        #: wait watches or None).
        self.due: list[tuple[int, bytes, int | None]] = []

    def _out(self, data: bytes) -> None:
        at = time.monotonic()  # before the write: the master may read the bytes before this process goes on
        os.write(self.fd, data)
        if self.trace and len(data) > 5 and data[0] == sb.SYNC and data[4] == sb.EVENTS and data[5]:
            print(f"sent {data[2] & 0x7F} {at:.6f}", flush=True)

    def read(self) -> bytes | None:
        return self.rx or None

    def readinto(self, buf: bytearray, most: int) -> int:
        """What arrived this pass, to each node once (each reads into its own buffer, which tells them apart)."""
        pos = self.given.get(id(buf), 0)
        k = min(most, len(self.rx) - pos)
        if k <= 0:
            return 0
        buf[:k] = self.rx[pos : pos + k]
        self.given[id(buf)] = pos + k
        return k

    def waiting(self) -> bool:
        """True when the master's next bytes are already on the line (the node answers them before drawing)."""
        return bool(select.select([self.fd], [], [], 0)[0])

    def write(self, data: bytes) -> None:
        self._out(data)

    def write_at(self, deadline: int, data: bytes, watch: tuple[int, int] | None = None,
                 latest: int | None = None, again: tuple[int, int, int] | None = None) -> bool:
        """At its slot (``deadline`` on ``us``'s clock): kept until then (:meth:`send_due`), the other nodes
        stepped meanwhile, as each chip waits for its own slot while its neighbours wait for theirs."""
        if deadline <= self.us():
            self._out(data)
        else:
            self.due.append((deadline, data, watch[0] if watch else None))
            self.due.sort(key=lambda d: d[0])
        return True

    def due_in(self) -> float | None:
        """Seconds until the next kept answer's slot (None: none kept)."""
        return max(0.0, (self.due[0][0] - self.us()) / 1e6) if self.due else None

    def send_due(self) -> None:
        """Write the kept answers whose slot has come (the last few hundred microseconds spun, not slept: a
        wake-up from ``select`` lands up to a tenth of a millisecond late)."""
        while self.due:
            deadline, data, _ = self.due[0]
            ahead = deadline - self.us()
            if ahead > SPIN_US:
                return
            while self.us() < deadline:
                pass
            self.due.pop(0)
            self._out(data)

    def master_spoke(self) -> None:
        """The master's frame arrived: an answer whose wait watches the master slot it came in keeps quiet (the
        window it belonged to is over). One that watches none (the first round of a LISTEN window, whose second
        copy may arrive here now; a POLL_ALL's slot) waits on."""
        now = self.us()
        self.due = [d for d in self.due if d[2] is None or now < d[2]]

    def after(self, then: int, offset_us: int) -> int:
        return then + offset_us

    def us(self) -> int:
        return time.monotonic_ns() // 1000

    def read_at(self) -> int:
        """When the frame just read ended: a pty hands it over at once."""
        return self.us()

    def since(self, then: int) -> int:
        return self.us() - then


#: How close to a kept answer's slot the bank stops sleeping and spins.
SPIN_US = 300


class Part:
    """A screen, LED or reader that takes what it is given and does nothing (the benchmark measures the Pi)."""

    def set(self, rgb: object) -> None: ...

    def write(self, page: int, col: int, src: bytes, lo: int = 0, end: int = -1) -> None: ...

    def busy(self) -> bool:
        return False  # (a write is over when it returns)

    def command(self, cmds: bytes) -> None: ...

    def scan(self) -> None:
        return None


class IO:
    def __init__(self, line: Line) -> None:
        self.link = line
        self.buttons: list[object] = []
        self.led = Part()
        self.screen = Part()
        self.reader = Part()
        self.wdt = None

    def reset(self) -> None: ...


class Finger:
    """Presses PREV on one seat after another once started (SIGUSR1), at random moments ``every`` apart."""

    def __init__(self, nodes: list[Node], every: float) -> None:
        self.nodes = nodes
        self.every = every
        self.rng = random.Random(17)
        self.started = False
        self.next_at = float("inf")
        self.releases: list[tuple[float, Node]] = []
        self.turn = 0

    def start(self, *_: object) -> None:
        if not self.started and self.every > 0:
            self.started = True
            for node in self.nodes:
                node.io.link.trace = True
            self.next_at = time.monotonic() + self.rng.uniform(0.5, 1.5) * self.every

    def due_in(self) -> float:
        soonest = min([self.next_at, *(at for at, _ in self.releases)])
        return max(0.0, soonest - time.monotonic())

    def act(self, now_ms: int) -> None:
        t = time.monotonic()
        for at, node in [r for r in self.releases if r[0] <= t]:
            self.releases.remove((at, node))
            node._queue(sb.EV_RELEASE, now_ms, bytes((sb.BTN_PREV,)))
        if t >= self.next_at:
            node = self.nodes[self.turn % len(self.nodes)]
            self.turn += 1
            node._queue(sb.EV_PRESS, now_ms, bytes((sb.BTN_PREV,)))
            print(f"press {node.address} {t:.6f}", flush=True)
            self.releases.append((t + 0.06, node))
            self.next_at = t + self.rng.uniform(0.5, 1.5) * self.every


def main() -> int:
    fd, seats = int(sys.argv[1]), int(sys.argv[2])
    line = Line(fd)
    now = lambda: int(time.monotonic() * 1000)  # noqa: E731
    baud = int(sys.argv[4]) if len(sys.argv) > 4 else 1_000_000
    nodes = [Node({"role": "seat", "address": a, "uart": {"baud": baud}}, IO(line), now())
             for a in range(1, seats + 1)]
    finger = Finger(nodes, float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
    signal.signal(signal.SIGUSR1, finger.start)
    print("ready", flush=True)  # SeatBank waits for this before the master opens the line
    while True:
        wakes = [w / 1e6 for w in (node.wake_us() for node in nodes) if w is not None]
        due = line.due_in()
        if due is not None:
            wakes.append(max(0.0, due - SPIN_US / 1e6))
        ready, _, _ = select.select([fd], [], [], min([0.05, finger.due_in(), *wakes]))
        try:
            line.rx = os.read(fd, 4096) if ready else b""
            line.given.clear()
        except OSError:
            return 0  # the master closed its end
        if line.rx:
            line.master_spoke()
        line.send_due()
        t = now()
        finger.act(t)
        for node in nodes:
            node.step(t)
        line.rx = b""
    return 0


if __name__ == "__main__":
    sys.exit(main())
