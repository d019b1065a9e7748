"""``tianhei diag`` prints each chip's identity and configuration registers as read: on a compact-8 table of
fakes, every PN532's GetFirmwareVersion, every expander's IOCON/IODIR/GPPU, the mux's control register and every
screen's status byte; a clone or a silent chip is a FAIL line that says what it answered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.cli.diag import chips_report
from controller.diag.chips import ChipReading, read_chips
from controller.gpio.clock import FakeClock
from controller.nfc.fakes import FakeMfrc522
from controller.nfc.mfrc522 import Mfrc522
from controller.nfc.reader import CardPresence
from tests.gpio.rig import Rig, make_rig


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = make_rig()
    yield r
    r.table.stop()
    r.factory.close()


def by_part(readings: list[ChipReading]) -> dict[str, ChipReading]:
    return {r.part: r for r in readings}


def test_every_chip_of_the_compact_table_says_what_it_is(rig: Rig) -> None:
    readings = by_part(read_chips(rig.table))
    seat3 = readings["seat 3 reader"]
    assert seat3.chip == "PN532" and seat3.ok
    assert seat3.registers == "GetFirmwareVersion: IC 0x32, firmware 1.6, support 0x07"
    assert len([r for r in readings.values() if r.chip == "PN532"]) == len(rig.profile.seats)
    for name in rig.expanders:
        expander = readings[f"expander {name}"]
        assert expander.ok and expander.registers.startswith("IOCON 0x44"), expander.registers
    assert readings["I2C mux"].registers.startswith("control register")
    assert readings["seat 1 screen"].registers.endswith("(display on)")
    assert all(r.ok for r in readings.values())


def test_a_clone_and_a_dead_reader_are_failures_that_say_what_was_read(rig: Rig) -> None:
    rig.readers[2].firmware = (0x05, 0x01, 0x06, 0x07)
    rig.readers[6].silent = True
    readings = by_part(read_chips(rig.table))
    assert not readings["seat 2 reader"].ok
    assert "IC 0x05" in readings["seat 2 reader"].registers and "a PN532 says IC 0x32" in readings[
        "seat 2 reader"].registers
    assert not readings["seat 6 reader"].ok and readings["seat 6 reader"].registers.startswith("no answer: ")
    assert readings["seat 1 reader"].ok, "the other seats are still read"


def test_an_expander_that_lost_its_configuration_is_a_failure(rig: Rig) -> None:
    name = next(iter(rig.expanders))
    rig.expanders[name].regs[0x0A] = rig.expanders[name].regs[0x0B] = 0x00  # a brown-out reset IOCON
    reading = by_part(read_chips(rig.table))[f"expander {name}"]
    assert not reading.ok and "configured: IOCON 0x44" in reading.registers


def test_an_mfrc522_reports_its_versionreg() -> None:
    from types import SimpleNamespace

    presences = [CardPresence(seat, Mfrc522(FakeMfrc522(version), FakeClock()), lambda e: None, lambda: 0.0)
                 for seat, version in ((4, 0x92), (5, 0x12))]
    table = SimpleNamespace(scheduler=SimpleNamespace(presences=presences))
    readings = by_part(read_chips(table))
    assert readings["seat 4 reader"].registers == "VersionReg (37h): 0x92 (MFRC522 v2.0)"
    assert not readings["seat 5 reader"].ok and "0x12" in readings["seat 5 reader"].registers


def test_the_cli_prints_the_table_and_says_when_there_are_no_chips(rig: Rig) -> None:
    text = chips_report(rig.table, "gpio")
    assert text.startswith("chips as read:")
    assert "seat 8 reader" in text and "PN532" in text and "FAIL" not in text
    assert "simulated table" in chips_report(object(), "sim")
    assert "seat nodes" in chips_report(object(), "bus")
