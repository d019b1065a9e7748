"""The bus master's byte pipe: what the master needs of the line (:class:`Transport`) and the serial port that
provides it on the table (:class:`SerialTransport`); the simulator's ``SimBus`` is the other one.

Kept apart from the master because it is the one piece that touches the operating system (file descriptors,
``select``, a wake-up pipe), and the rest of the bus runs the same on a simulated clock.
"""

from __future__ import annotations

import array
import contextlib
import errno
import fcntl
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
    def open(cls, url: str, baud: int, clock: Callable[[], float] | None = None,
             rts_direction: bool = False) -> SerialTransport:
        """``rts_direction``: the port's RTS line drives the transceiver's DE and /RE (``[bus] direction = "rts"``),
        raised by Linux while the UART sends: :func:`drive_de_from_rts`."""
        import serial

        def reopen() -> object:
            port = serial.serial_for_url(url, baudrate=baud, timeout=0)
            if rts_direction:
                drive_de_from_rts(port, url)
            return port

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


class NoRS485Mode(OSError):
    """The port's driver has no RS-485 mode (a pty, a USB adapter's driver), or would not turn it on."""


def drive_de_from_rts(port: object, name: str) -> None:
    """Put the port in Linux's RS-485 mode (the ``TIOCSRS485`` ioctl, through pyserial's ``rs485_mode``): the
    kernel's UART driver raises RTS before the first byte of every write and drops it as the last stop bit leaves,
    so RTS wired to the transceiver's DE and /RE turns the line around with no latency timer in the way (the Pi's
    PL011, ``/dev/ttyAMA0``; firmware/PROTOCOL.md, "Slot timing"). RTS is high while sending, low otherwise, so the
    transceiver listens whenever the Pi does not speak. The mode is read back, since a driver may take the ioctl
    and ignore it."""
    import serial.rs485

    try:
        port.rs485_mode = serial.rs485.RS485Settings(  # type: ignore[attr-defined]
            rts_level_for_tx=True, rts_level_for_rx=False, delay_before_tx=0.0, delay_before_rx=0.0)
        flags = rs485_flags(port)
    except (ValueError, NotImplementedError, OSError) as exc:
        with contextlib.suppress(Exception):
            port.close()  # type: ignore[attr-defined]
        raise NoRS485Mode(errno.ENOTTY, f"{name} has no RS-485 mode for RTS to drive the transceiver's DE ({exc}); "
                                        f"use the Pi's PL011 UART (/dev/ttyAMA0, docs/hardware.md) or, with a USB "
                                        f"adapter that turns the line itself, [bus] direction = \"auto\"") from exc
    if flags is not None and not flags & _SER_RS485_ENABLED:
        with contextlib.suppress(Exception):
            port.close()  # type: ignore[attr-defined]
        raise NoRS485Mode(errno.ENOTTY, f"{name} took the RS-485 settings but did not turn RS-485 mode on; use the "
                                        f"Pi's PL011 UART (/dev/ttyAMA0, docs/hardware.md)")
    log.info("seat bus: %s drives the transceiver's DE from RTS (Linux RS-485 mode, RTS high while sending)", name)


_TIOCGRS485 = 0x542E
_SER_RS485_ENABLED = 0x1


def rs485_flags(port: object) -> int | None:
    """The driver's RS-485 flags as it now has them (``TIOCGRS485``); None for a port without a descriptor."""
    try:
        fd = port.fileno()  # type: ignore[attr-defined]
    except Exception:  # a pyserial URL handler (loop://) has no descriptor
        return None
    buf = array.array("i", [0] * 8)  # struct serial_rs485: flags, delay before, delay after, padding
    fcntl.ioctl(fd, _TIOCGRS485, buf)
    return int(buf[0])
