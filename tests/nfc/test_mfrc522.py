"""The MFRC522 driver against a fake chip with a real register file, FIFO and CRC coprocessor."""

from __future__ import annotations

import pytest

from controller.gpio.clock import FakeClock
from controller.nfc import mfrc522 as m
from controller.nfc.fakes import FakeMfrc522
from controller.nfc.reader import NfcError


def reader(chip: FakeMfrc522) -> m.Mfrc522:
    return m.Mfrc522(chip, FakeClock())


def test_crc_a_matches_iso14443_examples() -> None:
    assert m.crc_a([0x00, 0x00]) == bytes([0xA0, 0x1E])
    assert m.crc_a([0x50, 0x00]) == bytes([0x57, 0xCD])  # HLTA


def test_register_addressing_follows_the_datasheet() -> None:
    class Spy:
        def __init__(self) -> None:
            self.sent: list[list[int]] = []

        def xfer(self, data: list[int]) -> list[int]:
            self.sent.append(data)
            return [0] * len(data)

    spy = Spy()
    chip = m.Mfrc522(spy, FakeClock())
    chip.write(m.COMMAND, m.SOFT_RESET)
    chip.read1(m.VERSION)
    assert spy.sent == [[0x02, 0x0F], [0xEE, 0x00]]


def test_init_turns_the_antenna_on() -> None:
    chip = FakeMfrc522()
    reader(chip).init()
    assert chip.regs[m.TX_CONTROL] & 0x03 == 0x03
    assert chip.regs[m.T_MODE] == 0x80


def test_a_wrong_chip_is_reported() -> None:
    with pytest.raises(NfcError, match="VersionReg"):
        reader(FakeMfrc522(version=0x00)).init()


def test_no_card_gives_none() -> None:
    assert reader(FakeMfrc522()).poll() is None


def test_a_four_byte_card() -> None:
    chip = FakeMfrc522()
    chip.card = bytes.fromhex("A1B2C3D4")
    assert reader(chip).poll() == "A1B2C3D4"
    assert chip.halted, "the card is put to sleep so the next WUPA sees it again"


def test_a_seven_byte_ntag_goes_through_two_cascade_levels() -> None:
    chip = FakeMfrc522()
    chip.card = bytes.fromhex("04A2B3C4D5E680")
    r = reader(chip)
    assert r.poll() == "04A2B3C4D5E680"
    assert r.poll() == "04A2B3C4D5E680", "a card left on the reader is seen on every poll"


def test_select_frames_carry_the_coprocessors_crc() -> None:
    chip = FakeMfrc522()
    chip.card = bytes.fromhex("A1B2C3D4")
    reader(chip).poll()
    select = next(f for f in chip.frames if len(f) == 9)
    assert select[7:] == m.crc_a(select[:7])


def test_a_bad_bcc_is_a_clear_error() -> None:
    chip = FakeMfrc522()
    chip.card = bytes.fromhex("A1B2C3D4")
    chip.corrupt_bcc = 1
    with pytest.raises(NfcError, match="BCC"):
        reader(chip).poll()
    assert reader(chip).poll() == "A1B2C3D4", "the next poll works again"


def test_a_chip_that_never_finishes_times_out() -> None:
    class Stuck(FakeMfrc522):
        def _transceive(self, last_bits: int) -> None:
            pass

    r = reader(Stuck())
    r.init()
    with pytest.raises(NfcError, match="did not finish"):
        r.poll()
    assert r.clock.monotonic() <= r.timeout + r.poll_interval + 1e-9
