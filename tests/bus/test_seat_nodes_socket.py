"""The seat nodes behind a unix socket, as behind a VM's serial port (QEMU ``-serial unix:PATH,server``): the
bus master on the far side finds every seat, and when the VM is killed and booted again (its socket goes and
comes back) the nodes connect again and the new master finds them all again."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.bus.endpoint import UnixClient, open_endpoint
from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.bus.sim import find_micropython, node_config
from controller.bus.transport import SerialTransport
from controller.bus.wire import RealNode, RealWire

SEATS = 4


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[dict[int, RealNode]]:
    out: dict[int, RealNode] = {}
    for address in range(1, SEATS + 1):
        state = tmp_path / f"node{address}"
        state.mkdir()
        cfg = node_config(address)
        cfg["uart"]["baud"] = 115200  # type: ignore[index]
        (state / "config.json").write_text(json.dumps(cfg))
        out[address] = RealNode(find_micropython(), state / "config.json", state)
    yield out
    for node in out.values():
        node.kill()


class VM:
    """A stand-in for QEMU: it serves the socket, and its table polls the seats from a thread."""

    def __init__(self, path: Path) -> None:
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen(1)
        self.server.settimeout(10)
        self.stop = threading.Event()
        self.master: BusMaster | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn, _ = self.server.accept()
        conn.setblocking(False)
        self.conn = conn
        self.master = BusMaster(SerialTransport(conn), [NodeSpec(address=a, seat=a) for a in range(1, SEATS + 1)],
                                baud=115200, reply_timeout=0.08)
        while not self.stop.is_set():
            self.master.cycle()

    def all_up(self) -> bool:
        return self.master is not None and all(n.status == "up" for n in self.master.nodes.values())

    def power_off(self, path: Path) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        self.conn.close()
        self.server.close()
        path.unlink()


def test_the_nodes_connect_to_the_vms_socket_and_again_after_the_vm_is_killed_and_booted(
        tmp_path: Path, nodes: dict[int, RealNode]) -> None:
    path = tmp_path / "bus.sock"
    endpoint = open_endpoint(connect=path)  # the VM is not started yet: it connects once the socket is there
    assert isinstance(endpoint, UnixClient)
    wire = RealWire(endpoint, nodes, baud=115200)
    first = VM(path)
    assert wire.run(first.all_up, deadline=wire.now() + 20), "the first table did not find every seat"
    first.power_off(path)
    assert wire.run(lambda: wire.counters.line_downs > 0, deadline=wire.now() + 10), "the line never went down"
    second = VM(path)
    try:
        assert wire.run(second.all_up, deadline=wire.now() + 20), "the booted table did not find every seat"
    finally:
        second.power_off(path)
    assert wire.counters.line_downs >= 1 and wire.counters.master_frames > 0


def test_a_path_that_is_neither_a_tty_nor_a_socket_is_one_clear_line(tmp_path: Path) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("x")
    with pytest.raises(Exception, match="neither a tty nor a unix socket"):
        open_endpoint(connect=plain)
