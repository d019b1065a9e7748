"""nfcpy's PN532 driver (PyPI ``nfcpy``, as published) opens the fake PN532 over HSU the way it opens a reader on a
serial port, finds a card, reads an NTAG page and puts the chip to sleep; then it opens it again. nfcpy differs
from Adafruit's driver where the fake used to be wrong: it wakes the chip with ten 00 bytes and no 55 55, reads
and writes the CIU's registers, selects a card by its UID with the cascade tags, and reads a type 2 tag with the
CRC check off (docs/hardware-truth.md, PN532 rows 18-22). Only nfcpy's serial port is a shim; its sleeps run on a
virtual clock."""

from __future__ import annotations

import os
from typing import Any

import pytest

from controller.nfc.fakes import FakePn532

from .shims import VirtualTime

CARD = bytes.fromhex("04A2B3C4D5E680")


class NfcpySerial:
    """What nfcpy's TTY transport uses of a pyserial port, over the fake chip's serial side."""

    def __init__(self, chip: FakePn532, port: str, baudrate: int) -> None:
        self.chip, self.port, self.baudrate, self.timeout = chip, port, baudrate, 0.05

    def read(self, size: int = 1) -> bytes:
        return self.chip.read(size)

    def write(self, data: bytes) -> int:
        return self.chip.write(bytes(data))

    def flushInput(self) -> None:  # pyserial 2's name, which nfcpy calls
        self.chip.reset_input_buffer()

    def flushOutput(self) -> None:
        pass

    def close(self) -> None:
        pass


def open_reader(chip: FakePn532, monkeypatch: pytest.MonkeyPatch, stty_ok: bool = True) -> Any:
    """nfcpy's ``pn532.init`` on its TTY transport, with the port handed the fake instead of a device file.
    ``stty_ok``: whether the port takes 921600 baud (nfcpy then asks the chip to switch, SetSerialBaudRate)."""
    import nfc.clf.pn53x
    import nfc.clf.transport
    from nfc.clf import pn532

    clock = VirtualTime()
    for module in (pn532, nfc.clf.pn53x):
        monkeypatch.setattr(module, "time", clock)
    monkeypatch.setattr(os, "system", lambda command: 0 if stty_ok else 1)  # nfcpy's `stty -F PORT 921600`

    class FakeTty(nfc.clf.transport.TTY):
        def open(self, port: str, baudrate: int = 115200) -> None:
            self.tty = NfcpySerial(chip, port, baudrate)

    transport = FakeTty("/dev/ttyPN532")
    return pn532.init(transport)


@pytest.fixture
def chip() -> FakePn532:
    return FakePn532()


def test_nfcpy_opens_the_reader_over_hsu_and_switches_it_to_921600_baud(chip: FakePn532,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    device = open_reader(chip, monkeypatch)
    assert device.chipset_name == "PN532v1.6"
    assert chip.baud == 921600 and device.chipset.transport.baudrate == 921600
    assert chip.sam_mode == 0x01 and chip.ignored == 0, "ten 00 before the first frame woke the chip"
    assert 0x00 in chip.commands, "its line test (Diagnose, the longest frame) came back whole"


def test_nfcpy_finds_no_card_then_a_card_by_the_reqa_left_in_the_fifo(chip: FakePn532,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import nfc.clf

    device = open_reader(chip, monkeypatch)
    assert device.sense_tta(nfc.clf.RemoteTarget("106A")) is None
    assert chip.commands.count(0x4A) == 1 and chip.unmodelled == [], (
        "26h in the FIFO: nfcpy did not go on to look for a type 1 tag")
    chip.card = CARD
    target = device.sense_tta(nfc.clf.RemoteTarget("106A"))
    assert bytes(target.sdd_res) == CARD and bytes(target.sens_res) == b"\x44\x00"
    assert chip.registers[0x6303] & 0x80 == 0, "a type 2 tag: nfcpy switched the CRC check off"


def test_nfcpy_selects_the_card_by_its_uid_and_reads_a_page(chip: FakePn532,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import nfc.clf

    device = open_reader(chip, monkeypatch)
    chip.card = CARD
    target = device.sense_tta(nfc.clf.RemoteTarget("106A", sel_req=CARD))
    assert target is not None and bytes(target.sdd_res) == CARD, "the UID went with its cascade tag (88)"
    page0 = bytes(device.send_cmd_recv_rsp(target, b"\x30\x00", 0.1))
    assert page0[:4] == CARD[:3] + bytes([0x88 ^ CARD[0] ^ CARD[1] ^ CARD[2]]) and len(page0) == 16, (
        "the CRC_A came back with the tag's bytes, and nfcpy checked and took it off")
    other = CARD[:-1] + b"\x81"
    assert device.sense_tta(nfc.clf.RemoteTarget("106A", sel_req=other)) is None


def test_nfcpy_puts_the_chip_to_sleep_and_wakes_it_again(chip: FakePn532, monkeypatch: pytest.MonkeyPatch) -> None:
    device = open_reader(chip, monkeypatch, stty_ok=False)
    device.close()
    assert chip.powered_down == 1 and not chip.woken, "PowerDown with HSU among the wake-up sources"
    device = open_reader(chip, monkeypatch, stty_ok=False)
    assert device.chipset_name == "PN532v1.6" and chip.baud == 115200


@pytest.mark.real_hardware
def test_nfcpy_opens_the_real_reader_and_reads_its_ciu() -> None:
    """The same opening on the real chip (TIANHEI_TEST_PN532_UART); the CIU's Mode and TxControl are printed
    (pytest -s) beside the fake's reset values, for docs/hardware-truth.md row 19 (the firmware may have changed
    them by the end of nfcpy's opening: SAMConfiguration, RFConfiguration)."""
    import nfc.clf.transport
    from nfc.clf import pn532

    from .conftest import env

    port = env("TIANHEI_TEST_PN532_UART", why="a PN532 in HSU mode on a serial port")
    device = pn532.init(nfc.clf.transport.TTY(port))
    try:
        assert device.chipset_name.startswith("PN532")
        mode, tx_control = device.chipset.read_register("CIU_Mode", "CIU_TxControl")
        print(f"real PN532 after nfcpy's opening: CIU_Mode {mode:02X}h, CIU_TxControl {tx_control:02X}h "
              f"(the fake at reset: 3Bh, 80h)")
    finally:
        device.close()
