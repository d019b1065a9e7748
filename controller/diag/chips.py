"""``tianhei diag`` reads every chip's identity and configuration registers before the walk-through.

A seat that fails the walk-through may have a chip that answers wrongly rather than none at all: a PN532 clone
with another firmware, an FM17522 in place of an MFRC522, an expander that lost its configuration after a brown-out.
So the diagnostic prints what each chip says about itself, as read, next to what a genuine one says: the PN532's
GetFirmwareVersion (UM0701-02 §7.2.2: IC 0x32), the MFRC522's VersionReg 37h (0x91 v1.0, 0x92 v2.0), the MCP23017's
IOCON, IODIR and GPPU as the driver set them (it has no identity register), the TCA9548A's control register and
the SSD1306's status byte (D6: display off; it has no identity register either).

Only the ``gpio`` adapter talks to the chips from the Pi; on the ``bus`` adapter they hang off the seat nodes and
on ``sim`` there are none (:func:`read_chips` returns nothing, and the CLI says why). The reads run before the
table starts, so they never interleave with the I/O thread's polls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from controller.nfc import mfrc522
from controller.nfc.pn532 import Pn532


@dataclass(frozen=True)
class ChipReading:
    part: str  # where it is: "seat 3 reader", "expander buttons-a", "I2C mux"
    chip: str
    registers: str  # what was read, as read
    ok: bool  # does it say what a genuine chip, set up by our driver, says


def read_chips(table: object) -> list[ChipReading]:
    """Every chip of a gpio table, read now; empty for tables whose chips the Pi does not reach."""
    readings: list[ChipReading] = []
    wiring = getattr(table, "chips", None)
    if wiring is not None and wiring.mux_address is not None:
        readings.append(_read("I2C mux", "TCA9548A", partial(_mux, wiring)))
    for name, chip in (wiring.expanders.items() if wiring is not None else ()):
        readings.append(_read(f"expander {name}", "MCP23017", partial(_expander, chip)))
    presences = getattr(getattr(table, "scheduler", None), "presences", None) or ()
    for presence in presences:
        reader = presence.reader
        if isinstance(reader, Pn532):
            readings.append(_read(f"seat {presence.seat} reader", "PN532", partial(_pn532, reader)))
        elif isinstance(reader, mfrc522.Mfrc522):
            readings.append(_read(f"seat {presence.seat} reader", "MFRC522", partial(_mfrc522, reader)))
    for seat, (seat_bus, address) in sorted(wiring.screens.items() if wiring is not None else ()):
        readings.append(_read(f"seat {seat} screen", "SSD1306", partial(_screen, seat_bus, address)))
    return readings


def _read(part: str, chip: str, read: Callable[[], tuple[str, bool]]) -> ChipReading:
    try:
        registers, ok = read()
    except Exception as exc:  # any failure of one chip (NfcError, OSError, a short answer) is its own line
        return ChipReading(part, chip, f"no answer: {exc}", False)
    return ChipReading(part, chip, registers, ok)


def _pn532(reader: Pn532) -> tuple[str, bool]:
    ic, ver, rev, support = reader.firmware_version()
    ok = ic == 0x32
    note = "" if ok else " (a PN532 says IC 0x32)"
    return f"GetFirmwareVersion: IC {ic:#04x}, firmware {ver}.{rev}, support {support:#04x}{note}", ok


def _mfrc522(reader: mfrc522.Mfrc522) -> tuple[str, bool]:
    version = reader.read1(mfrc522.VERSION)
    name = mfrc522.KNOWN_VERSIONS.get(version)
    return f"VersionReg (37h): {version:#04x} ({name or 'not an MFRC522: check wiring and chip-select'})", bool(name)


def _expander(chip: Any) -> tuple[str, bool]:
    from controller.gpio.mcp23017 import GPPU, IOCON, IOCON_MIRROR, IOCON_ODR, IODIR

    iocon = chip.bus.write_read(chip.address, bytes([IOCON]), 1)[0]
    iodir_raw = chip.bus.write_read(chip.address, bytes([IODIR]), 2)
    gppu_raw = chip.bus.write_read(chip.address, bytes([GPPU]), 2)
    iodir, gppu = iodir_raw[0] | iodir_raw[1] << 8, gppu_raw[0] | gppu_raw[1] << 8
    ok = iocon == IOCON_MIRROR | IOCON_ODR and iodir & chip.inputs == chip.inputs and gppu & chip.inputs == chip.inputs
    note = "" if ok else f" (configured: IOCON {IOCON_MIRROR | IOCON_ODR:#04x}, inputs and pull-ups {chip.inputs:#06x})"
    return f"IOCON {iocon:#04x}, IODIR {iodir:#06x}, GPPU {gppu:#06x}{note}", ok


def _mux(wiring: Any) -> tuple[str, bool]:
    control = wiring.bus.read(wiring.mux_address, 1)[0]
    return f"control register {control:#04x} at {wiring.mux_address:#04x}", True


def _screen(seat_bus: Any, address: int) -> tuple[str, bool]:
    status = seat_bus.read(address, 1)[0]
    return f"status {status:#04x} at {address:#04x} (display {'off' if status & 0x40 else 'on'})", True


def chip_table(readings: list[ChipReading]) -> str:
    """The readings as a few aligned lines for the terminal."""
    if not readings:
        return ""
    part_w = max(len(r.part) for r in readings)
    chip_w = max(len(r.chip) for r in readings)
    lines = ["chips as read:"]
    for r in readings:
        lines.append(f"  {r.part:<{part_w}}  {r.chip:<{chip_w}}  {'ok  ' if r.ok else 'FAIL'}  {r.registers}")
    return "\n".join(lines)
