"""Which commands and registers each fake implements, in one place, and what the others get: the PN532's syntax
error frame, the MFRC522 going back to Idle, the SSD1306 recording a byte outside its table, the MCP23017
refusing IOCON.BANK = 1 with a clear error, the TCA9548A having nothing but its control register."""

from __future__ import annotations

import pytest

from controller.gpio.fakes import SSD1306_COMMANDS, FakeI2cBus, Mcp23017Model, Ssd1306Model
from controller.gpio.i2c import I2cError
from controller.nfc.fakes import CIU_REGISTERS, FakeMfrc522, FakePn532

from .fw import fake_machine

PN532 = {0x00: "Diagnose", 0x02: "GetFirmwareVersion", 0x04: "GetGeneralStatus", 0x06: "ReadRegister",
         0x08: "WriteRegister", 0x10: "SetSerialBaudRate",
         0x12: "SetParameters", 0x14: "SAMConfiguration", 0x16: "PowerDown", 0x32: "RFConfiguration",
         0x40: "InDataExchange", 0x42: "InCommunicateThru", 0x44: "InDeselect", 0x4A: "InListPassiveTarget",
         0x52: "InRelease", 0x54: "InSelect", 0x60: "InAutoPoll"}
MFRC522 = {0x00: "Idle", 0x03: "CalcCRC", 0x0C: "Transceive", 0x0F: "SoftReset"}
MCP23017_REGISTERS = ["IODIRA", "IODIRB", "IPOLA", "IPOLB", "GPINTENA", "GPINTENB", "DEFVALA", "DEFVALB",
                      "INTCONA", "INTCONB", "IOCON", "IOCON", "GPPUA", "GPPUB", "INTFA", "INTFB", "INTCAPA",
                      "INTCAPB", "GPIOA", "GPIOB", "OLATA", "OLATB"]  # 0x00..0x15 with IOCON.BANK = 0


def test_the_pn532_fake_implements_these_commands() -> None:
    assert {code: name.split(" (")[0] for code, name in FakePn532.IMPLEMENTED.items()} == PN532


def test_the_pn532_fake_has_the_cius_register_file() -> None:
    """ReadRegister/WriteRegister reach the CIU at 6301h-633Eh (UM0701 §7.2.4, §7.2.5); nothing else is modelled."""
    assert len(CIU_REGISTERS) == 42
    assert {CIU_REGISTERS[a][0] for a in (0x6301, 0x6304, 0x6331, 0x6339)} == {"Mode", "TxControl", "Command",
                                                                              "FIFOData"}
    assert all(0x6301 <= a <= 0x633E and a not in (0x6310, 0x6330) for a in CIU_REGISTERS)


def test_the_mfrc522_fakes_implement_these_commands() -> None:
    assert FakeMfrc522.IMPLEMENTED == MFRC522
    fw = fake_machine().FakeMFRC522()
    for command in MFRC522:  # the firmware's fake carries out the same ones without getting stuck
        fw.spi_transfer(bytes([0x01 << 1, command]))
    fw.spi_transfer(bytes([0x09 << 1, 0x00, 0x00]))
    fw.spi_transfer(bytes([0x11 << 1, 0x3D]))
    fw.spi_transfer(bytes([0x01 << 1, 0x03]))
    assert fw.regs[0x22] == 0xA0 and fw.regs[0x21] == 0x1E, "CalcCRC"


def test_the_ssd1306_fakes_implement_the_whole_command_table() -> None:
    names = {name for _size, name in SSD1306_COMMANDS.values()}
    assert {"set contrast", "display on", "display off", "memory addressing mode", "column address",
            "page address", "charge pump", "right horizontal scroll", "vertical scroll area", "NOP"} <= names
    assert len(SSD1306_COMMANDS) == 29 + 32 + 64 + 8, "29 named commands, 00-1F, 40-7F (start line), B0-B7"
    model = Ssd1306Model()
    model.on_write(bytes([0x00, 0xFF, 0xAF]))
    assert model.unknown == [0xFF] and model.display_on, "a byte outside the table is recorded, not fatal"


def test_the_mcp23017_model_has_the_bank_0_registers_and_refuses_bank_1() -> None:
    model = Mcp23017Model()
    assert len(model.regs) == len(MCP23017_REGISTERS) == 0x16
    model.on_write(bytes([0x0B, 0x20]))  # IOCON through its second address
    assert model.regs[0x0A] == model.regs[0x0B] == 0x20
    with pytest.raises(I2cError, match="BANK = 1"):
        model.on_write(bytes([0x0A, 0x80]))


def test_the_mux_has_only_its_control_register() -> None:
    bus = FakeI2cBus(mux_address=0x70)
    bus.write(0x70, bytes([0x01, 0x84]))
    assert bus.read(0x70, 1) == bytes([0x84]), "of several bytes the last one is kept; a read returns it"
    bus.write(0x70, b"")
    assert bus.mux_mask == 0x84, "an empty write is only a probe"
