"""Adafruit's PN532 driver (adafruit-circuitpython-pn532, as published) reads the fake PN532 over I2C, through
the TCA9548A, and over UART: firmware version, SAM configuration, a card's UID, NTAG pages, and the fake's answer
to a command it does not know. The same checks run on the real chip with TIANHEI_REAL_HARDWARE=1."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from controller.gpio.fakes import FakeI2cBus
from controller.nfc.fakes import FakePn532
from controller.nfc.ndef import read_text

from .conftest import env, env_int
from .shims import BusioI2c, VirtualTime

CARD = bytes.fromhex("04A2B3C4D5E680")


@dataclass
class Rig:
    """A PN532 as Adafruit's driver sees it; ``chip`` is the fake (None on real hardware)."""

    driver: Any
    chip: FakePn532 | None
    clock: VirtualTime | None

    def lay_card(self, uid: bytes) -> bytes:
        """Put ``uid`` on the fake reader; on a real one, the card that lies there (TIANHEI_TEST_CARD)."""
        if self.chip is None:
            return bytes.fromhex(env("TIANHEI_TEST_CARD", why="lay an NTAG card on the reader, give its UID"))
        self.chip.card = uid
        return uid


def fake_i2c(vtime: VirtualTime, through_mux: bool) -> Rig:
    from adafruit_pn532.i2c import PN532_I2C

    chip = FakePn532()
    bus = FakeI2cBus(mux_address=0x70)
    bus.attach(0x24, chip, channel=3 if through_mux else None)
    busio: Any = BusioI2c(bus)
    if through_mux:
        from adafruit_tca9548a import TCA9548A

        busio = TCA9548A(busio, 0x70)[3]
    return Rig(PN532_I2C(busio), chip, vtime)


def fake_uart(vtime: VirtualTime) -> Rig:
    from adafruit_pn532.uart import PN532_UART

    chip = FakePn532()  # the fake is also a serial port: write, read, in_waiting, reset_input_buffer
    return Rig(PN532_UART(chip), chip, vtime)


def real_i2c(raw: Any) -> Rig:
    from adafruit_pn532.i2c import PN532_I2C
    from adafruit_tca9548a import TCA9548A

    busio: Any = BusioI2c(raw)
    channel = env("TIANHEI_TEST_CHANNEL", "0")
    if channel != "none":
        busio = TCA9548A(busio, env_int("TIANHEI_TEST_MUX", "0x70"))[int(channel)]
    return Rig(PN532_I2C(busio), None, None)


def real_uart() -> Rig:
    import serial
    from adafruit_pn532.uart import PN532_UART

    port = serial.Serial(env("TIANHEI_TEST_PN532_UART", why="a PN532 in HSU mode on a serial port"), 115200,
                         timeout=0.1)
    return Rig(PN532_UART(port), None, None)


@pytest.fixture(params=[
    "i2c", "i2c-behind-tca9548a", "uart",
    pytest.param("real-i2c", marks=pytest.mark.real_hardware),
    pytest.param("real-uart", marks=pytest.mark.real_hardware),
])
def pn532(request: pytest.FixtureRequest) -> Iterator[Rig]:
    kind = request.param
    if kind.startswith("real"):
        yield real_i2c(request.getfixturevalue("real_i2c")) if kind == "real-i2c" else real_uart()
        return
    vtime = request.getfixturevalue("vtime")
    yield fake_uart(vtime) if kind == "uart" else fake_i2c(vtime, through_mux=kind != "i2c")


def test_the_reader_gives_its_firmware_version(pn532: Rig) -> None:
    ic, ver, rev, support = pn532.driver.firmware_version
    assert ic == 0x32, "GetFirmwareVersion: IC is 0x32 for a PN532 (UM0701 §7.2.2)"
    assert (ver, rev) >= (1, 4) and support & 0x01, "ISO/IEC 14443 type A is supported"


def test_sam_configuration_puts_the_chip_in_normal_mode(pn532: Rig) -> None:
    pn532.driver.SAM_configuration()  # raises if the answer is not D5 15
    if pn532.chip is not None:
        assert pn532.chip.sam_mode == 0x01


def test_a_card_on_the_reader_gives_its_uid(pn532: Rig) -> None:
    uid = pn532.lay_card(CARD)
    assert bytes(pn532.driver.read_passive_target(timeout=0.5)) == uid


def test_ntag_pages_hold_the_uid_and_its_check_bytes(pn532: Rig) -> None:
    uid = pn532.lay_card(CARD)
    pn532.driver.read_passive_target(timeout=0.5)
    page0, page1, page2 = (bytes(pn532.driver.ntag2xx_read_block(p)) for p in range(3))
    assert page0 == uid[:3] + bytes([0x88 ^ uid[0] ^ uid[1] ^ uid[2]]), "NTAG21x §8.5: BCC0 = CT ^ UID0..2"
    assert page1 == uid[3:7]
    assert page2[0] == uid[3] ^ uid[4] ^ uid[5] ^ uid[6], "BCC1 = UID3 ^ .. ^ UID6"


@pytest.mark.parametrize("kind", ["i2c", "uart"])
def test_a_role_written_on_the_card_reads_back_through_adafruits_driver(kind: str, vtime: VirtualTime) -> None:
    rig = fake_uart(vtime) if kind == "uart" else fake_i2c(vtime, through_mux=True)
    assert rig.chip is not None
    rig.chip.card = CARD
    text = b"killer"
    record = bytes([0xD1, 0x01, 3 + len(text), 0x54, 0x02]) + b"en" + text
    memory = bytes([0x03, len(record)]) + record + b"\xfe"
    rig.chip.ndef_pages = {4 + i // 4: memory[i : i + 4].ljust(4, b"\0") for i in range(0, len(memory), 4)}
    rig.driver.read_passive_target(timeout=0.5)

    def four_pages(page: int) -> bytes:
        return b"".join(bytes(rig.driver.ntag2xx_read_block(page + i)) for i in range(4))

    assert read_text(four_pages) == ["killer"]


def test_no_card_is_none_after_the_drivers_own_timeout(vtime: VirtualTime) -> None:
    rig = fake_i2c(vtime, through_mux=False)
    before = vtime.now
    assert rig.driver.read_passive_target(timeout=0.3) is None
    assert 0.3 <= vtime.now - before < 0.4, "the chip keeps looking (MxRtyPassiveActivation 0xFF): no answer"
    rig.chip.card = CARD  # type: ignore[union-attr]
    assert bytes(rig.driver.read_passive_target(timeout=0.3)) == CARD, "a new command aborts the old one"


@pytest.mark.parametrize("kind", ["i2c", "uart"])
def test_a_command_the_fake_does_not_know_gets_the_error_frame_not_a_hang(kind: str, vtime: VirtualTime) -> None:
    rig = fake_uart(vtime) if kind == "uart" else fake_i2c(vtime, through_mux=False)
    before = vtime.now
    with pytest.raises(RuntimeError, match="unexpected command response"):
        rig.driver.call_function(0x58, params=b"\x00", response_length=2)  # InATR: not implemented
    assert vtime.now - before < 0.1, "the syntax error frame comes at once"
    assert rig.chip is not None and rig.chip.unknown == [0x58]
    assert rig.driver.firmware_version[0] == 0x32, "and the chip goes on answering"
