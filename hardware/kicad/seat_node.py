"""The seat board's design as data: which parts, which pin goes to which net, where each part sits.

The firmware's pins come from ``hardware/boards/pico-seat.toml`` (the same file ``firmware/config.json`` follows), so
the schematic our script writes follows the firmware; the netlist test (tests/hardware/test_seat_board_netlist.py)
checks the committed schematic against that file by the Pico symbol's own pin names, so a pin changed on one side
only fails. Parts name their entry in ``hardware/parts.toml`` (footprint, height, current, supplier numbers).

Nets on the bus connectors (RJ45, straight-through network cable, T568A or T568B alike): pins 1/2 (a twisted pair
in both standards) carry RS-485 A/B; pins 3, 4, 5 carry 5 V and pins 6, 7, 8 GND (three conductors each way: a
third of one conductor's drop). Pins 4/5 + and 7/8 - are passive PoE's "mode B", so a passive PoE injector (DC jack
in, RJ45 through) feeds 5 V into the chain anywhere (docs/hardware.md, "Power").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HARDWARE = Path(__file__).resolve().parents[1]
BOARD_DIR = HARDWARE / "kicad" / "seat-node"
PINS_FILE = HARDWARE / "boards" / "pico-seat.toml"
NAME = "seat-node"

# The board's outline (mm, top-left corner at the origin; y grows toward the player) and KiCad's page offset.
WIDTH, DEPTH = 130.0, 95.0
ORIGIN = (20.0, 20.0)

BUS_PINS = {1: "RS485_A", 2: "RS485_B", 3: "+5V_BUS", 4: "+5V_BUS", 5: "+5V_BUS", 6: "GND", 7: "GND", 8: "GND"}
# The common blue RC522 module's header, left to right as printed on it.
RC522_PINS = ("SDA", "SCK", "MOSI", "MISO", "IRQ", "GND", "RST", "3.3V")
# The common 0.96" SSD1306 module's header; some modules swap GND and VCC (docs/hardware.md: check before fitting).
OLED_PINS = ("GND", "VCC", "SCL", "SDA")


@dataclass(frozen=True)
class Part:
    ref: str
    part: str          # its key in hardware/parts.toml
    symbol: str        # KiCad library symbol, "Library:Name"
    value: str
    pins: dict[str, str | None]   # pin number, or a Pico pin name (GPIO7), -> net; None: not connected
    at: tuple[float, float, float] = (0.0, 0.0, 0.0)   # x, y (mm on the board) and rotation (degrees)
    footprint: str = ""            # "" takes parts.toml's


@dataclass
class Design:
    parts: list[Part] = field(default_factory=list)

    def part(self, ref: str) -> Part:
        for part in self.parts:
            if part.ref == ref:
                return part
        raise KeyError(f"the seat board has no part {ref}")


def firmware_pins(path: Path = PINS_FILE) -> dict[str, int]:
    """``uart.tx`` -> GP number, for every pin pico-seat.toml names (the handheld's keys as ``remote.keys.up``)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    pins: dict[str, int] = {}
    for section, names in (("uart", ("tx", "rx", "de")), ("buttons", ("prev", "next", "ok")),
                           ("led", ("r", "g", "b")), ("i2c", ("sda", "scl")),
                           ("nfc", ("sck", "mosi", "miso", "cs", "rst"))):
        for name in names:
            value = data.get(section, {}).get(name)
            if not isinstance(value, int) or not 0 <= value <= 28:
                raise ValueError(f"{path.name}: [{section}] {name} must be a GP number 0..28, not {value!r}")
            pins[f"{section}.{name}"] = value
    for key, value in data.get("remote", {}).get("keys", {}).items():
        pins[f"remote.keys.{key}"] = int(value)
    return pins


# Each firmware pin's net: the net name says what it does, the test finds the part pin it must reach.
NET_OF = {
    "uart.tx": "UART_TX", "uart.rx": "UART_RX", "uart.de": "UART_DE",
    "buttons.prev": "BTN_PREV", "buttons.next": "BTN_NEXT", "buttons.ok": "BTN_OK",
    "led.r": "LED_R_PWM", "led.g": "LED_G_PWM", "led.b": "LED_B_PWM",
    "i2c.sda": "I2C_SDA", "i2c.scl": "I2C_SCL",
    "nfc.sck": "SPI_SCK", "nfc.mosi": "SPI_MOSI", "nfc.miso": "SPI_MISO", "nfc.cs": "NFC_CS", "nfc.rst": "NFC_RST",
}
# The handheld's keys that are not the seat's buttons come out on the keys header (J5) with the buttons' own.
KEY_HEADER = ("remote.keys.up", "remote.keys.down", "remote.keys.left", "remote.keys.right", "remote.keys.center",
              "remote.keys.menu", "remote.keys.back")


def design(pins_file: Path = PINS_FILE) -> Design:
    """The whole board, its Pico wired as ``pins_file`` says."""
    fw = firmware_pins(pins_file)
    pico: dict[str, str | None] = {f"GPIO{n}": None for n in range(23)}
    pico.update({"GPIO26_ADC0": None, "GPIO27_ADC1": None, "GPIO28_ADC2": None})
    key_nets: list[str] = []
    for key, net in NET_OF.items():
        _connect(pico, fw[key], net, key)
    for key in KEY_HEADER:
        gp = fw.get(key)
        if gp is None:
            raise ValueError(f"{PINS_FILE.name}: [remote.keys] {key.rsplit('.', 1)[1]} is missing")
        net = next((n for k, n in NET_OF.items() if fw[k] == gp), None) or f"KEY_{key.rsplit('.', 1)[1].upper()}"
        if pico[_gpio_name(gp)] not in (None, net):
            raise ValueError(f"{PINS_FILE.name}: {key} (GP{gp}) is already {pico[_gpio_name(gp)]}")
        pico[_gpio_name(gp)] = net
        key_nets.append(net)
    pico.update({"VSYS": "VSYS", "VBUS": None, "3V3": "+3V3", "GND": "GND", "RUN": None, "3V3_EN": None,
                 "ADC_VREF": None, "AGND": None})

    d = Design()
    add = d.parts.append
    add(Part("A1", "pico", "MCU_Module:RaspberryPi_Pico", "Raspberry Pi Pico", pico, (4.0, 26.0, 90)))
    # RS-485: the transceiver, its decoupling, TVS on A/B, terminator and fail-safe bias on jumpers.
    add(Part("U1", "max3485", "Interface_UART:MAX3485", "MAX3485", {
        "1": "UART_RX", "2": "UART_DE", "3": "UART_DE", "4": "UART_TX", "5": "GND", "6": "RS485_A",
        "7": "RS485_B", "8": "+3V3"}, (66.0, 30.0, 0)))
    add(Part("C1", "c-100n", "Device:C", "100n", {"1": "+3V3", "2": "GND"}, (72.5, 30.0, 90)))
    add(Part("D2", "sm712", "Diode:SM712_SOT23", "SM712", {"1": "RS485_A", "2": "RS485_B", "3": "GND"},
             (92.0, 24.0, 0)))
    add(Part("R1", "r-120", "Device:R", "120", {"1": "RS485_A", "2": "TERM"}, (112.0, 6.0, 0)))
    add(Part("JP1", "header-1x02", "Connector_Generic:Conn_01x02", "TERM", {"1": "TERM", "2": "RS485_B"},
             (118.0, 4.0, -90)))
    add(Part("R2", "r-390", "Device:R", "390", {"1": "+3V3", "2": "BIAS_A"}, (112.0, 12.0, 0)))
    add(Part("JP2", "header-1x02", "Connector_Generic:Conn_01x02", "BIAS_A", {"1": "BIAS_A", "2": "RS485_A"},
             (118.0, 10.0, -90)))
    add(Part("R3", "r-390", "Device:R", "390", {"1": "BIAS_B", "2": "GND"}, (112.0, 18.0, 0)))
    add(Part("JP3", "header-1x02", "Connector_Generic:Conn_01x02", "BIAS_B", {"1": "RS485_B", "2": "BIAS_B"},
             (118.0, 16.0, -90)))
    for ref, x in (("J1", 80.0), ("J2", 104.0)):
        add(Part(ref, "rj45", "Connector:8P8C", "BUS", {str(n): net for n, net in BUS_PINS.items()}, (x, 15.0, 180)))
    # Power: the bus's 5 V into VSYS through a Schottky, as the Pico datasheet shows for an external supply.
    add(Part("D1", "schottky", "Device:D_Schottky", "SS14", {"1": "VSYS", "2": "+5V_BUS"}, (62.0, 8.0, 0)))
    # The player's side: OLED socket, three buttons, the RGB LED, the reader's socket, the handheld's keys.
    oled = {"GND": "GND", "VCC": "+3V3", "SCL": "I2C_SCL", "SDA": "I2C_SDA"}
    add(Part("J3", "socket-1x04", "Connector_Generic:Conn_01x04", "OLED",
             {str(i + 1): oled[name] for i, name in enumerate(OLED_PINS)}, (22.0, 36.0, 90)))
    rc522 = {"SDA": "NFC_CS", "SCK": "SPI_SCK", "MOSI": "SPI_MOSI", "MISO": "SPI_MISO", "IRQ": None, "GND": "GND",
             "RST": "NFC_RST", "3.3V": "+3V3"}
    add(Part("J4", "socket-1x08", "Connector_Generic:Conn_01x08", "MFRC522",
             {str(i + 1): rc522[name] for i, name in enumerate(RC522_PINS)}, (66.0, 40.0, 0)))
    for i, (ref, net) in enumerate((("SW1", "BTN_PREV"), ("SW2", "BTN_NEXT"), ("SW3", "BTN_OK"))):
        add(Part(ref, "button", "Switch:SW_Push", net.split("_")[1], {"1": net, "2": "GND"},
                 (8.0 + 17.5 * i, 68.0, 0)))
    add(Part("D3", "rgb-led", "Device:LED_RKGB", "RGB", {"1": "LED_R", "2": "GND", "3": "LED_G", "4": "LED_B"},
             (62.0, 72.0, 0)))
    for i, colour in enumerate("RGB"):
        add(Part(f"R{4 + i}", "r-220", "Device:R", "220", {"1": f"LED_{colour}_PWM", "2": f"LED_{colour}"},
                 (60.0 + 4 * i, 62.0, 90)))
    add(Part("J5", "socket-1x08", "Connector_Generic:Conn_01x08", "KEYS",
             {**{str(i + 1): net for i, net in enumerate(key_nets)}, "8": "GND"}, (44.0, 48.0, 90)))
    for i, (x, y) in enumerate(((4.0, 34.0), (4.0, 91.0), (126.0, 91.0), (126.0, 30.0))):
        add(Part(f"H{i + 1}", "mounting-hole", "Mechanical:MountingHole", "M3", {}, (x, y, 0)))
    return d


def _gpio_name(gp: int) -> str:
    return {26: "GPIO26_ADC0", 27: "GPIO27_ADC1", 28: "GPIO28_ADC2"}.get(gp, f"GPIO{gp}")


def _connect(pico: dict[str, str | None], gp: int, net: str, key: str) -> None:
    name = _gpio_name(gp)
    if pico.get(name) is not None:
        raise ValueError(f"{PINS_FILE.name}: {key} (GP{gp}) is already used for {pico[name]}")
    pico[name] = net


def parts_catalogue() -> dict[str, dict[str, object]]:
    return tomllib.loads((HARDWARE / "parts.toml").read_text(encoding="utf-8"))


def footprint(part: str) -> str:
    entry = parts_catalogue().get(part)
    if entry is None or (not entry.get("footprint", None) and part not in ("ssd1306", "mfrc522-spi")):
        raise KeyError(f"hardware/parts.toml has no footprint for {part!r}")
    return str(entry.get("footprint", ""))


def part_name(part: str) -> str:
    return str(parts_catalogue()[part]["name"])


# Silkscreen: (x, y, text). The seat's number is written (or a sticker put) in the box beside "SEAT".
SILKSCREEN = (
    (41.5, 58.5, "SEAT"),
    (100.0, 27.0, "BUS: A/B 1/2, 5V 3-5, GND 6-8"),
    (112.0, 22.0, "TERM: last node   BIAS: one node"),
    (26.0, 32.0, "OLED: GND VCC SCL SDA"),
    (96.0, 88.0, "MFRC522 module above: the card rests on the lid"),
    (52.0, 51.5, "HANDHELD KEYS"),
)
# The modules plugged into the board's sockets (they draw current; the board does not solder them).
MODULES = ("ssd1306", "mfrc522-spi")
# The judge's handheld is the same board without the seat's buttons and the reader's socket, and a 5-way switch
# with two side keys wired to J5 instead of the reader (docs/hardware.md, "The judge's handheld").
HANDHELD_LEAVES_OUT = ("SW1", "SW2", "SW3", "J4")
HANDHELD_MODULES = ("ssd1306", "remote-switch")
SEAT_LABEL_BOX = (46.0, 55.5, 56.0, 61.5)

# Which way the plugged-in modules hang from their sockets (board x, y): the OLED toward the player, the RC522
# module away from its pin row toward the board's right edge.
MODULE_SOCKETS = {"ssd1306": ("J3", (0.0, 1.0)), "mfrc522-spi": ("J4", (1.0, 0.0))}
