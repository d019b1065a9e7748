"""Both fake SSD1306s against the data sheet (Rev 1.1): the I2C control byte (§8.1.5.2), the command table
(§9, Table 9-1) with arguments that may come in later transfers, the three addressing modes (§10.1.3: page mode
after reset) and the column and page windows; and the init sequences our drivers send decode into whole
commands of that table."""

from __future__ import annotations

from typing import Any

import pytest

from controller.gpio.fakes import PAGE, SSD1306_COMMANDS, Ssd1306Model
from controller.gpio.i2c import I2cError

from .fw import FirmwareSsd1306, firmware_module

FAKES = ["controller-model", "firmware-fake"]


def make(kind: str) -> Any:
    return Ssd1306Model() if kind == "controller-model" else FirmwareSsd1306()


@pytest.mark.parametrize("kind", FAKES)
def test_after_reset_writes_go_to_page_0_and_wrap_within_the_page(kind: str) -> None:
    fake = make(kind)
    fake.on_write(bytes([0x40]) + bytes(range(1, 131)))  # 130 bytes in page addressing mode
    assert fake.ram[0] == 129 and fake.ram[1] == 130 and fake.ram[2] == 3 and fake.ram[127] == 128
    assert not any(fake.ram[128:]), "page mode never moves to the next page"


@pytest.mark.parametrize("kind", FAKES)
def test_a_command_byte_and_its_arguments_may_come_in_separate_transfers(kind: str) -> None:
    fake = make(kind)
    for byte in (0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3):  # horizontal mode, columns 10-11, pages 2-3
        fake.on_write(bytes([0x80, byte]))  # Co = 1, D/C# = 0: one command byte
    fake.on_write(bytes([0x40, 1, 2, 3, 4]))
    window = [fake.ram[2 * 128 + 10], fake.ram[2 * 128 + 11], fake.ram[3 * 128 + 10], fake.ram[3 * 128 + 11]]
    assert window == [1, 2, 3, 4] and sum(map(bool, fake.ram)) == 4


@pytest.mark.parametrize("kind", FAKES)
def test_the_window_wraps_back_to_its_first_page(kind: str) -> None:
    fake = make(kind)
    fake.on_write(bytes([0x00, 0x20, 0x00, 0x21, 10, 11, 0x22, 2, 3]))  # Co = 0: a run of commands
    fake.on_write(bytes([0x40, 1, 2, 3, 4, 5]))
    assert fake.ram[2 * 128 + 10] == 5, "the fifth byte wraps to the window's first column and page"
    assert fake.ram[3 * 128 + 11] == 4


@pytest.mark.parametrize("kind", FAKES)
def test_vertical_addressing_goes_down_the_pages_first(kind: str) -> None:
    fake = make(kind)
    fake.on_write(bytes([0x00, 0x20, 0x01, 0x21, 0, 127, 0x22, 0, 7]))
    fake.on_write(bytes([0x40]) + bytes(range(1, 10)))
    assert [fake.ram[p * 128] for p in range(8)] == list(range(1, 9)) and fake.ram[1] == 9


@pytest.mark.parametrize("kind", FAKES)
def test_co_set_means_one_byte_then_another_control_byte(kind: str) -> None:
    fake = make(kind)
    fake.on_write(bytes([0x80, 0xB3, 0xC0, 0x55, 0x00, 0xB1]))  # page 3 (command), one data byte, page 1 (run)
    fake.on_write(bytes([0x40, 0x66]))
    assert fake.ram[3 * 128] == 0x55 and fake.ram[1 * 128 + 1] == 0x66


@pytest.mark.parametrize("kind", FAKES)
def test_page_start_commands_only_work_in_page_mode(kind: str) -> None:
    fake = make(kind)
    fake.on_write(bytes([0x00, 0x20, 0x00, 0xB5, 0x13, 0x02]))  # horizontal mode, then page-mode commands
    fake.on_write(bytes([0x40, 0x77]))
    assert fake.ram[0] == 0x77, "ignored outside page mode"
    fake.on_write(bytes([0x00, 0x20, 0x02, 0xB5, 0x13, 0x02]))  # page mode: page 5, column 0x32
    fake.on_write(bytes([0x40, 0x88]))
    assert fake.ram[5 * 128 + 0x32] == 0x88


@pytest.mark.parametrize("kind", FAKES)
def test_a_byte_that_is_not_a_control_byte_is_refused(kind: str) -> None:
    with pytest.raises(OSError):
        make(kind).on_write(bytes([0x41, 0x00]))


def test_the_command_table_is_the_data_sheets() -> None:
    two = {0x81, 0x20, 0xA8, 0xD3, 0xDA, 0xD5, 0xD9, 0xDB, 0x8D}
    three = {0x21, 0x22, 0xA3}
    for op, (size, name) in SSD1306_COMMANDS.items():
        expected = 7 if op in (0x26, 0x27) else 6 if op in (0x29, 0x2A) else 3 if op in three else (
            2 if op in two else 1)
        assert size == expected, f"{op:#04x} {name}"
    assert 0xAD not in SSD1306_COMMANDS, "the SSD1315's IREF command is not in the SSD1306's table"
    model = Ssd1306Model()
    model.on_write(bytes([0x00, 0xAD, 0x30, 0xAF]))
    assert model.unknown == [0xAD] and model.display_on, "accepted with its argument, recorded"
    assert model.mode == PAGE


def test_our_drivers_init_sequences_are_whole_commands() -> None:
    fw = firmware_module("ssd1306")
    model = Ssd1306Model()
    model.on_write(bytes([0x00, *fw.INIT]))
    assert not model._pending and model.unknown == [], "the firmware's INIT"
    assert all(fw.PASSTHROUGH[op] == SSD1306_COMMANDS[op][0] - 1 for op in fw.PASSTHROUGH), (
        "the firmware's pass-through table has the data sheet's argument counts")


def test_an_empty_write_is_an_address_probe() -> None:
    model = Ssd1306Model()
    model.on_write(b"")
    assert model.commands == [] and model.data == []
    with pytest.raises(I2cError):
        model.on_write(bytes([0x01]))
