"""One line a minute, with a count, when the process runs out of file descriptors.

When ``accept`` fails with EMFILE (or ENFILE, ENOBUFS, ENOMEM), asyncio stops accepting on that socket for a
second and says so through the loop's exception handler: an ERROR with a whole traceback, every time. Under a
flood of connections that was megabytes of log a second (the hall's 43.6 MB in 22 s) and hid everything else.
The doorman (controller/web/doorman.py) and ``LimitNOFILE`` in the units keep a server from getting there; if it
still does, this filter turns those records into one line per :data:`~controller.web.hosts.LOG_EVERY_S` saying how
many accepts failed since the last one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from controller.web.hosts import LOG_EVERY_S

#: What asyncio's selector loop says (CPython's ``BaseSelectorEventLoop._accept_connection``).
SIGN = "out of system resource"


class OutOfFiles(logging.Filter):
    """A filter on the ``asyncio`` logger: the first failed accept of an interval is one line with the count
    since the last line, the others are counted and dropped; every other record passes."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.clock = clock
        self.count = 0
        self.last = float("-inf")

    def filter(self, record: logging.LogRecord) -> bool:
        if SIGN not in str(record.msg):
            return True
        self.count += 1
        now = self.clock()
        if now - self.last < LOG_EVERY_S:
            return False
        exc = record.exc_info[1] if record.exc_info else None
        why = getattr(exc, "strerror", None) or "no file descriptors"
        record.msg = (f"out of file descriptors ({why}): {self.count} connection(s) could not be accepted since the "
                      "last line (each server holds at most its limit; raise LimitNOFILE if this is a real crowd)")
        record.args = ()
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        self.count, self.last = 0, now
        return True


_installed: OutOfFiles | None = None


def install() -> OutOfFiles:
    """Put the filter on the ``asyncio`` logger, once per process."""
    global _installed
    if _installed is None:
        _installed = OutOfFiles()
        logging.getLogger("asyncio").addFilter(_installed)
    return _installed
