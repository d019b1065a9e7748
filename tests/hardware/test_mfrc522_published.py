"""The ``mfrc522`` package from PyPI (pimylifeup's MFRC522-python, as published) reads a card through both fake
MFRC522s (the controller's and the firmware's), over a ``spidev`` shim: VersionReg, REQA and anticollision, the
UID SimpleMFRC522 reports, SELECT with the CRC from the chip's coprocessor, and CRC_A's published vectors. With
TIANHEI_REAL_HARDWARE=1 the same checks read the real chip through the real spidev and RPi.GPIO."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from controller.nfc.fakes import FakeMfrc522

from .conftest import env
from .fw import fake_machine
from .shims import SpiDevices, rpi_gpio_modules, spidev_module

CARD4 = bytes.fromhex("A1B2C3D4")
CARD7 = bytes.fromhex("04A2B3C4D5E680")


@dataclass
class Rig:
    package: Any  # the imported mfrc522 package
    chip: Any  # the fake (None on a real chip)
    spi: tuple[int, int]

    def reader(self) -> Any:
        return self.package.MFRC522(bus=self.spi[0], device=self.spi[1])

    def lay_card(self, uid: bytes) -> bytes:
        if self.chip is None:
            return bytes.fromhex(env("TIANHEI_TEST_CARD", why="lay a card on the MFRC522, give its UID"))
        self.chip.card = uid
        return uid


def _forget_package() -> None:
    for name in [n for n in sys.modules if n == "mfrc522" or n.startswith("mfrc522.")]:
        del sys.modules[name]


def _fresh_import() -> Any:
    """The package imported anew, so that it binds the spidev and RPi.GPIO in sys.modules now."""
    _forget_package()
    import mfrc522

    return mfrc522


@pytest.fixture(params=["controller-fake", "firmware-fake",
                        pytest.param("real", marks=pytest.mark.real_hardware)])
def rc522(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    if request.param == "real":
        bus, device = (int(n) for n in env("TIANHEI_TEST_MFRC522_SPI", why="the MFRC522's SPI bus.device").split("."))
        yield Rig(_fresh_import(), None, (bus, device))
        _forget_package()
        return
    chip = FakeMfrc522() if request.param == "controller-fake" else fake_machine().FakeMFRC522()
    devices = SpiDevices()
    devices.devices[(0, 0)] = chip
    rpi, gpio = rpi_gpio_modules()
    monkeypatch.setitem(sys.modules, "spidev", spidev_module(devices))
    monkeypatch.setitem(sys.modules, "RPi", rpi)
    monkeypatch.setitem(sys.modules, "RPi.GPIO", gpio)
    yield Rig(_fresh_import(), chip, (0, 0))
    _forget_package()  # its modules hold the shims: the next import must not find them


def test_versionreg_names_the_chip(rc522: Rig) -> None:
    assert rc522.reader().Read_MFRC522(0x37) in (0x91, 0x92), "VersionReg (37h): MFRC522 v1.0 or v2.0"


def test_simplemfrc522_reads_a_four_byte_uid(rc522: Rig) -> None:
    uid = rc522.lay_card(CARD4)
    bcc = uid[0] ^ uid[1] ^ uid[2] ^ uid[3]
    assert rc522.package.SimpleMFRC522().read_id_no_block() == int.from_bytes(uid[:4] + bytes([bcc]), "big")


def test_reqa_anticollision_and_select_with_the_chips_crc(rc522: Rig) -> None:
    uid = rc522.lay_card(CARD4)
    reader = rc522.reader()
    status, bits = reader.MFRC522_Request(reader.PICC_REQIDL)
    assert status == reader.MI_OK and bits == 16, "ATQA: two bytes"
    status, serial = reader.MFRC522_Anticoll()
    assert status == reader.MI_OK and bytes(serial[:4]) == uid[:4]
    sak = reader.MFRC522_SelectTag(serial)  # SELECT carries the CRC_A the coprocessor computed
    assert sak & 0x04 == 0, "SAK: the UID is complete at level 1"
    if rc522.chip is not None:
        assert sak == 0x08, "the fakes' four-byte card is a MIFARE Classic 1K"


def test_a_seven_byte_ntag_answers_the_cascade_tag_at_level_one(rc522: Rig) -> None:
    """The package stops at cascade level 1, so from a double-size UID it gets CT and the first three bytes —
    what ISO/IEC 14443-3 §6.5.4 says a card answers there (our drivers go on to level 2)."""
    uid = rc522.lay_card(CARD7)
    reader = rc522.reader()
    reader.MFRC522_Request(reader.PICC_REQIDL)
    status, serial = reader.MFRC522_Anticoll()
    assert status == reader.MI_OK
    assert bytes(serial[:4]) == bytes([0x88]) + uid[:3]


@pytest.mark.parametrize(("data", "crc"), [([0x00, 0x00], [0xA0, 0x1E]), ([0x12, 0x34], [0x26, 0xCF])])
def test_the_coprocessor_gives_iso14443_crc_a_vectors(rc522: Rig, data: list[int], crc: list[int]) -> None:
    assert rc522.reader().CalulateCRC(data) == crc  # (the package's spelling)
