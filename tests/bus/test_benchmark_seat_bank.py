"""The real-clock benchmarks' far end keeps up with the firmware: benchmarks/bus_nodes.py runs the firmware's
``Node`` under CPython for each seat, on a pseudo-terminal the master opens as its serial port, with stand-ins for
the chip's link and panel. When those miss what the node asks of them, bus_timing.py's press to director and
bus_idle_cpu.py measure nothing: firmware 0.9.6's ``RS485.timed`` and the panel's ``write(page, col, src, lo,
end)`` left every benchmark node dead at its first POLL_ALL, and nothing said so until a benchmark was run."""

from __future__ import annotations

import queue
import sys
from pathlib import Path
from typing import TypeVar

from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.table import BusTable
from controller.bus.transport import SerialTransport
from controller.ports import ButtonEvent, InputEvent, LinkEvent
from controller.screens.render import render
from controller.screens.views import TapCard

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from seat_bank import SeatBank

E = TypeVar("E")
WITHIN_S = 10.0  # real seconds each step may take on a loaded machine (a pty moves bytes at once)


def next_event(heard: queue.Queue[InputEvent], wanted: type[E], what: str) -> E:
    """The next event of type ``wanted`` the poll thread hands on (others are passed over)."""
    while True:
        try:
            event = heard.get(timeout=WITHIN_S)
        except queue.Empty:
            raise AssertionError(f"the benchmark's seats did not {what} within {WITHIN_S:g} s") from None
        if isinstance(event, wanted):
            return event


def test_the_benchmark_seats_come_up_take_a_screen_and_a_press_reaches_the_master() -> None:
    bank = SeatBank(2, press_every=0.05)
    transport = SerialTransport.open(bank.port, 1_000_000)
    master = BusMaster(transport, [NodeSpec(address=a, seat=a) for a in (1, 2)])
    master.noisy_for = 0.0
    heard: queue.Queue[InputEvent] = queue.Queue()
    table = BusTable(master, post=lambda sink, event: sink(event))  # the poll thread, as on the table
    try:
        table.start(heard.put)
        up = {next_event(heard, LinkEvent, "come up").seat for _ in range(2)}
        assert up == {1, 2}
        table.seats[1].display(render(TapCard(seat=1)))  # drawn by the node once it has taken the frames
        bank.press()  # the finger presses PREV on seat 1, then on seat 2, ...
        press = next_event(heard, ButtonEvent, "hand on a press")
        assert press.seat in (1, 2) and press.pressed
        assert bank.running(), "the seat bank's process died (its traceback is above)"
    finally:
        table.stop()
        transport.port.close()  # type: ignore[attr-defined]
        bank.close()
