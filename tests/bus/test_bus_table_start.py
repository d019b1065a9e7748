"""The bus table is started by each user in turn (the lobby's check-in, then the game): one poll thread only."""

from __future__ import annotations

import threading

import serial

from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.table import BusTable
from controller.bus.transport import SerialTransport
from controller.ports import InputEvent


def test_the_game_starting_the_table_after_check_in_keeps_one_poll_thread_and_takes_the_inputs() -> None:
    port = serial.serial_for_url("loop://", baudrate=115200, timeout=0)
    table = BusTable(BusMaster(SerialTransport(port), [NodeSpec(address=1, seat=1)]))
    lobby: list[InputEvent] = []
    game: list[InputEvent] = []
    try:
        table.start(lobby.append)  # check-in
        table.start(game.append)  # the game, on the same table
        pollers = [t for t in threading.enumerate() if t.name == "seat-bus"]
        assert len(pollers) == 1, "two threads would poll one bus master at once"
        assert table.master.sink == game.append
    finally:
        table.stop()
    assert not [t for t in threading.enumerate() if t.name == "seat-bus"]
