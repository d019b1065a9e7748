"""The line's speed: bus-16 runs at 2 Mbaud (firmware/PROTOCOL.md, "Slot timing"), every node's image carries the
profile's speed, and a table whose nodes answer at another speed is told what to check instead of waiting in
silence."""

from __future__ import annotations

from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.config.profile import load_profile
from controller.nodes.images import plan


class NodesAtAnotherSpeed:
    """A transport whose nodes were flashed for another baud: each frame the master sends is garbage to them, and
    what they say back (they answer a frame they think they heard) is garbage to the master."""

    def __init__(self) -> None:
        self.clock = 0.0

    def now(self) -> float:
        return self.clock

    def write(self, data: bytes) -> None:
        self.clock += len(data) * 10 / 2_000_000

    def read(self, timeout: float) -> bytes:
        self.clock += timeout
        return b"\xf0\x0f\xff"


def test_the_bus_16_images_carry_the_profiles_2_mbaud() -> None:
    profile = load_profile("bus-16")
    assert profile.bus is not None and profile.bus.baud == 2_000_000
    images = plan(profile, remote_key=bytes(32))
    assert len(images) == 17
    assert {image.config["uart"]["baud"] for image in images} == {2_000_000}


def test_a_table_whose_nodes_run_at_1_mbaud_is_told_to_check_the_speed_once() -> None:
    master = BusMaster(NodesAtAnotherSpeed(), [NodeSpec(address=a, seat=a) for a in (1, 2, 3)], baud=2_000_000)
    for _ in range(400):
        master.cycle()
    said = [a for a in master.alerts if "no node has answered" in a]
    assert len(said) == 1, master.alerts
    assert "2000000 baud" in said[0] and "another speed" in said[0] and "tianhei nodes image" in said[0]
