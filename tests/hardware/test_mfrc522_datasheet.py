"""The MFRC522 drivers (controller and firmware) and both fakes against the data sheet (rev. 3.9): the register
map (§9.2), SPI addressing (§8.1.2), the reset values a driver depends on (§9.3), the commands each fake carries
out, and CRC_A (ISO/IEC 14443-3 Annex B) with its published vectors, each vector checked against crccheck's
CRC-16/ISO-IEC-14443-3-A as a second source."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from crccheck.crc import Crc16IsoIec144433A
from hypothesis import given
from hypothesis import strategies as st

from controller.gpio.clock import FakeClock
from controller.nfc import mfrc522 as m
from controller.nfc.fakes import CRC_PRESETS, FakeMfrc522

from .fw import fake_machine, firmware_module

#: §9.2 register overview (the registers the drivers use): name -> address.
REGISTER_MAP = {
    "CommandReg": 0x01, "ComIEnReg": 0x02, "ComIrqReg": 0x04, "DivIrqReg": 0x05, "ErrorReg": 0x06,
    "FIFODataReg": 0x09, "FIFOLevelReg": 0x0A, "ControlReg": 0x0C, "BitFramingReg": 0x0D, "CollReg": 0x0E,
    "ModeReg": 0x11, "TxControlReg": 0x14, "TxASKReg": 0x15, "CRCResultRegH": 0x21, "CRCResultRegL": 0x22,
    "TModeReg": 0x2A, "TPrescalerReg": 0x2B, "TReloadRegH": 0x2C, "TReloadRegL": 0x2D, "VersionReg": 0x37,
}
OURS = {"CommandReg": "COMMAND", "ComIEnReg": "COM_IEN", "ComIrqReg": "COM_IRQ", "DivIrqReg": "DIV_IRQ",
        "ErrorReg": "ERROR", "FIFODataReg": "FIFO_DATA", "FIFOLevelReg": "FIFO_LEVEL", "ControlReg": "CONTROL",
        "BitFramingReg": "BIT_FRAMING", "CollReg": "COLL", "ModeReg": "MODE", "TxControlReg": "TX_CONTROL",
        "TxASKReg": "TX_ASK", "CRCResultRegH": "CRC_RESULT_H", "CRCResultRegL": "CRC_RESULT_L",
        "TModeReg": "T_MODE", "TPrescalerReg": "T_PRESCALER", "TReloadRegH": "T_RELOAD_H",
        "TReloadRegL": "T_RELOAD_L", "VersionReg": "VERSION"}
#: ISO/IEC 14443-3 Annex B worked examples (CRC_A, transmitted low byte first).
CRC_A_VECTORS = [(b"\x00\x00", b"\xa0\x1e"), (b"\x12\x34", b"\x26\xcf")]


def firmware_driver(fake: Any) -> Any:
    """The firmware's MFRC522 driver (firmware/lib/mfrc522.py) on the firmware's fake, under CPython."""

    class Spi:
        def write(self, buf: bytes) -> None:
            fake.spi_transfer(buf)

        def write_readinto(self, wbuf: bytes, rbuf: bytearray) -> None:
            rbuf[:] = fake.spi_transfer(wbuf)

    class Cs:
        def value(self, v: int) -> None:
            pass

    return firmware_module("mfrc522").MFRC522(Spi(), Cs())


def test_our_register_addresses_are_the_data_sheets() -> None:
    fw = firmware_module("mfrc522")
    for name, address in REGISTER_MAP.items():
        assert getattr(m, OURS[name]) == address, f"controller driver: {name}"
        if hasattr(fw, OURS[name]):
            assert getattr(fw, OURS[name]) == address, f"firmware driver: {name}"


def test_spi_address_bytes_follow_8_1_2_3() -> None:
    class Spy:
        def __init__(self) -> None:
            self.sent: list[list[int]] = []

        def xfer(self, data: list[int]) -> list[int]:
            self.sent.append(data)
            return [0] * len(data)

    spy = Spy()
    driver = m.Mfrc522(spy, FakeClock())
    driver.write(m.MODE, 0x3D)
    driver.read(m.FIFO_DATA, 3)
    assert spy.sent == [[0x22, 0x3D], [0x92, 0x92, 0x92, 0x00]], "write: reg<<1; read: 0x80|reg<<1, then 00"


def test_a_read_of_several_addresses_answers_each_one_byte_later() -> None:
    chip = FakeMfrc522()
    out = chip.xfer([0x80 | m.VERSION << 1, 0x80 | m.MODE << 1, 0x80 | m.TX_CONTROL << 1, 0x00])
    assert out[1:] == [0x92, 0x3F, 0x80], "VersionReg, then the reset values of ModeReg and TxControlReg"


@pytest.mark.parametrize("kind", ["controller", "firmware"])
def test_after_reset_the_crc_preset_is_ffff_and_the_antenna_is_off(kind: str) -> None:
    """Why both drivers write ModeReg 3Dh (CRCPreset 01b = 6363h) and set TxControlReg bits 1:0."""
    if kind == "controller":
        chip = FakeMfrc522()
        crc = _coprocessor(chip.xfer, [0x12, 0x34])
    else:
        fake = fake_machine().FakeMFRC522()
        crc = _coprocessor(lambda d: list(fake.spi_transfer(bytes(d))), [0x12, 0x34])
    assert crc != b"\x26\xcf", "with the reset preset FFFFh the coprocessor does not give CRC_A"


def _coprocessor(send: Callable[[list[int]], list[int]], data: list[int]) -> bytes:
    """CalcCRC by hand: flush the FIFO, fill it, start the command, read CRCResultReg (low, then high)."""
    send([m.FIFO_LEVEL << 1, 0x80])
    send([m.FIFO_DATA << 1, *data])
    send([m.COMMAND << 1, m.CALC_CRC])
    low = send([0x80 | m.CRC_RESULT_L << 1, 0])[1]
    high = send([0x80 | m.CRC_RESULT_H << 1, 0])[1]
    return bytes([low, high])


@pytest.mark.parametrize("kind", ["controller", "firmware"])
def test_both_drivers_set_the_crc_a_preset_and_switch_the_antenna_on(kind: str) -> None:
    if kind == "controller":
        chip = FakeMfrc522()
        m.Mfrc522(chip, FakeClock()).init()
        regs = chip.regs
    else:
        fake = fake_machine().FakeMFRC522()
        assert firmware_driver(fake).init() == 0x92
        regs = fake.regs
    assert CRC_PRESETS[regs[m.MODE] & 0x03] == 0x6363
    assert regs[m.TX_CONTROL] & 0x03 == 0x03
    assert regs[m.TX_ASK] & 0x40, "Force100ASK: ISO/IEC 14443 A's 100 % ASK"


def timer_ms(regs: list[int] | bytearray) -> float:
    """The timer's period from TModeReg, TPrescalerReg and TReloadReg (§8.5, TPrescalEven = 0)."""
    prescaler = (regs[m.T_MODE] & 0x0F) << 8 | regs[m.T_PRESCALER]
    reload = regs[m.T_RELOAD_H] << 8 | regs[m.T_RELOAD_L]
    return (2 * prescaler + 1) * (reload + 1) / 13.56e6 * 1000


def test_the_receive_timeouts_the_drivers_set_are_the_ones_they_say() -> None:
    chip = FakeMfrc522()
    m.Mfrc522(chip, FakeClock()).init()
    assert chip.regs[m.T_MODE] & 0x80, "TAuto: the timer starts when the frame is sent"
    assert timer_ms(chip.regs) == pytest.approx(25.0, abs=0.1), "the controller driver says 25 ms"
    fake = fake_machine().FakeMFRC522()
    firmware_driver(fake).init()
    assert timer_ms(fake.regs) == pytest.approx(15.5, abs=0.1), "the firmware driver says ~15 ms"
    assert "~15 ms" in (firmware_module("mfrc522").__doc__ or "")


@pytest.mark.parametrize(("data", "crc"), CRC_A_VECTORS)
def test_crc_a_vectors_agree_with_a_second_source(data: bytes, crc: bytes) -> None:
    assert Crc16IsoIec144433A.calc(data).to_bytes(2, "little") == crc, "crccheck disagrees with the vector"
    assert m.crc_a(data) == crc
    assert firmware_module("mfrc522").crc_a(data) == crc
    assert fake_machine().crc_a(data) == crc


def test_the_second_source_is_the_catalogued_crc() -> None:
    assert Crc16IsoIec144433A.calc(b"123456789") == 0xBF05, "the CRC catalogue's check value"


@given(st.binary(max_size=64))
def test_every_crc_a_here_is_crccheck_s(data: bytes) -> None:
    expected = Crc16IsoIec144433A.calc(data).to_bytes(2, "little")
    assert m.crc_a(data) == expected
    assert firmware_module("mfrc522").crc_a(data) == expected
    assert fake_machine().crc_a(data) == expected
    chip = FakeMfrc522()
    chip.xfer([m.MODE << 1, 0x3D])
    assert _coprocessor(chip.xfer, list(data)) == expected, "the fake's coprocessor with preset 6363h"


def test_each_fake_says_which_commands_it_carries_out() -> None:
    assert FakeMfrc522.IMPLEMENTED == {0x00: "Idle", 0x03: "CalcCRC", 0x0C: "Transceive", 0x0F: "SoftReset"}
    for command in range(16):
        chip = FakeMfrc522()
        chip.xfer([m.COM_IRQ << 1, 0x7F])
        chip.xfer([m.COMMAND << 1, command])
        if command not in FakeMfrc522.IMPLEMENTED:
            assert chip.regs[m.COMMAND] & 0x0F == m.IDLE and chip.regs[m.COM_IRQ] & m.IDLE_IRQ, (
                f"command {command:#x}: not carried out, so back to Idle with IdleIRq, never stuck")
    assert FakeMfrc522().unknown == []


def stepped_reader(fake: FakeMfrc522) -> Any:
    """The firmware's driver on the emulator's fake (controller/nfc/fakes.py), whose exchanges take air time."""

    class Spi:
        def write(self, buf: bytes) -> None:
            fake.xfer(list(buf))

        def write_readinto(self, wbuf: bytes, rbuf: bytearray) -> None:
            rbuf[:] = bytes(fake.xfer(list(wbuf)))

    class Cs:
        def value(self, v: int) -> None:
            pass

    reader = firmware_module("mfrc522").MFRC522(Spi(), Cs())
    reader.init()
    return reader


def test_with_no_card_each_try_of_a_seats_scan_ends_on_the_chips_timer_while_the_loop_runs_on() -> None:
    """§8.5: TAuto starts the timer at the WUPA's end, and it runs out after (2 * 0xD3E + 1) * 31 / 13.56 MHz =
    15.5 ms; until then the seat's loop looks (poll) and goes on. Two tries, then no card."""
    fake = FakeMfrc522()
    fake.now_ns = 0
    reader = stepped_reader(fake)
    reader.begin()
    assert reader.poll() is None, "the WUPA is on the air: nothing to say yet"
    fake.now_ns = 15_000_000
    assert reader.poll() is None
    fake.now_ns = 15_700_000
    assert reader.poll() is None, "the first try ran out; the second WUPA is on the air"
    assert [f.hex() for f in fake.frames] == ["52", "52"]
    fake.now_ns = 31_500_000
    assert reader.poll() == b"", "both tries ran out: no card"


def test_a_card_laid_on_a_seat_is_read_over_a_few_exchanges_of_air_time() -> None:
    """ISO/IEC 14443-3 at 106 kbit/s: the ATQA comes the frame-delay time (91 µs) after the WUPA, and a 7-byte UID
    takes two cascade levels of anticollision and SELECT: 0.4 ms for the WUPA and its answer, 0.7 for each
    anticollision, 1.2 for each SELECT (9 bytes out), about 4.1 ms in all; the seat looks once a pass, here every
    50 µs."""
    fake = FakeMfrc522()
    fake.card = bytes.fromhex("04E7C200000001")
    fake.now_ns = 0
    reader = stepped_reader(fake)
    reader.begin()
    looks = 0
    uid = None
    while uid is None and looks < 1000:
        fake.now_ns += 50_000
        looks += 1
        uid = reader.poll()
    assert uid == fake.card
    assert 4.0 < fake.now_ns / 1e6 < 4.5, "five exchanges' air time, not the 15.5 ms timer"
    assert fake.frames[-1].hex() == "5000" + m.crc_a(b"\x50\x00").hex(), "HLTA, so the next scan's WUPA finds it"
