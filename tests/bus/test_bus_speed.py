"""The line's speed: bus-16 runs at 2 Mbaud (firmware/PROTOCOL.md, "Slot timing"), every node's image carries the
profile's speed, and a table whose nodes answer at another speed is told what to check instead of waiting in
silence."""

from __future__ import annotations

from controller.bus import seatbus as sb
from controller.bus.master import BusMaster
from controller.bus.nodes import NodeSpec
from controller.config.profile import load_profile
from controller.nodes.images import plan
from controller.ports import ButtonEvent, InputEvent


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


class ScriptedLine:
    """A transport that brings, at the master's next read, whatever the test put on it."""

    def __init__(self) -> None:
        self.clock = 0.0
        self.coming: list[bytes] = []

    def now(self) -> float:
        return self.clock

    def write(self, data: bytes) -> None:
        self.clock += len(data) * 10 / 2_000_000

    def read(self, timeout: float) -> bytes:
        self.clock += 0.0001
        return self.coming.pop(0) if self.coming else b""


def press_frame(address: int, seq: int, event: int) -> bytes:
    payload = sb.encode_events([sb.encode_event(event, sb.EV_PRESS, 0, bytes([sb.BTN_OK]))])
    return sb.encode_frame(address, seq, sb.EVENTS, payload, True)


def test_seat_2s_press_that_came_after_its_window_closed_is_taken_at_once_and_only_once() -> None:
    """A USB adapter holds what it received until its latency timer runs out (1 ms on an FTDI chip), so a press in
    a POLL_ALL's last slot can reach the master after it closed the window, while it waits for another node's
    answer. Its events are numbered: the master takes them there instead of a cycle later, and drops the repeat."""
    line = ScriptedLine()
    master = BusMaster(line, [NodeSpec(address=a, seat=a) for a in (1, 2)], baud=2_000_000)
    for node in master.nodes.values():
        node.status = "up"
    got: list[InputEvent] = []
    master.sink = got.append
    seq = (master._seq + 1) & 0xFF
    line.coming = [press_frame(2, 200, 1), sb.encode_frame(1, seq, sb.EVENTS, sb.encode_events([]), True)]
    master.poll(master.nodes[1])
    assert [(e.seat, e.pressed) for e in got if isinstance(e, ButtonEvent)] == [(2, True)]
    assert master.nodes[2].ack_due
    seq = (master._seq + 1) & 0xFF
    line.coming = [press_frame(2, seq, 1)]  # the node repeats it, asked by name: the same event, number 1
    master.poll(master.nodes[2])
    assert len([e for e in got if isinstance(e, ButtonEvent)]) == 1


def two_seats_up(line: ScriptedLine) -> tuple[BusMaster, list[InputEvent]]:
    master = BusMaster(line, [NodeSpec(address=a, seat=a) for a in (1, 2)], baud=2_000_000)
    for node in master.nodes.values():
        node.status = "up"
    got: list[InputEvent] = []
    master.sink = got.append
    return master, got


def test_seat_2s_press_held_by_the_adapter_past_its_poll_all_is_taken_in_the_next_one() -> None:
    """The same press, arriving while the master listens in the next POLL_ALL window (it answers the one before,
    by its number): taken there, not dropped for the node to say again a cycle later."""
    line = ScriptedLine()
    master, got = two_seats_up(line)
    group = list(master.nodes.values())
    master.polls.regroup(group)
    line.coming = [press_frame(2, 200, 1)]
    master.polls.run(group)
    assert [(e.seat, e.pressed) for e in got if isinstance(e, ButtonEvent)] == [(2, True)]
    assert master.nodes[2].ack_due


def test_seat_2s_press_held_by_the_adapter_past_its_window_is_taken_in_the_next_listen_window() -> None:
    line = ScriptedLine()
    master, got = two_seats_up(line)
    master.windows.open(list(master.nodes.values()))
    span = master.windows.span
    assert span is not None and span.seq != 200
    line.coming = [press_frame(2, 200, 1)]
    master.windows.listen(span)
    assert [(e.seat, e.pressed) for e in got if isinstance(e, ButtonEvent)] == [(2, True)]
