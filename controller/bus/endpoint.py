"""The host's end of a real serial line to a table: a pty this process makes, a tty or pty someone else made, or
a unix socket (QEMU's ``-serial unix:PATH,server`` / ``-chardev socket``, as server or as client).

``tianhei seat-nodes`` puts its firmware nodes behind one of these. The far side (the table's ``[bus] port``) may
go away and come back at any time: the table's process is killed and started again, the VM is powered off and
booted. So an endpoint never treats that as an error: :meth:`Endpoint.read` returns ``None`` when the line is
down, and :meth:`Endpoint.reconnect` (called now and then by the wire) brings it back when it can.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import termios
import tty
from pathlib import Path


class EndpointError(Exception):
    """The line cannot be set up at all (a path that is neither a tty nor a socket, no permission): one line."""


class Endpoint:
    """A byte pipe to the table; ``fileno`` is None while it is down."""

    name = "line"

    def fileno(self) -> int | None:
        raise NotImplementedError

    def read(self) -> bytes | None:
        """What arrived (b"" if nothing yet); None if the far side went away (the line is down now)."""
        fd = self.fileno()
        if fd is None:
            return None
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.ECONNRESET, errno.EPIPE):  # a pty's other side closed; a socket reset
                self.down()
                return None
            raise
        if not data:
            self.down()
            return None
        return data

    def write(self, data: bytes) -> bool:
        """Send ``data``; False if the line is down (the bytes are lost, as on a cut cable)."""
        fd = self.fileno()
        if fd is None:
            return False
        view = memoryview(data)
        try:
            while view:
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    import select

                    select.select((), (fd,), (), 0.05)
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.ECONNRESET, errno.EPIPE):
                self.down()
                return False
            raise
        return True

    def down(self) -> None:
        """The far side went away."""

    def reconnect(self) -> bool:
        """Try to bring the line back; True if it is up."""
        return self.fileno() is not None

    def close(self) -> None:
        pass


def _raw(fd: int) -> None:
    """Raw mode, no echo: the bytes the nodes send must never come back as if the table had sent them."""
    tty.setraw(fd, termios.TCSANOW)
    attrs = termios.tcgetattr(fd)
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


class PtyEndpoint(Endpoint):
    """A pty pair made here: the table opens the slave (its path is linked at ``link``); the nodes own the master.

    This process keeps the slave open too (it never reads it), so the master never sees the hang-up of a table
    that closes it or is killed: the line simply goes quiet until the table opens it again."""

    def __init__(self, link: Path) -> None:
        self.master, self.slave = os.openpty()
        _raw(self.slave)
        os.set_blocking(self.master, False)
        self.slave_path = os.ttyname(self.slave)
        self.link = link
        with contextlib.suppress(FileNotFoundError):
            if link.is_symlink() or link.exists():
                if not link.is_symlink():
                    raise EndpointError(f"--pty {link}: a file is already there (give a new path)")
                link.unlink()
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(self.slave_path)
        self.name = f"pty {link} -> {self.slave_path}"

    def fileno(self) -> int | None:
        return self.master

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.link.is_symlink() and os.readlink(self.link) == self.slave_path:
                self.link.unlink()
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class TtyEndpoint(Endpoint):
    """A tty or pty made by someone else (``socat``, a USB adapter, QEMU's ``-serial pty``), opened raw."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = f"tty {path}"
        self.fd: int | None = None
        if not self.reconnect():
            raise EndpointError(f"--connect {path}: cannot open it as a tty")

    def fileno(self) -> int | None:
        return self.fd

    def reconnect(self) -> bool:
        if self.fd is not None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return False
        try:
            _raw(fd)
        except termios.error as exc:
            os.close(fd)
            raise EndpointError(f"--connect {self.path}: not a tty ({exc})") from None
        self.fd = fd
        return True

    def down(self) -> None:
        self.close()

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


class UnixClient(Endpoint):
    """A unix socket served by someone else (QEMU ``-serial unix:PATH,server,nowait``): connect, and connect
    again whenever it goes (the VM was powered off and booted again)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = f"unix socket {path}"
        self.sock: socket.socket | None = None
        self.reconnect()

    def fileno(self) -> int | None:
        return self.sock.fileno() if self.sock is not None else None

    def reconnect(self) -> bool:
        if self.sock is not None:
            return True
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(str(self.path))
        except OSError:
            s.close()
            return False
        s.setblocking(False)
        self.sock = s
        return True

    def down(self) -> None:
        self.close()

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


class UnixServer(Endpoint):
    """A unix socket served here (QEMU connects: ``-serial unix:PATH`` without ``server``); one table at a time,
    and the next one accepted when it goes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.name = f"unix socket {path} (listening)"
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISSOCK(path.stat().st_mode):
                raise EndpointError(f"--listen {path}: a file that is not a socket is already there")
            path.unlink()
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen(1)
        self.server.setblocking(False)
        self.sock: socket.socket | None = None

    def fileno(self) -> int | None:
        return self.sock.fileno() if self.sock is not None else None

    def reconnect(self) -> bool:
        if self.sock is not None:
            return True
        try:
            conn, _ = self.server.accept()
        except BlockingIOError:
            return False
        conn.setblocking(False)
        self.sock = conn
        return True

    def down(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def close(self) -> None:
        self.down()
        self.server.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def open_endpoint(connect: Path | None = None, pty: Path | None = None, listen: Path | None = None) -> Endpoint:
    """The endpoint the options name (exactly one of them): ``connect`` a tty or a unix socket by what it is."""
    if sum(x is not None for x in (connect, pty, listen)) != 1:
        raise EndpointError("give exactly one of --connect PATH, --pty PATH, --listen PATH")
    if pty is not None:
        return PtyEndpoint(pty)
    if listen is not None:
        return UnixServer(listen)
    assert connect is not None
    try:
        mode = connect.stat().st_mode
    except FileNotFoundError:  # QEMU is not started yet: its socket will be there (connected as it appears)
        return UnixClient(connect)
    if stat.S_ISSOCK(mode):
        return UnixClient(connect)
    if stat.S_ISCHR(mode):
        return TtyEndpoint(connect)
    raise EndpointError(f"--connect {connect}: neither a tty nor a unix socket")
