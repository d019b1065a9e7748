"""Faults at a table where seat 2 is an emulated Pico running the rp2 image and seats 1 and 3 run the firmware
under ``micropython``, all on one line with the unchanged master (controller/nodes/pico_table.py): the Pico's
power cut mid-game, its watchdog biting, bits flipped, frames cut short and noise in the slots next to it, and a
``micropython`` node answering at the same moment on the same pair.

Each test is one to four emulated seconds of one Pico (about 4-15 s of the host's time; a Pico without power or
with a hung core costs next to nothing).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PIL import Image

from controller.bus import seatbus as sb
from controller.bus.display import ssd1306_bytes
from controller.bus.sim import SimNode, SimTable, start_sim_table
from controller.nodes import emulator_setup
from controller.nodes.emulated_bus import EmulatedBus
from controller.nodes.line_faults import LineFaults
from controller.nodes.node_image import node_uf2
from controller.nodes.pico_table import PicoBus, seat_config, start_pico_table
from controller.ports import Button, ButtonEvent, LinkEvent
from controller.screens.render import render
from controller.screens.views import RoleReveal

PICO = 2
KILLER_RED = (255, 0, 0)


@contextmanager
def mixed_table(firmware: bytes) -> Iterator[tuple[SimTable, PicoBus, list[object]]]:
    """Seats 1-3 up (seat 2 on a Pico), seat 2 showing its killer's screen with its LED red."""
    try:
        table = start_pico_table(3, (PICO,), firmware)
    except emulator_setup.SetupError as err:
        pytest.fail(f"the emulated Pico cannot start: {err}")
    with table:
        bus = table.bus
        assert isinstance(bus, PicoBus)
        events: list[object] = []
        table.table.start(events.append)
        table.table.run_for(0.3)
        assert sorted(e.seat for e in events if isinstance(e, LinkEvent) and e.up) == [1, 2, 3]
        table.table.seats[PICO].display(role_screen())
        table.table.seats[PICO].set_led(KILLER_RED)
        table.table.run_for(0.3)
        yield table, bus, events


def role_screen() -> Image.Image:
    return render(RoleReveal(seat=PICO, role="killer", partners=(3,)))


def click(table: SimTable, seat: int) -> None:
    """A player presses OK and lets go, the master polling meanwhile."""
    table.press(seat, Button.OK, True)
    table.table.run_for(0.1)
    table.press(seat, Button.OK, False)
    table.table.run_for(0.1)


def presses(events: list[object], seat: int) -> list[bool]:
    return [e.pressed for e in events if isinstance(e, ButtonEvent) and e.seat == seat and e.button == Button.OK]


def links(events: list[object], seat: int) -> list[bool]:
    return [e.up for e in events if isinstance(e, LinkEvent) and e.seat == seat]


def assert_pico_shows_the_killer_screen_and_red(table: SimTable, bus: PicoBus) -> None:
    pico = bus.picos[PICO]
    assert bytes(pico.screen.ram) == ssd1306_bytes(role_screen().convert("1")), "seat 2's screen was not restored"
    r, g, b = pico.led()
    assert r > 0.99 and g == 0 and b == 0, f"seat 2's LED is {(r, g, b)}, not red"


def test_seat_2s_pico_loses_power_mid_game_and_comes_back_with_its_screen_and_led_and_no_press_lost(firmware):
    with mixed_table(firmware) as (table, bus, events):
        click(table, PICO)  # seat 2 confirms before the cut
        bus.power_cut(PICO)
        assert table.unpowered(PICO)
        table.table.run_for(1.0)
        assert links(events, PICO)[-1] is False, "the master did not notice seat 2 had gone"
        click(table, 1)  # the game goes on at the other seats meanwhile
        bus.power_on(PICO)
        table.table.run_for(1.0)
        assert links(events, PICO)[-2:] == [False, True]
        identity = table.master.nodes[PICO].identity
        assert identity is not None and identity["reset_cause"] == sb.RESET_POWER_ON
        assert_pico_shows_the_killer_screen_and_red(table, bus)
        click(table, PICO)  # and seat 2 plays on
        assert presses(events, PICO) == [True, False, True, False]
        assert presses(events, 1) == [True, False]


def test_seat_2s_pico_hangs_its_watchdog_reboots_it_and_the_master_restores_it(firmware):
    with mixed_table(firmware) as (table, bus, events):
        bus.emulated.call({"op": "hang", "pico": bus.picos[PICO].index})  # interrupts off: nothing feeds the dog
        table.table.run_for(3.0)  # watchdog_ms 2000, then the boot and the master's search
        assert bus.picos[PICO].resets == [1]  # REASON.TIMER
        assert links(events, PICO)[-2:] == [False, True]
        identity = table.master.nodes[PICO].identity
        assert identity is not None and identity["reset_cause"] == sb.RESET_WATCHDOG
        assert_pico_shows_the_killer_screen_and_red(table, bus)
        click(table, PICO)
        assert presses(events, PICO) == [True, False]


def test_flipped_bits_cut_frames_and_noise_next_to_seat_2s_pico_lose_no_press_and_no_picture(firmware):
    with mixed_table(firmware) as (table, bus, events):
        faults = bus.line_faults = LineFaults(rate=0.25, seed=3)
        for _ in range(3):
            click(table, PICO)
            click(table, 3)
        table.table.seats[PICO].display(render(RoleReveal(seat=PICO, role="police")))
        table.table.run_for(0.3)
        bus.line_faults = None  # what the master still had to repeat goes out on a clean line
        table.table.run_for(0.3)
        assert {"flipped", "cut", "noise"} <= set(faults.counts), faults.counts
        assert table.master.stats.corrupt_detected > 0
        assert presses(events, PICO) == [True, False] * 3
        assert presses(events, 3) == [True, False] * 3
        police = ssd1306_bytes(render(RoleReveal(seat=PICO, role="police")).convert("1"))
        assert bytes(bus.picos[PICO].screen.ram) == police


def test_seat_2s_image_on_two_boards_their_answers_garble_each_other_on_the_line_never_two_good_frames(
        firmware, tmp_path):
    """Seat 2's image flashed by mistake on a Pico and on a board under micropython: both answer seat 2's frames
    on one pair. Where their answers overlap on the wire (a roll call in a POLL_ALL slot, or an IDENTIFY), the
    master's decoder gets garbage (a CRC error: it polls by name, PROTOCOL.md "POLL_ALL"), never a good frame;
    where they do not, it gets both (a roll call: each node that reaches its slot in time). The micropython node answers a little later each time, across the Pico's
    answer."""
    with twice_seat_2(firmware, tmp_path) as bus:
        # collided? -> (good frames, bytes the decoder threw away)
        seen: dict[bool, list[tuple[int, int]]] = {True: [], False: []}
        identify_apart: list[int] = []  # good frames of the IDENTIFYs whose two answers did not overlap
        for step in range(40):
            bus.turnaround = 0.0002 + step * 0.00005
            if step % 2:
                frame = sb.encode_frame(PICO, step, sb.IDENTIFY)
            else:
                poll_all = sb.encode_poll_all(sb.poll_all_slot_us(bus.baud), PICO, [PICO], [])
                frame = sb.encode_frame(sb.BROADCAST, step, sb.POLL_ALL, poll_all)
            before = bus.cross_collisions
            bus.write(frame)
            decoder = sb.Decoder()
            good = [f for f in decoder.feed(until_quiet(bus, 0.005)) if f.from_node and f.addr == PICO]
            collided = bus.cross_collisions > before
            seen[collided].append((len(good), decoder.crc_errors + decoder.dropped_bytes))
            if step % 2 and not collided:
                identify_apart.append(len(good))
        assert seen[True], "the two answers never overlapped"
        assert all(good == 0 and garbage > 0 for good, garbage in seen[True]), seen[True]
        # Apart, nothing is garbled; a node too late for its POLL_ALL slot stays silent rather than talk over the
        # next one (PROTOCOL.md "Slot timing"), so a roll call may bring one answer; an IDENTIFY brings both.
        assert seen[False] and all(good in (1, 2) and garbage == 0 for good, garbage in seen[False]), seen[False]
        assert identify_apart and all(good == 2 for good in identify_apart), identify_apart


@contextmanager
def twice_seat_2(firmware: bytes, tmp: Path) -> Iterator[PicoBus]:
    """A line with seat 2's image on a Pico and seat 2's config on a node under micropython (and seat 1)."""
    try:
        emulated = EmulatedBus()
    except emulator_setup.SetupError as err:
        pytest.fail(f"the emulated Pico cannot start: {err}")
    config = seat_config(PICO)
    path = tmp / "seat-02.uf2"
    path.write_bytes(node_uf2(firmware, config))
    pico = emulated.add(path, config)

    def make_bus(nodes: dict[int, SimNode], **kwargs: object) -> PicoBus:
        return PicoBus(nodes, emulated=emulated, picos={PICO: pico}, **kwargs)

    with start_sim_table(2, make_bus=make_bus) as table:
        bus = table.bus
        assert isinstance(bus, PicoBus)
        until_quiet(bus, 0.3)  # both boot
        yield bus


def until_quiet(bus: PicoBus, seconds: float) -> bytes:
    """Everything the line carries to the master in the next ``seconds``."""
    heard = b""
    end = bus.now() + seconds
    while bus.now() < end:
        heard += bus.read(end - bus.now())
    return heard


def test_two_picos_flashed_with_seat_5s_image_answer_at_once_and_the_master_hears_garbage(firmware, tmp_path):
    """The same image on two Picos: both answer IDENTIFY in the same microseconds, and the pair carries the
    two answers' bytes on top of each other (picobus.js), not one after the other as two good frames."""
    with EmulatedBus() as bus:
        config = seat_config(5)
        path = tmp_path / "seat-05.uf2"
        path.write_bytes(node_uf2(firmware, config))
        bus.add(path, config)
        bus.add(path, config)
        bus.run(0.3)
        bus.write(sb.encode_frame(5, 1, sb.IDENTIFY))
        decoder = sb.Decoder()
        frames = decoder.feed(bus.run(0.01))
        assert frames == [] and decoder.dropped_bytes + decoder.crc_errors > 0
        assert bus.collisions > 0


def test_noise_on_the_line_while_seat_5s_pico_answers_garbles_the_answer_and_the_retry_is_clean(firmware, tmp_path):
    with EmulatedBus() as bus:
        config = seat_config(5)
        path = tmp_path / "seat-05.uf2"
        path.write_bytes(node_uf2(firmware, config))
        bus.add(path, config)
        bus.run(0.3)
        bus.write(sb.encode_frame(5, 1, sb.IDENTIFY))
        bus.noise(b"\x55" * 300, after=0.0002)  # 3 ms of noise from 0.2 ms after the frame on
        decoder = sb.Decoder()
        assert decoder.feed(bus.run(0.01)) == [] and bus.collisions > 0
        bus.write(sb.encode_frame(5, 2, sb.IDENTIFY))
        frames = decoder.feed(bus.run(0.01))
        assert [(f.addr, f.seq, f.mtype) for f in frames] == [(5, 2, sb.IDENTITY)]
