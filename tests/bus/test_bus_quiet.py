"""Quiet commands (firmware/PROTOCOL.md, "Quiet commands"): while screens and colours go out, the master sends
them quietly ahead of LISTEN windows and each seat confirms its command in its slot, so the table keeps its slots
and a press is not held up behind an exchange per command. Real firmware nodes (micropython processes) on the
simulated bus. The master sends quietly only when told to (``BusMaster.quiet``): on emulated Picos it did not bring
presses in sooner and screens took longer, as the protocol's document says."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.bus import seatbus as sb
from controller.bus.quiet import QUIET_TRIES
from controller.bus.sim import SimTable, start_sim_table
from controller.ports import InputEvent
from controller.screens.render import render
from controller.screens.views import RoleReveal, TapCard


@pytest.fixture
def table4() -> Iterator[SimTable]:
    events: list[InputEvent] = []
    sim = start_sim_table(4)
    sim.master.noisy_for = 0.0
    sim.master.quiet = True  # (off on the table: see the module's docstring)
    sim.table.start(events.append)
    sim.table.run_for(0.2)
    assert all(n.status == "up" for n in sim.master.nodes.values())
    yield sim
    sim.close()


def lose_confirmations(sim: SimTable, address: int, how_many: int) -> list[int]:
    """The next ``how_many`` confirmations of ``address`` are lost on the line (noise at the host's end); returns
    the SEQ of each that was lost, as it is lost."""
    lost: list[int] = []
    schedule = sim.bus._schedule

    def lossy(when: float, kind: str, to: int, data: bytes = b"") -> None:
        frames = sb.Decoder().feed(data) if kind == "host" and to == address else []
        if frames and frames[0].mtype in (sb.ACK, sb.NAK) and len(lost) < how_many:
            node = sim.master.nodes[address]
            if node.quiet_item is not None and frames[0].seq == node.quiet_seq:
                lost.append(frames[0].seq)
                return
        schedule(when, kind, to, data)

    sim.bus._schedule = lossy  # type: ignore[method-assign]
    return lost


def test_the_deals_screens_go_out_quietly_while_every_seat_keeps_its_slots(table4: SimTable) -> None:
    """Every seat's screen changes at once (the deal): no POLL_ALL cycle and no exchange per command; every
    screen is confirmed in a LISTEN slot and shows what the host drew."""
    sim = table4
    master = sim.master
    stats = master.stats
    poll_alls, confirmed = stats.poll_alls, stats.quiet_confirmed
    for seat, view in zip((1, 2, 3, 4), (TapCard(seat=1), RoleReveal(seat=2, role="killer", partners=(3,)),
                                         RoleReveal(seat=3, role="police"), TapCard(seat=4)), strict=True):
        sim.table.seats[seat].display(render(view))
    sim.table.run_for(0.3)
    assert all(master.settled(seat) for seat in (1, 2, 3, 4))
    for seat in (1, 2, 3, 4):
        assert sim.bus.nodes[seat].screen() == bytes(sim.table.seats[seat].screen.interface.shadow)
    assert stats.poll_alls == poll_alls, "the table listened in windows all along"
    assert stats.quiet_confirmed - confirmed >= 4
    assert stats.timeouts == 0 and sim.bus.counters.collisions == 0 and sim.bus.counters.master_collisions == 0


def test_a_lost_confirmation_sends_the_colour_again_with_its_seq_and_seat_2_applies_it_once(table4: SimTable) -> None:
    sim = table4
    master = sim.master
    lost = lose_confirmations(sim, 2, 1)
    sent = master.stats.quiet_sent
    sim.table.seats[2].set_led((0, 200, 0))
    sim.table.run_for(0.1)
    assert len(lost) == 1
    assert master.settled(2) and sim.bus.nodes[2].led == (0, 200, 0)
    assert master.stats.quiet_sent - sent == 2, "sent, its confirmation lost, sent again"
    assert master.nodes[2].cmd_seq == lost[0], "the same SEQ both times: the seat took the second for a repeat"


def test_a_seat_whose_confirmations_keep_getting_lost_is_sent_its_command_by_name(table4: SimTable) -> None:
    sim = table4
    master = sim.master
    lose_confirmations(sim, 3, QUIET_TRIES)
    by_name = master.stats.quiet_by_name
    sim.table.seats[3].set_led((200, 0, 0))
    sim.table.run_for(0.1)
    assert master.stats.quiet_by_name - by_name == 1
    assert master.settled(3) and sim.bus.nodes[3].led == (200, 0, 0)
    assert master.nodes[3].status == "up"


def test_a_seat_on_firmware_0_7_at_the_table_has_every_command_sent_by_name_as_before(table4: SimTable) -> None:
    """Quiet commands only while every node that is up says CAP_QUIET: with one older seat, POLL_ALL cycles and
    an exchange per command, as firmware 0.7's tables had."""
    sim = table4
    master = sim.master
    node = master.nodes[4]
    assert node.identity is not None
    node.identity["caps"] = int(node.identity["caps"]) & ~sb.CAP_QUIET  # type: ignore[call-overload]
    master._topology += 1
    sent, poll_alls = master.stats.quiet_sent, master.stats.poll_alls
    sim.table.seats[1].set_led((1, 2, 3))
    sim.table.run_for(0.1)
    assert sim.bus.nodes[1].led == (1, 2, 3)
    assert master.stats.quiet_sent == sent and master.stats.poll_alls > poll_alls


@pytest.mark.parametrize("quiet", [True, False], ids=["quietly", "by name"])
def test_a_new_command_never_reuses_the_seq_of_the_seats_last_one(table4: SimTable, quiet: bool) -> None:
    """The SEQ counts every frame the master sends, so it comes round to the SEQ of seat 1's last command: a
    command with it would be taken for a repeat of that one, acked and never applied (the colour stayed)."""
    sim = table4
    master = sim.master
    master.quiet = quiet
    master._topology += 1
    sim.table.seats[1].set_led((10, 0, 0))
    sim.table.run_for(0.1)
    last = master.nodes[1].cmd_seq
    assert last is not None and sim.bus.nodes[1].led == (10, 0, 0)
    master.abandon_span()
    master._seq = (last - 1) & 0xFF  # the next SEQ would be the last command's
    sim.table.seats[1].set_led((0, 0, 10))
    sim.table.run_for(0.1)
    assert sim.bus.nodes[1].led == (0, 0, 10)
    assert master.nodes[1].cmd_seq != last
