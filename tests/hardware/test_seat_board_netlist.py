"""The board agrees with the firmware: every pin hardware/boards/pico-seat.toml names reaches the right pin of the
right part in the committed schematic's netlist (exported by kicad-cli), found by the Pico symbol's own pin names
(GPIO0...), so a pin changed in the TOML and not on the board, or on the board and not in the TOML, fails."""

from __future__ import annotations

import tomllib
from pathlib import Path

import netlist  # hardware/kicad, put on the path by tests.hardware.seat_board
import pytest

from tests.hardware.seat_board import BOARD_DIR, REPO

PINS_TOML = REPO / "hardware" / "boards" / "pico-seat.toml"

# Where each firmware pin must arrive: (part, the part's pin by name or number). Written from the parts' data
# sheets and modules, not from the design script: the transceiver's DI/RO/DE/~RE, the OLED module's header
# GND VCC SCL SDA (pins 1-4), the RC522 module's SDA SCK MOSI MISO IRQ GND RST 3.3V (pins 1-8), the switches'
# pin 1 (pin 2 on GND), the handheld's keys on J5 1-7 in the order of [remote.keys].
EXPECTED: dict[str, list[tuple[str, str]]] = {
    "uart.tx": [("U1", "DI")], "uart.rx": [("U1", "RO")], "uart.de": [("U1", "DE"), ("U1", "~{RE}")],
    "buttons.prev": [("SW1", "1")], "buttons.next": [("SW2", "1")], "buttons.ok": [("SW3", "1")],
    "i2c.scl": [("J3", "3")], "i2c.sda": [("J3", "4")],
    "nfc.cs": [("J4", "1")], "nfc.sck": [("J4", "2")], "nfc.mosi": [("J4", "3")], "nfc.miso": [("J4", "4")],
    "nfc.rst": [("J4", "7")],
    **{f"remote.keys.{key}": [("J5", str(i + 1))]
       for i, key in enumerate(("up", "down", "left", "right", "center", "menu", "back"))},
}
# The LED's channels go through a 220 ohm resistor to the LED's anode (RKGB: red, cathode, green, blue).
LED_ANODES = {"led.r": "RA", "led.g": "GA", "led.b": "BA"}


def firmware_pins(path: Path) -> dict[str, int]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    pins = {f"{section}.{name}": int(value) for section in ("uart", "buttons", "led", "i2c", "nfc")
            for name, value in data[section].items() if isinstance(value, int) and not isinstance(value, bool)
            and name not in ("id", "baud", "freq", "spi")}
    pins.update({f"remote.keys.{k}": int(v) for k, v in data["remote"]["keys"].items()})
    return pins


def gpio(gp: int) -> str:
    return {26: "GPIO26_ADC0", 27: "GPIO27_ADC1", 28: "GPIO28_ADC2"}.get(gp, f"GPIO{gp}")


def mismatches(nets: netlist.Netlist, pins: dict[str, int]) -> list[str]:
    """One line for every firmware pin that does not reach where it must."""
    wrong = []
    for role, gp in sorted(pins.items()):
        net = nets.net_of("A1", gpio(gp))
        if net is None:
            wrong.append(f"{role}: the Pico's GP{gp} is on no net")
            continue
        if role in LED_ANODES:
            through = [n for n in nets.nets[net] if n.ref.startswith("R") and nets.values[n.ref] == "220"]
            other = {nets.net_of(n.ref, "2" if n.pin == "1" else "1") for n in through}
            if nets.net_of("D3", LED_ANODES[role]) not in other:
                wrong.append(f"{role}: GP{gp} does not reach the LED's {LED_ANODES[role]} through 220 ohm")
            continue
        for ref, pin in EXPECTED.get(role, []):
            if nets.net_of(ref, pin) != net:
                wrong.append(f"{role}: GP{gp} is on {net}, {ref} pin {pin} on {nets.net_of(ref, pin)}")
    return wrong


@pytest.fixture(scope="module")
def nets(tmp_path_factory: pytest.TempPathFactory) -> netlist.Netlist:
    folder = tmp_path_factory.mktemp("netlist")
    return netlist.read(netlist.export(BOARD_DIR / "seat-node.kicad_sch", folder / "seat-node.net"))


def test_every_pin_of_pico_seat_toml_reaches_its_part(nets: netlist.Netlist) -> None:
    pins = firmware_pins(PINS_TOML)
    assert set(EXPECTED) | set(LED_ANODES) == set(pins), "a pin in pico-seat.toml the test does not know (or lost)"
    assert mismatches(nets, pins) == []


def test_a_pin_moved_in_pico_seat_toml_but_not_on_the_board_fails(nets: netlist.Netlist) -> None:
    pins = firmware_pins(PINS_TOML) | {"uart.tx": 4}
    assert mismatches(nets, pins) == ["uart.tx: GP4 is on unconnected-(A1-GPIO4-Pad6), U1 pin DI on UART_TX"]
    swapped = firmware_pins(PINS_TOML)
    swapped["i2c.sda"], swapped["i2c.scl"] = swapped["i2c.scl"], swapped["i2c.sda"]
    assert len(mismatches(nets, swapped)) == 2


def test_a_pin_moved_on_the_board_but_not_in_pico_seat_toml_fails(nets: netlist.Netlist) -> None:
    moved = netlist.Netlist(nets.values, nets.footprints, {
        name: [n for n in nodes if not (n.ref == "J4" and n.pin == "7")] for name, nodes in nets.nets.items()},
        nets.stamps)
    assert mismatches(moved, firmware_pins(PINS_TOML)) == ["nfc.rst: GP20 is on NFC_RST, J4 pin 7 on None"]


def test_bus_connectors_carry_a_b_5v_and_gnd_on_the_documented_pins(nets: netlist.Netlist) -> None:
    for jack in ("J1", "J2"):
        assert [nets.net_of(jack, str(p)) for p in range(1, 9)] == [
            "RS485_A", "RS485_B", "+5V_BUS", "+5V_BUS", "+5V_BUS", "GND", "GND", "GND"]
    assert nets.net_of("U1", "A") == "RS485_A" and nets.net_of("U1", "B") == "RS485_B"
    # 5 V reaches VSYS through the Schottky (anode on the bus, cathode on VSYS), as the Pico datasheet shows
    assert nets.net_of("D1", "A") == "+5V_BUS" and nets.net_of("D1", "K") == nets.net_of("A1", "VSYS")
    # the terminator only through its jumper, the TVS from both lines to GND
    assert nets.net_of("R1", "1") == "RS485_A" and {nets.net_of("JP1", "1"), nets.net_of("JP1", "2")} == {
        nets.net_of("R1", "2"), "RS485_B"} and nets.values["R1"] == "120"
    assert {nets.net_of("D2", p) for p in ("1", "2", "3")} == {"RS485_A", "RS485_B", "GND"}
