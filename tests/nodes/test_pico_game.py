"""A game at a table where two seats are emulated Picos running the rp2 image (``./dev firmware``), and the
other seats and the judge's remote run the same firmware under ``micropython``: the unchanged master, director
and bots, the players' fingers on the Picos' button pins and their cards on the Picos' MFRC522s, one clock
(controller/nodes/pico_table.py).

Both run in ``./dev test``: the start of the deal (seats 1 and 2 on Picos tap their cards: about 8 s of the
host's CPU) and the whole game (seats 2 and 5: about 11 emulated seconds per Pico, a minute of the host's CPU, on
one of the suite's workers while the other goes on). ``./dev system-test`` plays the whole game again on the host
after its VM is off (TIANHEI_PICO_GAME=1, which changes nothing here).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from controller.director.timing import Timings
from controller.nodes import emulator_setup
from controller.nodes.pico_table import PicoBus
from controller.ports import ButtonEvent, CardEvent
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import load_variant
from controller.sessions.bus_session import BusSession
from tests.bus.test_bus_game import per_seat, simultaneous_hands_sorted

PICOS = (2, 5)
SEED = 1
#: The table's timers compressed, as the other whole-game tests do: the game's course is the same, its
#: silences shorter (and a silence costs the Picos nothing: their clocks stop while the table is quiet).
FAST = Timings(night_action_s=5, recognition_s=2, answer_s=1, reveal_s=1.0, speech_s=3, last_words_s=2,
               defence_claim_s=2, defence_s=2, direction_s=2, tally_s=1, notice_s=1)


def six_seats() -> GameConfig:
    return configure(load_variant("classic-1.0"), 6, {}, None, [], talk=False)


@contextmanager
def seated(firmware: bytes, picos: tuple[int, ...]) -> Iterator[BusSession]:
    """The table started (every node found, the deal begun) with the seats ``picos`` on emulated Picos."""
    try:
        session = BusSession(six_seats(), SEED, "heuristic", timings=FAST, picos=picos, pico_firmware=firmware)
    except emulator_setup.SetupError as err:
        pytest.fail(f"the emulated Picos cannot start: {err}")
    with session:
        session.start()
        yield session


def pico_bus(session: BusSession) -> PicoBus:
    bus = session.sim.bus
    assert isinstance(bus, PicoBus)
    return bus


def screens_settled(session: BusSession) -> None:
    """Let every picture go out (the master may hold one to send to several seats at once) and be drawn (a node
    ACKs a picture before it draws it)."""
    master = session.sim.master
    session.clock.run(until=lambda: not master.queued(), max_time=session.clock.now() + 1.0)  # over or not
    assert not master.queued()
    pico_bus(session).settle(0.1)


def assert_picos_show_what_the_host_drew(session: BusSession) -> None:
    bus = pico_bus(session)
    for seat in bus.picos:
        drawn = bytes(bus.picos[seat].screen.ram)
        assert drawn == bytes(session.sim.table.seats[seat].screen.interface.shadow), f"seat {seat}'s screen"


def test_seats_1_and_2_on_picos_tap_their_role_cards_and_show_what_the_host_drew(firmware: bytes) -> None:
    """The first two players to tap (the deal goes round the table), so the test ends early."""
    with seated(firmware, (1, 2)) as table:
        d = table.director
        table.run_until(lambda: all(d.ui[seat].cards for seat in (1, 2)), max_time=30.0)
        for seat in (1, 2):
            # the card a player laid on the Pico's reader, read by the rp2 firmware's MFRC522 driver, reached
            # the director as that seat's card, and nothing else did
            assert d.ui[seat].cards == table.hands_dealt[seat]
            cards = [e for e in table.inputs if isinstance(e, CardEvent) and e.seat == seat]
            assert [(e.uid, e.present) for e in cards][:1] == [(table.hands_dealt[seat][0], True)]
        screens_settled(table)
        assert_picos_show_what_the_host_drew(table)


@pytest.mark.slow
def test_a_whole_game_with_two_seats_on_picos_is_the_game_the_micropython_seats_play(firmware: bytes) -> None:
    with seated(firmware, PICOS) as table:
        whole_game(table)


def whole_game(table: BusSession) -> None:
    table.run(max_time=600.0)
    d = table.director
    assert d.stage == "over" and d.state is not None and d.state.winner in ("good", "killers", "draw")
    # every finger movement on a Pico's button pin reached the director once, in order
    touches = [(seat, button, pressed) for _, seat, button, pressed in table.hands.touches if seat in PICOS]
    seen = [(e.seat, e.button, e.pressed) for e in table.inputs if isinstance(e, ButtonEvent) and e.seat in PICOS]
    assert touches and per_seat(seen) == per_seat(touches)  # type: ignore[arg-type]
    # and the game went as it goes when every seat runs the firmware under micropython
    with BusSession(six_seats(), SEED, "heuristic", timings=FAST) as same:
        same.start()
        same.run(max_time=600.0)
        # (the hands raised at one call in seat order: they go up at once, V2.6, and cross the bus in any order)
        assert simultaneous_hands_sorted(list(d.events)) == simultaneous_hands_sorted(list(same.director.events))
    screens_settled(table)
    assert_picos_show_what_the_host_drew(table)
    bus = pico_bus(table)
    for seat in PICOS:
        lit = bus.picos[seat].led()
        wanted = table.sim.master.nodes[seat].led
        assert wanted is not None
        assert all(abs(duty - level / 255) < 0.01 for duty, level in zip(lit, wanted, strict=True)), seat
