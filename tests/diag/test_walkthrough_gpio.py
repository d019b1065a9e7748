"""``tianhei diag`` on the gpio adapter: a compact-8 table on gpiozero's MockFactory, an MCP23017 model, SSD1306
models and fake PN532 chips. People press by driving pins low (or an expander input) and tap by putting a card
on a PN532; the table's I/O step runs from the script's own virtual clock, so nothing sleeps."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.diag.script import ScriptRunner, Wait
from controller.diag.walkthrough import LED_CYCLE, Diagnostic, DiagReport, Verdict
from controller.director.clock import VirtualScheduler
from controller.ports import Button
from controller.screens.strings import Lang
from controller.voice.null_voice import NullVoice
from tests.gpio.rig import Rig, make_rig

IO_PERIOD = 0.02


class GpioPeople:
    """People at the mock compact-8 table; ``absent`` seats never answer."""

    def __init__(self, rig: Rig, clock: VirtualScheduler, anyone: int, absent: tuple[int, ...] = ()) -> None:
        self.rig, self.clock, self.anyone, self.absent = rig, clock, anyone, absent
        self.cards = 0

    def sync(self) -> None:
        """Bring the adapter's clock to the script's (the adapter debounces and polls on its own clock)."""
        self.rig.clock.now = 100.0 + self.clock.now()

    def on_wait(self, wait: Wait) -> None:
        kind, seat = wait.hint[0], wait.hint[1]
        seat = self.anyone if seat is None else seat
        if seat in self.absent:
            return
        later = self.clock.now() + 0.8 + (wait.hint[2] if kind == "confirm" else 0.0)
        if kind == "confirm":
            self.clock.call_at(later, lambda: self.press(seat, Button.OK))
        elif kind == "button":
            self.clock.call_at(later, lambda: self.press(seat, wait.hint[2]))
        elif kind == "card":
            self.clock.call_at(later, lambda: self.tap(seat))

    def press(self, seat: int, button: Button) -> None:
        pin = self.rig.profile.seat(seat).buttons[button]
        self.sync()
        self._level(pin.chip, pin.index, down=True)
        self.clock.call_at(self.clock.now() + 0.15, lambda: self._release(pin.chip, pin.index))

    def _release(self, chip: str | None, index: int) -> None:
        self.sync()
        self._level(chip, index, down=False)

    def _level(self, chip: str | None, index: int, down: bool) -> None:
        if chip is None:
            mock = self.rig.pin(index)
            mock.drive_low() if down else mock.drive_high()
        else:
            self.rig.press_expander(chip, index, down)

    def tap(self, seat: int) -> None:
        self.cards += 1
        self.rig.readers[seat].card = bytes([0x04, 0xD1, 0xA6, 0x00, 0x00, 0x00, self.cards])
        self.clock.call_at(self.clock.now() + 0.5, lambda: setattr(self.rig.readers[seat], "card", None))


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = make_rig()
    yield r
    r.table.stop()
    r.factory.close()


def led_colour(rig: Rig, seat: int) -> tuple[bool, bool, bool]:
    pins = rig.profile.seat(seat).led.pins  # type: ignore[union-attr]
    return tuple(rig.expanders[p.chip].output(p.index) for p in pins if p.chip)  # type: ignore[return-value]


def run(rig: Rig, seats: list[int], absent: tuple[int, ...] = ()) -> tuple[DiagReport, set[tuple[bool, ...]]]:
    clock = VirtualScheduler()
    people = GpioPeople(rig, clock, seats[0], absent)
    diag = Diagnostic(rig.table, NullVoice(clock.now), clock, lang=Lang.EN, deadline_s=8.0, seats=seats)
    runner = ScriptRunner(clock, diag.script())
    runner.listeners.append(people.on_wait)
    colours: set[tuple[bool, ...]] = set()

    def io() -> None:  # the adapter's I/O thread, one turn per tick
        people.sync()
        rig.table.step()
        colours.add(led_colour(rig, seats[0]))
        clock.call_at(clock.now() + IO_PERIOD, io)

    rig.table.start(runner.handle, thread=False)
    clock.call_soon(io)
    runner.start()
    clock.run(until=lambda: runner.done)
    assert runner.done
    return runner.result, colours


def test_two_seats_pass_every_part_through_pins_the_expander_and_the_pn532(rig: Rig) -> None:
    report, colours = run(rig, [2, 5])
    assert report.ok, report.table()
    assert report.cards == {2: "04D1A600000001", 5: "04D1A600000002"}
    assert {(True, False, False), (False, True, False), (False, False, True)} <= colours, "red, green, blue lit"
    assert len(LED_CYCLE) == 3
    assert any(rig.screens[2].data) and any(rig.screens[5].data), "frames reached both SSD1306s through the mux"
    assert not any(rig.screens[3].data), "seat 3 was not tested: its screen stayed dark"


def test_seat_7_is_dead_so_its_parts_fail_and_seat_1_still_passes(rig: Rig) -> None:
    report, _ = run(rig, [1, 7], absent=(7,))
    assert all(v is Verdict.PASS for v in report.seats[1].values())
    assert set(report.seats[7].values()) == {Verdict.NO_ANSWER}
    assert report.voice is Verdict.PASS
