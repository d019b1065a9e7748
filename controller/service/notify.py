"""systemd's service notification protocol (sd_notify(3)), written out: one datagram to ``$NOTIFY_SOCKET``.

Why not the ``sdnotify`` package: the protocol is a ``sendto`` of a few bytes to a unix datagram socket, and the
package (last released 2017) swallows every error silently and knows nothing of the watchdog's environment
(``WATCHDOG_USEC``, ``WATCHDOG_PID``). What the table needs fits in this module, with nothing to install on the Pi.

What the table says, and when (``controller/cli/serve.py``):

* ``READY=1`` once the table is up: its adapter opened, the lobby (or the resumed game) on the seats' screens.
  With ``Type=notify`` systemd counts the service as started only then, and a table that cannot open its bus
  fails its start instead of looking healthy.
* ``WATCHDOG=1`` every half of ``WatchdogSec`` (sd_watchdog_enabled(3) advises half), sent from a task on the
  table's own event loop: the director runs on that loop, so a director stuck in a callback stops the pings, and
  systemd kills and restarts the service, which resumes the game from the journal.
* ``STATUS=…``: one line for ``systemctl status`` (waiting for players, playing, resumed).
* ``STOPPING=1`` when it shuts down on purpose.

Without ``$NOTIFY_SOCKET`` (started by hand) every call does nothing and says so by returning False.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def socket_address(env: Mapping[str, str]) -> str | None:
    """The notification socket's address, ``@name`` meaning Linux's abstract namespace; None when not under
    systemd (or given an address family this table does not speak, such as vsock)."""
    address = env.get("NOTIFY_SOCKET", "")
    if address.startswith("@"):
        return "\0" + address[1:]
    if address.startswith("/"):
        return address
    return None


def watchdog_interval(env: Mapping[str, str], pid: int | None = None) -> float | None:
    """Seconds between two pings (half the watchdog timeout), or None when systemd asks for none (or asks
    another process: ``WATCHDOG_PID``)."""
    try:
        usec = int(env.get("WATCHDOG_USEC", "0"))
        owner = int(env.get("WATCHDOG_PID", "0"))
    except ValueError:
        return None
    if usec <= 0 or (owner and owner != (os.getpid() if pid is None else pid)):
        return None
    return usec / 2_000_000


class Notifier:
    """Says the table's state to systemd; ``Notifier(env)`` reads the environment once."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.address = socket_address(env)
        self.interval = watchdog_interval(env)
        self._failed = False

    @property
    def active(self) -> bool:
        return self.address is not None

    def send(self, *fields: str) -> bool:
        """One datagram of ``KEY=value`` lines. A failure is logged once and never stops the table."""
        if self.address is None:
            return False
        message = "\n".join(fields).encode("utf-8")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(self.address)
                sock.sendall(message)
        except OSError as exc:
            if not self._failed:
                log.warning("cannot tell systemd %s (%s)", fields[0], exc)
            self._failed = True
            return False
        return True

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def stopping(self, status: str = "stopping") -> bool:
        return self.send("STOPPING=1", f"STATUS={status}")

    async def watchdog(self) -> None:
        """Ping for as long as the event loop runs callbacks; returns at once when no watchdog was asked for."""
        if self.interval is None or self.address is None:
            return
        while True:
            self.send("WATCHDOG=1")
            await asyncio.sleep(self.interval)
