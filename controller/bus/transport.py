"""The bus master's byte pipe: what the master needs of the line (:class:`Transport`) and the serial port that
provides it on the table (:class:`SerialTransport`); the simulator's ``SimBus`` is the other one.

Kept apart from the master because it is the one piece that touches the operating system (file descriptors,
``select``, a wake-up pipe), and the rest of the bus runs the same on a simulated clock.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable
from typing import Protocol


class Transport(Protocol):
    """A byte pipe to the bus plus the clock it runs on (real for a serial port, simulated for the sim)."""

    def write(self, data: bytes) -> None: ...

    def read(self, timeout: float) -> bytes:
        """Bytes received so far, waiting up to ``timeout`` seconds for the first; b"" if none came."""

    def now(self) -> float: ...


class SerialTransport:
    """A pyserial port (``/dev/ttyAMA0``, ``/dev/ttyUSB0``, or ``loop://`` in tests).

    The master makes thousands of exchanges a second, so each one should cost the host as little as it can: on a
    port with a file descriptor the bytes go with one ``os.write`` and come back after one ``select`` and one
    ``os.read``. pyserial's own ``read`` would re-set the port's termios on every change of timeout and ask the
    driver how much is waiting; its ``flush`` waits for the UART to drain, which the reply's own arrival
    already proves. pyserial still opens and configures the port (baud, raw mode), whatever it is.
    """

    def __init__(self, port: object, clock: Callable[[], float] | None = None) -> None:
        import time

        self.port = port
        self._clock = clock or time.monotonic
        fileno = getattr(port, "fileno", None)
        try:
            self._fd: int | None = fileno() if fileno is not None else None
        except Exception:  # a pyserial URL handler (loop://) has no descriptor
            self._fd = None
        #: A pipe that ``wake`` writes to, read by ``read`` alongside the port: another thread queued a command
        #: while the master sleeps through a LISTEN window.
        self._wake_r = self._wake_w = -1
        if self._fd is not None:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)

    @property
    def can_wake(self) -> bool:
        return self._wake_w >= 0

    def wake(self) -> None:
        """Make a ``read`` that is waiting (or the next one) return at once (from any thread)."""
        if self._wake_w >= 0:
            with contextlib.suppress(BlockingIOError):  # the pipe is full of wake-ups already
                os.write(self._wake_w, b"!")

    @classmethod
    def open(cls, url: str, baud: int) -> SerialTransport:
        import serial

        return cls(serial.serial_for_url(url, baudrate=baud, timeout=0))

    def write(self, data: bytes) -> None:
        if self._fd is not None:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            return
        self.port.write(data)  # type: ignore[attr-defined]
        self.port.flush()  # type: ignore[attr-defined]

    def read(self, timeout: float) -> bytes:
        if self._fd is not None:
            ready, _, _ = select.select((self._fd, self._wake_r), (), (), max(0.0, timeout))
            if not ready:
                return b""
            if self._wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 64)
                if self._fd not in ready:
                    return b""
            try:
                return os.read(self._fd, 4096)
            except BlockingIOError:
                return b""
        port = self.port
        port.timeout = timeout  # type: ignore[attr-defined]
        first: bytes = port.read(1)  # type: ignore[attr-defined]
        if not first:
            return b""
        waiting = port.in_waiting  # type: ignore[attr-defined]
        return first + (port.read(waiting) if waiting else b"")  # type: ignore[attr-defined]

    def now(self) -> float:
        return self._clock()

