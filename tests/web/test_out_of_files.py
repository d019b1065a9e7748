"""asyncio's traceback for every accept that fails for want of file descriptors becomes one line a minute with a
count (controller/web/out_of_files.py): what filled the hall's log at 2 MB a second."""

from __future__ import annotations

import errno
import logging

from controller.web.hosts import LOG_EVERY_S
from controller.web.out_of_files import OutOfFiles


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def failed_accept() -> logging.LogRecord:
    """The record asyncio's default exception handler writes when ``accept`` fails with EMFILE."""
    exc = OSError(errno.EMFILE, "Too many open files")
    return logging.LogRecord("asyncio", logging.ERROR, __file__, 1,
                             "socket.accept() out of system resource\nsocket: <asyncio.TransportSocket fd=9>", (),
                             (OSError, exc, None))


def test_a_thousand_failed_accepts_in_a_minute_are_one_line_then_one_line_with_the_count():
    clock = Clock()
    keep = OutOfFiles(clock)
    first = failed_accept()
    assert keep.filter(first)
    assert first.levelno == logging.WARNING and first.exc_info is None and "\n" not in first.getMessage()
    assert "Too many open files" in first.getMessage() and "1 connection(s)" in first.getMessage()
    passed = [keep.filter(failed_accept()) for _ in range(999)]
    assert not any(passed)  # within the minute: counted, not written
    clock.t += LOG_EVERY_S
    later = failed_accept()
    assert keep.filter(later) and "1000 connection(s) could not be accepted" in later.getMessage()


def test_every_other_record_of_asyncio_passes_untouched():
    keep = OutOfFiles(Clock())
    other = logging.LogRecord("asyncio", logging.ERROR, __file__, 1, "Task exception was never retrieved", (), None)
    assert keep.filter(other) and other.getMessage() == "Task exception was never retrieved"
