"""The bus master's byte pipe: what the master needs of the line (:class:`Transport`) and the serial port that
provides it on the table (:class:`SerialTransport`); the simulator's ``SimBus`` is the other one.

Kept apart from the master because it is the one piece that touches the operating system (file descriptors,
``select``, a wake-up pipe), and the rest of the bus runs the same on a simulated clock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)

#: How often a port that went away (a USB adapter pulled, a pty whose other end closed) is tried again.
REOPEN_EVERY_S = 1.0


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

    def __init__(self, port: object, clock: Callable[[], float] | None = None,
                 reopen: Callable[[], object] | None = None, name: str = "") -> None:
        self._clock = clock or time.monotonic
        #: How to open the port again once it went away (``open`` knows its URL); None: it stays lost.
        self._reopen = reopen
        self.name = name or str(getattr(port, "port", "") or "the bus port")
        #: When the port went away (None while it is there), and when it is next tried again.
        self.lost_since: float | None = None
        self._retry_at = 0.0
        #: A pipe that ``wake`` writes to, read by ``read`` alongside the port: another thread queued a command
        #: while the master sleeps through a LISTEN window.
        self._wake_r = self._wake_w = -1
        self._attach(port)

    def _attach(self, port: object) -> None:
        self.port = port
        fileno = getattr(port, "fileno", None)
        try:
            self._fd: int | None = fileno() if fileno is not None else None
        except Exception:  # a pyserial URL handler (loop://) has no descriptor
            self._fd = None
        if self._fd is not None and self._wake_r < 0:
            self._wake_r, self._wake_w = os.pipe()
            os.set_blocking(self._wake_r, False)
            os.set_blocking(self._wake_w, False)

    def _lost(self, exc: OSError) -> None:
        """The port failed under us (EIO/ENXIO: the adapter was pulled or its cable cut at the USB end). The
        table goes on as with a cut bus cable — the seats count as unreachable, nothing is sent — and the port is
        tried again every REOPEN_EVERY_S; one line now, one when it is back."""
        self.lost_since = self._clock()
        self._retry_at = self.lost_since + REOPEN_EVERY_S
        log.warning("seat bus: %s went away (%s); the seats are unreachable until it is back%s", self.name,
                    exc.strerror or exc, ", trying it again every second" if self._reopen else "")
        with contextlib.suppress(Exception):
            self.port.close()  # type: ignore[attr-defined]
        self._fd = None

    def _try_again(self) -> bool:
        """While lost: open the port again when it is time; True once it is back."""
        if self._reopen is None or self._clock() < self._retry_at:
            return False
        self._retry_at = self._clock() + REOPEN_EVERY_S
        try:
            port = self._reopen()
        except (OSError, ValueError):  # pyserial's SerialException is an OSError
            return False
        self._attach(port)
        log.warning("seat bus: %s is back after %.0f s", self.name, self._clock() - (self.lost_since or 0.0))
        self.lost_since = None
        return True

    @property
    def can_wake(self) -> bool:
        return self._wake_w >= 0

    def wake(self) -> None:
        """Make a ``read`` that is waiting (or the next one) return at once (from any thread)."""
        if self._wake_w >= 0:
            with contextlib.suppress(BlockingIOError):  # the pipe is full of wake-ups already
                os.write(self._wake_w, b"!")

    @classmethod
    def open(cls, url: str, baud: int, clock: Callable[[], float] | None = None) -> SerialTransport:
        import serial

        def reopen() -> object:
            return serial.serial_for_url(url, baudrate=baud, timeout=0)

        return cls(reopen(), clock=clock, reopen=reopen, name=url)

    def write(self, data: bytes) -> None:
        if self.lost_since is not None and not self._try_again():
            return  # on a lost port the bytes go nowhere, as on a cut cable
        try:
            if self._fd is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view) :]
                return
            self.port.write(data)  # type: ignore[attr-defined]
            self.port.flush()  # type: ignore[attr-defined]
        except BlockingIOError:
            return
        except OSError as exc:
            self._lost(exc)

    def read(self, timeout: float) -> bytes:
        if self.lost_since is not None and not self._try_again():
            self._wait(timeout)
            return b""
        try:
            return self._read(timeout)
        except OSError as exc:
            self._lost(exc)
            return b""

    def _wait(self, timeout: float) -> None:
        """A read on a lost port still takes its time (the master must not spin), and still wakes up early."""
        if self._wake_r >= 0:
            ready, _, _ = select.select((self._wake_r,), (), (), max(0.0, timeout))
            if ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 64)
        elif timeout > 0:
            time.sleep(timeout)  # a URL port without a descriptor: the master's own read timeout

    def _read(self, timeout: float) -> bytes:
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

