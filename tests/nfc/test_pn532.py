"""The PN532 driver against a fake chip that answers as the user manual says (UM0701-02 §6.2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.gpio.clock import FakeClock
from controller.gpio.fakes import FakeI2cBus
from controller.gpio.i2c import SharedBus
from controller.nfc import pn532
from controller.nfc.fakes import FakePn532
from controller.nfc.reader import NfcError

UID = bytes.fromhex("04A2B3C4D5E680")


def i2c_reader(chip: FakePn532, channel: int = 3) -> pn532.Pn532:
    fake_bus = FakeI2cBus()
    fake_bus.attach(0x24, chip, channel=channel)
    seat_bus = SharedBus(fake_bus, 0x70).channel(channel)
    return pn532.Pn532(pn532.I2cPn532Transport(seat_bus.write, seat_bus.read), FakeClock())


def test_getfirmwareversion_frame_matches_the_manual() -> None:
    # UM0701-02 §7.2.2 example: 00 00 FF 02 FE D4 02 2A 00
    assert pn532.build_frame(b"\x02") == bytes.fromhex("0000FF02FED4022A00")


def test_sam_configuration_frame_checksums() -> None:
    frame = pn532.build_frame(bytes([0x14, 0x01, 0x14, 0x01]))
    length, lcs = frame[3], frame[4]
    assert (length + lcs) & 0xFF == 0
    assert sum(frame[5:-1]) & 0xFF == 0
    assert frame[-1] == 0x00


@given(st.binary(min_size=1, max_size=200))
def test_any_response_frame_round_trips(data: bytes) -> None:
    body = b"\xd5" + data
    frame = pn532.PREAMBLE + bytes([len(body), -len(body) & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0])
    assert pn532.parse_frame(frame + b"\x00\x00\x00") == data


@given(st.binary(min_size=1, max_size=60), st.integers(min_value=5, max_value=60), st.integers(1, 255))
def test_a_corrupted_byte_is_always_caught(data: bytes, position: int, flip: int) -> None:
    body = b"\xd5" + data
    frame = bytearray(pn532.PREAMBLE + bytes([len(body), -len(body) & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0]))
    position = min(position, len(frame) - 2)  # a byte between LEN and DCS
    frame[position] ^= flip
    with pytest.raises(pn532.Pn532FrameError):
        pn532.parse_frame(bytes(frame))


def test_firmware_version_over_i2c_behind_the_mux() -> None:
    reader = i2c_reader(FakePn532())
    assert reader.firmware_version() == (0x32, 0x01, 0x06, 0x07)


def test_empty_reader_reports_no_card_and_polls_give_up_quickly() -> None:
    chip = FakePn532()
    reader = i2c_reader(chip)
    assert reader.poll() is None
    assert chip.max_retries_passive == 0x01, "InListPassiveTarget must not retry forever (RFConfiguration item 5)"


def test_a_card_on_the_reader_gives_its_uid() -> None:
    chip = FakePn532()
    chip.card = UID
    assert i2c_reader(chip).poll() == "04A2B3C4D5E680"


def test_a_bad_checksum_is_retried_then_succeeds() -> None:
    chip = FakePn532()
    chip.card = UID
    reader = i2c_reader(chip)
    reader.configure()
    chip.corrupt = 1
    assert reader.poll() == "04A2B3C4D5E680"


def test_persistent_bad_checksums_raise_a_clear_error() -> None:
    chip = FakePn532()
    reader = i2c_reader(chip)
    reader.configure()
    chip.corrupt = 10
    with pytest.raises(NfcError, match="checksum"):
        reader.poll()


def test_a_silent_chip_times_out_within_the_bound() -> None:
    chip = FakePn532()
    chip.silent = True
    reader = i2c_reader(chip)
    start = reader.clock.monotonic()
    with pytest.raises(NfcError, match="did not answer"):
        reader.firmware_version()
    waited = reader.clock.monotonic() - start
    assert waited <= (reader.retries + 1) * (reader.timeout + reader.poll_interval) + 1e-9


def test_a_busy_chip_is_waited_for() -> None:
    chip = FakePn532()
    chip.busy_polls = 3
    assert i2c_reader(chip).firmware_version()[0] == 0x32


def test_uart_transport_wakes_the_chip_and_reads_frames() -> None:
    chip = FakePn532()
    chip.card = bytes.fromhex("DEADBEEF")
    reader = pn532.Pn532(pn532.UartPn532Transport(chip), FakeClock())
    assert reader.poll() == "DEADBEEF"
    assert chip.ignored == 0, "the wake-up preamble went first: no frame was lost while the chip woke"


def test_uart_garbage_before_the_frame_is_skipped() -> None:
    chip = FakePn532()
    transport = pn532.UartPn532Transport(chip)
    reader = pn532.Pn532(transport, FakeClock())
    chip._serial_out += b"\x13\x37"
    assert reader.firmware_version()[0] == 0x32
