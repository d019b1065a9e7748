"""The RS-485 adapter pulled out mid-game and plugged back in: the table's serial port goes away under the master
(EIO, as a USB serial adapter or a pty whose other end closed gives) and comes back under the same name (udev's
/dev/tianhei-bus). The table says so in one line each way, never dies with a traceback, and talks on the new port.

A real pty stands for the adapter, and a symlink for udev's name; the retry is timed on an injected clock.
"""

from __future__ import annotations

import logging
import os
import select
from pathlib import Path

from controller.bus import transport as tr
from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.transport import SerialTransport


class Clock:
    """The table's clock, injected: a millisecond passes at each look (the master times its replies on it)."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


def adapter_at(link: Path) -> int:
    """Plug an 'adapter' in: a new pty whose table end udev's name points at; returns the other (the bus's) end."""
    ours, theirs = os.openpty()
    name = os.ttyname(theirs)
    os.close(theirs)
    link.unlink(missing_ok=True)
    link.symlink_to(name)
    return ours


def bytes_on(fd: int) -> bytes:
    ready, _, _ = select.select((fd,), (), (), 2.0)  # a real pty: bounded wait for the bytes already written
    return os.read(fd, 4096) if ready else b""


def test_the_adapter_pulled_mid_game_is_one_line_and_the_table_talks_again_once_it_is_back(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger=tr.__name__)
    link = tmp_path / "tianhei-bus"
    bus = adapter_at(link)
    clock = Clock()
    port = SerialTransport.open(str(link), 115200, clock=clock)
    port.write(b"hello")
    assert bytes_on(bus) == b"hello"

    os.close(bus)  # the adapter is pulled
    port.write(b"lost")  # nothing raises: the bytes go nowhere, as on a cut cable
    assert port.read(0.01) == b""
    assert port.lost_since is not None and 100.0 < port.lost_since < 100.1
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [f"seat bus: {link} went away (Input/output error); the seats are unreachable until it is "
                     "back, trying it again every second"]

    master = BusMaster(port, [NodeSpec(address=3, seat=3)], reply_timeout=0.005)
    master.sink = lambda event: None
    master.cycle()  # a whole poll round on the lost port: the seat does not answer, nothing raises

    bus = adapter_at(link)  # plugged in again; udev gives it the same name
    port.write(b"too early")  # not yet a second since it went away: not tried again
    assert port.lost_since is not None
    clock.t += tr.REOPEN_EVERY_S
    port.write(b"back")
    assert port.lost_since is None
    assert bytes_on(bus) == b"back"
    assert caplog.records[-1].getMessage() == f"seat bus: {link} is back after 1 s"
    os.close(bus)


def test_a_port_that_stays_away_is_tried_once_a_second_and_reads_still_take_their_time(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger=tr.__name__)
    link = tmp_path / "tianhei-bus"
    bus = adapter_at(link)
    clock = Clock()
    port = SerialTransport.open(str(link), 115200, clock=clock)
    os.close(bus)
    link.unlink()  # unplugged, and nothing in its place
    port.write(b"x")
    for _ in range(3):
        clock.t += tr.REOPEN_EVERY_S
        assert port.read(0.001) == b""
    assert port.lost_since is not None
    assert len(caplog.records) == 1  # one line when it went away, none for each retry
