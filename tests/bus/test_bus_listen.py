"""LISTEN windows: an idle table is listened to in long windows instead of polled a hundred times a second, and a
press, a command, a reboot or a pulled cable are still handled within a round or a turn of roll calls. Real
firmware nodes (micropython processes) on the simulated bus, whose clock the master reads."""

from __future__ import annotations

import os
import threading
import time
import tty

import pytest

from controller.bus import seatbus as sb
from controller.bus.listen import QUIET_BEFORE_TALKING_S, Span
from controller.bus.nodes import NodeSpec, NodeState
from controller.bus.sim import SimTable, start_sim_table
from controller.bus.transport import SerialTransport
from controller.ports import Button, ButtonEvent, InputEvent, LinkEvent


@pytest.fixture
def table4():
    events: list[InputEvent] = []
    sim = start_sim_table(4)
    sim.master.noisy_for = 0.0  # a clean line: long windows at once (see the test of a noisy one)
    sim.table.start(events.append)
    sim.table.run_for(0.2)
    assert all(n.status == "up" for n in sim.master.nodes.values())
    yield sim, events
    sim.close()


def presses(events: list[InputEvent]) -> list[ButtonEvent]:
    return [e for e in events if isinstance(e, ButtonEvent)]


def asleep_in_a_window(sim: SimTable) -> list[tuple[float, InputEvent]]:
    """Let the table settle, then open a LISTEN window with the master asleep in it; what reaches the master
    from now on, with the simulated time it arrived."""
    arrived: list[tuple[float, InputEvent]] = []
    sim.master.sink = lambda event: arrived.append((sim.bus.now(), event))
    sim.table.run_for(0.15)
    sim.master.poll_round(hold_until=sim.bus.now() + 0.001)
    return arrived


def round_s(sim: SimTable) -> float:
    m = sim.master
    return (len(m.nodes) * m.slot_us + m.gap_us) / 1e6


def test_an_idle_table_is_one_listen_window_a_tenth_of_a_second(table4: tuple[SimTable, list[InputEvent]]) -> None:
    sim, _ = table4
    stats = sim.master.stats
    sent, listens, polls, t0 = stats.frames_sent, stats.listens, stats.poll_alls, sim.bus.now()
    sim.table.run_for(2.0)
    seconds = sim.bus.now() - t0
    assert stats.poll_alls == polls, "nothing queued: no POLL_ALL cycle"
    assert 9 <= (stats.listens - listens) / seconds <= 11
    assert stats.frames_sent - sent == 2 * (stats.listens - listens), "a LISTEN and its copy; nobody polled by name"
    assert stats.timeouts == 0 and sim.bus.counters.collisions == 0


@pytest.mark.parametrize("phase", [0.0, 0.0013, 0.0049, 0.021, 0.0503, 0.077, 0.0991])
def test_a_press_while_the_table_listens_reaches_the_master_within_a_round(
    table4: tuple[SimTable, list[InputEvent]], phase: float
) -> None:
    """Seat 3 presses OK at any moment of a window (the master is asleep in it): the press is in the master's
    hands within one round and its slot, about 2 ms at 4 seats, whatever the moment."""
    sim, _ = table4
    master = sim.master
    arrived = asleep_in_a_window(sim)
    span = master._span
    assert span is not None
    master.poll_round(hold_until=span.opened + phase)
    assert master._span is span, "still in the same window"
    pressed_at = sim.bus.now()
    sim.press(3, Button.OK)
    while not arrived:
        master.cycle()
    at, event = arrived[0]
    assert isinstance(event, ButtonEvent) and (event.seat, event.pressed) == (3, True)
    assert at - pressed_at <= round_s(sim) + master.slot_us / 1e6 + 0.0005


@pytest.mark.parametrize("quiet", [True, False], ids=["quietly (0.8)", "by name (0.7)"])
def test_a_command_queued_in_a_window_goes_out_at_the_next_master_slot(
    table4: tuple[SimTable, list[InputEvent]], quiet: bool
) -> None:
    """By name, seat 2 acks the colour at once; sent quietly, it confirms it in its slot of the next window's
    first round (PROTOCOL.md, "Quiet commands")."""
    sim, _ = table4
    master = sim.master
    master.quiet = quiet
    master._topology += 1  # the master works out again how it sends
    sent: list[tuple[int, int, float]] = []
    master.on_command = lambda address, mtype, when: sent.append((address, mtype, when))
    master.poll_round(hold_until=sim.bus.now() + 0.0331)  # asleep in a window
    queued_at, confirmed = sim.bus.now(), master.stats.quiet_confirmed
    sim.table.seats[2].set_led((255, 0, 0))
    master.cycle()
    if quiet:
        assert not sent, "the window closed at the master slot, and the colour went out ahead of a new one"
        master.poll_round(hold_until=sim.bus.now() + round_s(sim))
    assert sent and sent[0][:2] == (2, sb.SET_LED)
    assert sent[0][2] - queued_at <= (2 if quiet else 1) * round_s(sim) + 0.001
    assert master.stats.quiet_confirmed - confirmed == (1 if quiet else 0)
    assert sim.bus.nodes[2].led == (255, 0, 0)
    assert sim.bus.counters.master_collisions == 0


def test_a_seat_that_goes_silent_is_reported_down_within_a_turn_of_roll_calls() -> None:
    """A pulled cable: the seat stops answering; it is noticed at its roll call (one node a window, in turn) and
    polled by name until it counts as down, within 16 windows at any table size."""
    events: list[InputEvent] = []
    with start_sim_table(4) as sim:
        sim.master.noisy_for = 0.0
        sim.table.start(events.append)
        sim.table.run_for(0.2)
        cut_at = sim.bus.now()
        sim.bus.power_cycle(2, off_for=30.0)
        sim.table.run_for(2.0)
        down = [e for e in events if isinstance(e, LinkEvent) and e.seat == 2 and not e.up]
        assert down and down[0].at - cut_at <= 4 * 0.11 + 0.2
        listens = sim.master.stats.listens
        sim.table.run_for(1.0)
        assert sim.master.stats.listens - listens >= 8, "the others are still listened to in windows"


def test_a_seat_that_rebooted_says_so_in_the_next_window_and_gets_its_led_back(
    table4: tuple[SimTable, list[InputEvent]],
) -> None:
    sim, events = table4
    sim.table.seats[1].set_led((0, 0, 255))
    sim.table.run_for(0.2)
    sim.bus.power_cycle(1, off_for=0.01)
    sim.table.run_for(0.4)
    links = [e for e in events if isinstance(e, LinkEvent) and e.seat == 1]
    assert [e.up for e in links][-2:] == [False, True] and "restarted" in links[-2].reason
    assert sim.bus.nodes[1].led == (0, 0, 255)


def test_the_remotes_key_is_fetched_by_name_when_it_asks_in_its_slot() -> None:
    events: list[InputEvent] = []
    with start_sim_table(2, remote_key=bytes(range(16))) as sim:
        sim.master.noisy_for = 0.0
        sim.table.start(events.append)
        sim.table.run_for(0.2)
        assert sim.master._listen_group, "the remote (firmware 0.4) takes part in the windows"
        sim.key(100, "center")
        sim.table.run_for(0.1)
        assert [type(e).__name__ for e in events if not isinstance(e, LinkEvent)] == ["RemoteKeyEvent"]


def test_a_table_with_an_older_seat_keeps_the_poll_all_cycle(table4: tuple[SimTable, list[InputEvent]]) -> None:
    sim, events = table4
    master = sim.master
    ident = master.nodes[4].identity
    assert ident is not None
    ident["caps"] = int(ident["caps"]) & ~sb.CAP_LISTEN  # type: ignore[call-overload]  # firmware 0.3
    master._topology += 1
    master.abandon_span()
    listens, polls = master.stats.listens, master.stats.poll_alls
    sim.table.run_for(0.3)
    assert master.stats.listens == listens and master.stats.poll_alls - polls >= 25
    sim.click(4, Button.NEXT)
    sim.table.run_for(0.1)
    assert [(e.seat, e.pressed) for e in presses(events)] == [(4, True), (4, False)]


def test_a_command_queued_from_another_thread_wakes_the_masters_read() -> None:
    """On the table the master's thread sleeps in select() for a whole window; ``send`` on the director's thread
    wakes it through a pipe, so the command waits for a master slot, not for the window's end."""
    ours, theirs = os.openpty()
    tty.setraw(theirs)
    try:
        transport = SerialTransport(_Port(theirs))
        transport.wake()
        began = time.monotonic()
        assert transport.read(5.0) == b""
        assert time.monotonic() - began < 1.0
        os.write(ours, b"\x7e")
        assert transport.read(5.0) == b"\x7e"
    finally:
        os.close(ours)
        os.close(theirs)


class _Port:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd


def test_windows_are_short_until_the_line_has_been_clean_for_a_while() -> None:
    """A node that loses the LISTEN frame to noise can say nothing until the next one: so at the start and on a line
    that garbled a frame, windows are short (about 10 ms), and long again once the line has been clean for
    ``noisy_for``."""
    with start_sim_table(4) as sim:
        master = sim.master
        master.noisy_for = 1.0
        sim.table.start(lambda event: None)

        def windows_per_second(seconds: float) -> float:
            listens, t0 = master.stats.listens, sim.bus.now()
            sim.table.run_for(seconds)
            return (master.stats.listens - listens) / (sim.bus.now() - t0)

        assert windows_per_second(0.5) > 50, "at the start"
        sim.table.run_for(0.6)
        assert windows_per_second(1.0) < 12, "clean for a second"
        master.stats.corrupt_detected += 1  # a garbled frame came
        sim.table.run_for(0.15)
        assert windows_per_second(0.5) > 50, "after a garbled frame"


@pytest.mark.parametrize("quiet", [True, False], ids=["quietly (0.8)", "by name (0.7)"])
def test_a_seat_that_restarted_and_first_hears_a_command_is_a_link_lost_and_found(
    table4: tuple[SimTable, list[InputEvent]], quiet: bool
) -> None:
    """Its power was cut for a moment, and the LED colour for it is the first thing it hears: it answers with
    IDENTITY (no session; sent quietly, it says so in its slot of the window after it), and that is reported as a
    restart, so the director pauses (a press may have gone while it was dark) and its LED comes back."""
    sim, events = table4
    master = sim.master
    master.quiet = quiet
    master._topology += 1
    master.abandon_span()
    sim.bus.power_cycle(1, off_for=0.0001)
    sim.table.seats[1].set_led((9, 9, 9))
    master.cycle() if quiet else master.command_round()
    links = [(e.up, "restarted" in e.reason) for e in events if isinstance(e, LinkEvent) and e.seat == 1]
    assert links[-2:] == [(False, True), (True, False)]
    sim.table.run_for(0.1)
    assert sim.bus.nodes[1].led == (9, 9, 9)


@pytest.mark.parametrize("wreck", ["headerless", "cut short"])
def test_a_collision_that_leaves_no_frame_header_still_has_every_seat_asked_by_name(
    table4: tuple[SimTable, list[InputEvent]], wreck: str
) -> None:
    """Seats 2 and 3 answer in one slot and their bytes collide: what reaches the master has no frame left to
    fail a CRC on (only bytes the decoder throws away), or the start of one that never ends. The master still
    takes it for a collision and asks every seat by name at the next master slot, so seat 3's press, hidden in
    the wreck, is in its hands within a round or two, not after the slots happen to fall differently."""
    sim, _ = table4
    master = sim.master
    arrived = asleep_in_a_window(sim)
    answer = sb.encode_frame(3, 1, sb.EVENTS, b"\x01\x00\x00", from_node=True)
    sim.bus.noise(bytes(b ^ 0x5A for b in answer) if wreck == "headerless" else answer[:8], after=0.0005)
    sim.press(3, Button.OK)
    collisions, polled = master.stats.collisions, master.stats.frames_sent
    start = sim.bus.now()
    while not any(isinstance(e, ButtonEvent) for _, e in arrived):
        master.cycle()
    at = next(t for t, e in arrived if isinstance(e, ButtonEvent))
    assert master.stats.collisions == collisions + 1
    assert master.stats.frames_sent - polled >= 4, "every seat asked by name"
    assert at - start <= 2 * round_s(sim) + 0.005


def test_a_cycle_ends_with_its_window_while_a_finger_never_rests(table4: tuple[SimTable, list[InputEvent]]) -> None:
    """Seats 1 to 4 press and let go in turn, one change in every window, and nothing is queued to send: each
    cycle still ends with its window (acked inside it since firmware 0.9.9, or by the next one). The table's poll thread
    looks for stop() between cycles; when one cycle went from window to window while a finger never rested, the
    benchmark's table polled on two seconds past stop()."""
    sim, _ = table4
    master = sim.master
    arrived = asleep_in_a_window(sim)
    for i in range(12):
        listens = master.stats.listens
        before = len(arrived)
        sim.press(1 + i % 4, Button.OK, pressed=i % 8 < 4)
        master.cycle()
        assert len(arrived) == before + 1, "the change reached the master in this cycle"
        assert master.stats.listens - listens <= 1, "and the cycle ended with the window it came in"
    assert sim.bus.counters.collisions == 0


def test_the_master_leaves_the_line_quiet_before_it_talks_after_the_roll_call(
    table4: tuple[SimTable, list[InputEvent]]
) -> None:
    """The roll call answers in the window's last slot, and the master's next LISTEN followed it 10-14 µs later on
    emulated Picos: inside the 32 bit times (16 µs at 2 Mbaud) a node's UART waits before it stamps a burst's end,
    so the answer and the LISTEN came as one burst. The master now waits QUIET_BEFORE_TALKING_S. (The windows every
    seat seemed to sit out then were roll calls late for their last slot: firmware 0.9.7, and the next test.)"""
    sim, _ = table4
    bus = sim.bus
    gaps: list[float] = []
    heard_at = [0.0]
    read, write = bus.read, bus.write

    def reading(timeout: float) -> bytes:
        data = read(timeout)
        if data:
            heard_at[0] = bus.now()
        return data

    def writing(data: bytes) -> None:
        gaps.append(bus.now() - heard_at[0])
        write(data)

    bus.read, bus.write = reading, writing  # type: ignore[method-assign]
    for i in range(40):
        sim.press(1 + i % 4, Button.OK, pressed=i % 8 < 4)
        sim.table.run_for(0.013)
    assert sim.master.stats.listens > 40 and sim.bus.counters.collisions == 0
    assert min(gaps) >= QUIET_BEFORE_TALKING_S - 1e-9


def test_the_master_keeps_the_windows_end_for_a_roll_call_that_answers_late() -> None:
    """Firmware 0.9.7 (PROTOCOL.md, "A roll call late for its last slot"): a roll call whose loop came round late
    answers after its slot, as late as one slot before the window's end, because nobody talks there: not the other
    seats (their slots came before) and not the master, which however much it has to say waits until the roll
    call was heard, or the window's end and its reply timeout after it have passed (``Span.roll_due``)."""
    seats = [NodeState(NodeSpec(address, address), status="up") for address in (1, 2, 3, 4)]
    slot, gap, rounds, timeout = 125e-6, 1010e-6, 20, 0.010
    span = Span(7, 10.0, slot, gap, rounds, seats, seats[-1], timeout)
    span.must_speak = True  # news heard: the master wants its next master slot
    late_roll = span.end - slot  # the latest moment the roll call may begin (firmware: Node._roll_latest)
    for now in (span.end - gap - slot, late_roll, span.end):
        assert span.speak_at(now) >= span.end + timeout, "silent while the roll call may still answer"
    span.roll_answered = True
    assert span.speak_at(late_roll + 0.0001) == late_roll + 0.0001, "heard: at once"


def test_seat_3s_press_is_acked_in_the_next_master_slot_and_seat_1_presses_in_the_same_window(
    table4: tuple[SimTable, list[InputEvent]]
) -> None:
    """Firmware 0.9.9 (PROTOCOL.md, "Acks inside the window"): the master acks seat 3's press with WINDOW_ACKS in
    the master slot after its answer and the window goes on; seat 1, pressing four rounds later, answers in the same
    window, within a round and its slot, and no seat is asked by name."""
    sim, _ = table4
    master = sim.master
    master.acks_in_windows = True  # (off on the table: PROTOCOL.md says why)
    master._topology += 1
    master.abandon_span()
    arrived = asleep_in_a_window(sim)
    span = master._span
    assert span is not None and span.window_acks
    listens, acks_sent, frames = master.stats.listens, master.stats.window_acks, master.stats.frames_sent
    master.poll_round(hold_until=span.opened + 0.011)
    sim.press(3, Button.OK)
    master.poll_round(hold_until=sim.bus.now() + 3 * round_s(sim))
    assert [(e.seat, e.pressed) for _, e in arrived] == [(3, True)]  # type: ignore[attr-defined]
    assert master._span is span and master.stats.window_acks == acks_sent + 1
    assert master.nodes[3].ack_due is False
    pressed_at = sim.bus.now()
    sim.press(1, Button.OK)
    master.poll_round(hold_until=sim.bus.now() + 2 * round_s(sim))
    assert [(e.seat, e.pressed) for _, e in arrived] == [(3, True), (1, True)]  # type: ignore[attr-defined]
    assert arrived[1][0] - pressed_at <= round_s(sim) + master.slot_us / 1e6 + 0.0005
    assert master._span is span, "one window for both presses"
    assert master.stats.listens == listens and master.stats.window_acks == acks_sent + 2
    assert master.stats.frames_sent == frames + 2, "two WINDOW_ACKS, nothing by name"
    assert sim.bus.counters.collisions == 0 and sim.bus.counters.master_collisions == 0
    master.cycle()  # the window runs out; the seats' events were all acked: nothing is sent again
    assert [(e.seat, e.pressed) for _, e in arrived] == [(3, True), (1, True)]  # type: ignore[attr-defined]


def test_a_table_with_a_seat_before_0_9_9_acks_in_a_new_listen(table4: tuple[SimTable, list[InputEvent]]) -> None:
    """Seat 4 does not say CAP_WINDOW_ACKS: it would take the acks for a new window it knows nothing of and fall
    silent, so the master ends the window at the next master slot and acks in its next LISTEN, as before."""
    sim, _ = table4
    master = sim.master
    master.acks_in_windows = True
    ident = master.nodes[4].identity
    assert ident is not None
    ident["caps"] = int(ident["caps"]) & ~sb.CAP_WINDOW_ACKS  # type: ignore[call-overload]  # firmware 0.9.8
    master._topology += 1
    master.abandon_span()
    arrived = asleep_in_a_window(sim)
    span = master._span
    assert span is not None and not span.window_acks
    listens, acks_sent = master.stats.listens, master.stats.window_acks
    master.poll_round(hold_until=span.opened + 0.011)
    sim.press(3, Button.OK)
    while not arrived:
        master.cycle()
    master.cycle()
    assert master._span is not span and master.stats.listens == listens + 1
    assert master.stats.window_acks == acks_sent and master.nodes[3].ack_due is False


def test_the_roll_calls_press_early_in_a_window_is_not_its_roll_call() -> None:
    """Seat 4, called by roll, presses in round 2 of a window that acks inside it (firmware 0.9.9): the window goes
    on, and seat 4 still answers in its last slot, as late as one slot before the end. Found on emulated Picos: a
    master that took the press for the roll call's answer sent its next LISTEN over seat 4's late one."""
    seats = [NodeState(NodeSpec(address, address), status="up") for address in (1, 2, 3, 4)]
    slot, gap, rounds, timeout = 125e-6, 1010e-6, 66, 0.010
    span = Span(7, 10.0, slot, gap, rounds, seats, seats[-1], timeout, window_acks=True)
    press = sb.Frame(4, 7, sb.EVENTS, sb.encode_events([sb.encode_event(1, sb.EV_PRESS, 0, bytes([sb.BTN_OK]))]),
                     True)
    assert not span.roll_call(press, span.opened + 2 * span.round + 3 * slot)
    assert not span.roll_heard()
    for now in (span.end - gap - slot, span.end - slot):
        assert span.speak_at(now) >= span.end + timeout, "silent while the roll call may still answer"
    nothing = sb.Frame(4, 7, sb.EVENTS, b"\x00", True)
    assert span.roll_call(nothing, span.end - slot)  # its answer of the last round, late
    assert span.roll_call(press, span.end - gap - slot + 0.0001)  # ...or news in that round


class _Heard:
    """What ``ListenWindows._heard`` reads of the master's link: its decoder and counters, and where the news goes."""

    def __init__(self) -> None:
        self.decoder = sb.Decoder()
        self.stats = type("Stats", (), {"frames_received": 0, "events": 0, "events_in_windows": 0,
                                        "corrupt_detected": 0})()
        self.news: list[int] = []

    def heard(self, node: NodeState) -> None:
        pass

    def take_events(self, node: NodeState, reply: sb.Frame) -> None:
        self.news.append(node.spec.address)
        self.stats.events += 1


def test_news_in_a_windows_first_round_keeps_it_open_until_every_seat_had_a_slot_in_the_second() -> None:
    """Sixteen seats press at once. On emulated Picos (firmware 0.9.10) only the seats late in the window's order
    reach their first-round slot; a master that closed the window at the next master slot to ack seat 15 opened one
    in which again only a late seat was heard, and seat 1, early in every window's order, waited seven windows
    (20 ms). So news in the first round is acked at the master slot after the second round, by when every seat has
    had a slot; news that comes in the second round is acked at once."""
    from controller.bus.listen import ListenWindows

    seats = [NodeState(NodeSpec(address, address), status="up") for address in range(1, 17)]
    slot, gap, rounds, timeout = 125e-6, 1010e-6, 33, 0.010
    link = _Heard()
    windows = ListenWindows(link, threading.Lock(), can_wake=True)  # type: ignore[arg-type]
    press = sb.encode_events([sb.encode_event(1, sb.EV_PRESS, 0, bytes([sb.BTN_OK]))])

    span = Span(7, 10.0, slot, gap, rounds, seats, seats[-1], timeout)
    span.heard_at = span.opened + 14 * slot + 100e-6  # seat 15's answer in round 0 (index 14), just read
    windows._heard(span, sb.encode_frame(15, 7, sb.EVENTS, press, True))
    assert link.news == [15] and span.must_speak and span.news_in_first_round
    now = span.heard_at
    assert span.speak_at(now) == span.master_slot(2) + sb.LISTEN_AIM_US / 1e6, "after round 2, not round 1"

    span = Span(8, 20.0, slot, gap, rounds, seats, seats[-1], timeout)
    span.heard_at = span.opened + span.round + 100e-6  # seat 1's answer in round 1
    windows._heard(span, sb.encode_frame(1, 8, sb.EVENTS, press, True))
    assert not span.news_in_first_round
    assert span.speak_at(span.heard_at) == span.master_slot(2) + sb.LISTEN_AIM_US / 1e6, "the next master slot"


class _Line:
    """What ``ListenWindows.open`` uses of the master's link: the line's numbers, its clock, and what was put on it
    (each frame's last byte leaves at the clock's moment plus its wire time, one after the other)."""

    def __init__(self, lead_us: int) -> None:
        self.stats = type("Stats", (), {"corrupt_detected": 0, "collisions": 0, "frames_sent": 0, "listens": 0})()
        self.transport = type("Clock", (), {"now": staticmethod(lambda: 5.0)})()
        self.baud, self.slot_us, self.gap_us = 2_000_000, 125, 1010
        self.slot_margin, self.reply_timeout, self.window_acks = 0.0005, 0.010, False
        self.listen_lead_us = lead_us
        self.sent: list[bytes] = []
        self.ends = 5.0

    def next_seq(self) -> int:
        return 9

    def put(self, frame: bytes) -> float:
        self.sent.append(frame)
        self.ends += len(frame) * 10 / self.baud
        return self.ends


@pytest.mark.parametrize("lead_us", [0, sb.LISTEN_LEAD_US])
def test_a_listens_lead_puts_the_window_that_long_after_its_second_copy(lead_us: int) -> None:
    """Sixteen seats on their own chips ask for a lead (CAP_LISTEN_LEAD, firmware 0.9.11): a Pico takes a LISTEN in
    1.35 ms and more, and the first round's slots that begin sooner go by unanswered. Each copy says how long after
    its own end the window begins, and the master counts the window from there too (firmware/PROTOCOL.md, "A
    LISTEN's lead")."""
    from controller.bus.listen import ListenWindows

    seats = [NodeState(NodeSpec(address, address), status="up") for address in range(1, 17)]
    line = _Line(lead_us)
    windows = ListenWindows(line, threading.Lock(), can_wake=True)  # type: ignore[arg-type]
    windows.noisy_for = 0.0
    windows.open(seats)
    first, second = (sb.Decoder().feed(frame)[0] for frame in line.sent)
    assert first.seq == second.seq == 9
    after_first = sb.decode_listen(first.payload)[4]
    after_second = sb.decode_listen(second.payload)[4]
    assert after_second == lead_us
    assert after_first == len(line.sent[1]) * 10_000_000 // line.baud + lead_us
    span = windows.span
    assert span is not None and span.opened == pytest.approx(line.ends + lead_us / 1e6)
    assert span.master_slot(1) == pytest.approx(span.opened + 16 * 125e-6), "the first master slot after round 0"


@pytest.mark.parametrize(("firmware", "lead_us"), [
    ([(0, 9, 15)] * 16, sb.LISTEN_QUICK_LEAD_US),
    ([(0, 9, 15)] * 15 + [(0, 9, 14)], sb.LISTEN_LEAD_US),
], ids=["sixteen seats on 0.9.15", "one seat still on 0.9.14"])
def test_a_table_of_quick_seats_gets_the_shorter_lead_and_one_older_seat_keeps_the_longer(
    firmware: list[tuple[int, int, int]], lead_us: int,
) -> None:
    """Firmware 0.9.15 takes a LISTEN within 1.25 ms on its own chip (benchmarks/node_path.py take) and says so
    (CAP_QUICK_LEAD): the window begins 1.5 ms after the second copy, not 2 ms. A seat that does not say it keeps
    the table's lead at 2 ms (firmware/PROTOCOL.md, "A press's way to its slot")."""
    from controller.bus.master import BusMaster

    master = BusMaster(type("Line", (), {"now": staticmethod(lambda: 0.0)})(),  # type: ignore[arg-type]
                       [NodeSpec(address=a, seat=a) for a in range(1, 17)], baud=2_000_000)
    for address, version in zip(range(1, 17), firmware, strict=True):
        caps = sb.CAP_BUTTONS | sb.CAP_POLL_ALL | sb.CAP_LISTEN | sb.CAP_SLOT_EXACT | sb.CAP_LISTEN_LEAD
        if version >= (0, 9, 15):
            caps |= sb.CAP_QUICK_LEAD
        node = master.nodes[address]
        node.identity = sb.decode_identity(sb.encode_identity(version, caps, sb.RESET_POWER_ON, sb.ROLE_SEAT, 1))
        node.status = "up"
    master._topology += 1  # (what a node's IDENTITY does)
    master._split()
    assert master.listen_lead_us == lead_us
