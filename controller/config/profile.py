"""Hardware profiles: the single source of truth for how a table is wired.

A profile is a TOML file in ``hardware/profiles/`` naming the adapter (``sim``, ``gpio`` or ``bus``) and, for real
tables, every pin, bus address, multiplexer channel and reader of every seat. The ``gpio`` adapter builds the table
from it, ``hardware/generate_docs.py`` writes the wiring tables and bill of materials from it, and
``tianhei config check`` validates it. Loading collects every problem before raising :class:`ConfigError`.

Pin names: ``GPIO17`` is a pin on the Pi's header (Broadcom numbering); ``mcp0:A3`` is pin GPA3 of the port
expander named ``mcp0`` in the profile (``B0``..``B7`` for port B).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.config import pi_header
from controller.config.errors import ConfigError, Problem, read_toml, suggest, unknown_keys
from controller.ports import Button

ADAPTERS = ("sim", "gpio", "bus")
READER_TYPES = ("pn532-i2c", "pn532-uart", "mfrc522-spi", "none")
SCREEN_TYPES = ("ssd1306", "none")
EXPANDER_TYPES = ("mcp23017",)
I2C_SPEEDS = (100_000, 400_000, 1_000_000)
MAX_SEATS = 16

_EXPANDER_PIN = re.compile(r"^([A-Za-z][\w-]*):([AB])([0-7])$")


@dataclass(frozen=True, slots=True)
class PinRef:
    """A pin on the Pi (``chip`` is None, ``index`` = Broadcom GPIO) or on a named expander (index 0..15,
    where 0..7 are GPA0..7 and 8..15 GPB0..7)."""

    chip: str | None
    index: int

    def __str__(self) -> str:
        if self.chip is None:
            return f"GPIO{self.index}"
        return f"{self.chip}:{'AB'[self.index // 8]}{self.index % 8}"


@dataclass(frozen=True, slots=True)
class LedSpec:
    """An RGB LED: three pins in R, G, B order. ``pwm`` needs Pi pins; expander pins give 8 colours."""

    pins: tuple[PinRef, PinRef, PinRef]
    pwm: bool = True
    active_high: bool = True


@dataclass(frozen=True, slots=True)
class ScreenSpec:
    type: str = "ssd1306"
    address: int = 0x3C
    rotate: int = 0


@dataclass(frozen=True, slots=True)
class ReaderSpec:
    type: str = "pn532-i2c"
    address: int = 0x24
    port: str = ""
    baud: int = 115200
    spi_bus: int = 0
    cs: PinRef | None = None


@dataclass(frozen=True, slots=True)
class SeatSpec:
    number: int
    mux_channel: int | None = None
    buttons: Mapping[Button, PinRef] = field(default_factory=dict)
    led: LedSpec | None = None
    screen: ScreenSpec = ScreenSpec()
    reader: ReaderSpec = ReaderSpec()
    node: int | None = None


@dataclass(frozen=True, slots=True)
class ExpanderSpec:
    name: str
    type: str
    address: int
    int_pin: PinRef | None = None


#: ``[bus] reader_spi_hz``'s default: the seats' card reader SPI clock (BusSpec.reader_spi_hz).
READER_SPI_HZ = 4_000_000


@dataclass(frozen=True, slots=True)
class BusSpec:
    """The RS-485 seat bus (``bus`` adapter): serial port, speed, and the judge's handheld's node address."""

    port: str
    baud: int
    remote_address: int | None
    board: str = "pico-seat"
    #: How long the master waits for a node's answer before it tries again (a slow adapter, or a table in an
    #: emulated VM, needs longer than the 10 ms a USB adapter at 1 Mbaud does).
    reply_timeout_ms: int = 10
    #: The guard of each slot while every node that is up begins its answers at the slot's microsecond (firmware
    #: 0.7's SLOT_EXACT; firmware/PROTOCOL.md, "Slot timing"): 40 µs, measured on emulated Picos only. A table
    #: whose logic analyser shows neighbours' answers overlapping sets 60 or 80 and keeps playing.
    slot_guard_us: int = 40
    #: Who turns the line around: ``auto``, a USB RS-485 adapter that raises its driver while it sends; ``rts``,
    #: the port's RTS wired to the transceiver's DE and /RE, raised by Linux's RS-485 mode (the Pi's own PL011
    #: UART: no USB latency timer between an answer and the master; docs/hardware.md).
    direction: str = "auto"
    #: The card reader's SPI clock on every seat node (written into each node's config.json by ``tianhei nodes
    #: image``): 4 MHz, what the widely used Arduino MFRC522 library clocks the chip at (it takes up to 10). A seat
    #: whose reader sits on long or poor wires and stops reporting cards is tried at 1000000.
    reader_spi_hz: int = READER_SPI_HZ


#: The values of ``[bus] direction``.
BUS_DIRECTIONS = ("auto", "rts")


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    adapter: str
    source: str
    description: str = ""
    i2c_bus: int = 1
    i2c_speed_hz: int = 400_000
    mux_address: int | None = None
    expanders: tuple[ExpanderSpec, ...] = ()
    seats: tuple[SeatSpec, ...] = ()
    bus: BusSpec | None = None
    parts: Mapping[str, Any] = field(default_factory=dict)

    def seat(self, number: int) -> SeatSpec:
        for seat in self.seats:
            if seat.number == number:
                return seat
        raise KeyError(number)


def profiles_dir() -> Path:
    """Where the shipped profiles live (``hardware/profiles`` beside the ``controller`` package)."""
    return Path(__file__).resolve().parents[2] / "hardware" / "profiles"


def find_profile(name_or_path: str, relative_to: Path | None = None) -> Path:
    """A profile name (``compact-8``) or a path to a ``.toml`` file (relative to the config file's folder)."""
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        path = Path(name_or_path)
        if not path.is_absolute() and relative_to is not None:
            path = relative_to / path
        return path
    return profiles_dir() / f"{name_or_path}.toml"


def available_profiles() -> list[str]:
    return sorted(p.stem for p in profiles_dir().glob("*.toml"))


def load_profile(name_or_path: str, relative_to: Path | None = None) -> Profile:
    """Load and validate a profile; raise :class:`ConfigError` listing every problem."""
    path = find_profile(name_or_path, relative_to)
    if not path.is_file():
        raise ConfigError([Problem(str(path), "", f"no hardware profile {name_or_path!r}",
                                   suggest(name_or_path, available_profiles()))])
    shown = _shown(path)
    return parse_profile(read_toml(path, shown), shown)


def _shown(path: Path) -> str:
    """A profile's path as messages show it: relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class _Reader:
    """Typed access to raw TOML with problems collected instead of raised."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []

    def report(self, key: str, message: str, fix: str = "") -> None:
        self.problems.append(Problem(self.file, key, message, fix))

    def table(self, data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, Mapping):
            self.report(f"{where}{key}", "must be a table", f"write it as [{where}{key}] or {{ ... }}")
            return {}
        return value

    def int_(self, data: Mapping[str, Any], key: str, where: str, default: int | None,
             lo: int | None = None, hi: int | None = None) -> int | None:
        value = data.get(key, default)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            self.report(f"{where}{key}", f"must be a whole number, not {value!r}", "e.g. 0x3C or 60")
            return default
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            self.report(f"{where}{key}", f"{value} is out of range", f"use {lo}..{hi}")
            return default
        return value

    def str_(self, data: Mapping[str, Any], key: str, where: str, default: str,
             choices: Sequence[str] | None = None) -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            self.report(f"{where}{key}", f"must be a string, not {value!r}", f'write it in quotes: "{value}"')
            return default
        if choices is not None and value not in choices:
            self.report(f"{where}{key}", f"{value!r} is not one of {', '.join(choices)}", suggest(value, choices))
            return default
        return value

    def pin(self, value: Any, key: str) -> PinRef | None:
        if not isinstance(value, str):
            self.report(key, f"a pin is a string like \"GPIO17\" or \"mcp0:A3\", not {value!r}", "quote it")
            return None
        gpio = pi_header.parse_gpio(value)
        if gpio is not None:
            if gpio not in pi_header.GPIO_TO_PHYSICAL:
                self.report(key, f"the Pi's 40-pin header has no {value}",
                            "use GPIO4..GPIO27 (see the wiring table for free pins)")
                return None
            return PinRef(None, gpio)
        match = _EXPANDER_PIN.match(value)
        if match:
            return PinRef(match.group(1), (8 if match.group(2) == "B" else 0) + int(match.group(3)))
        self.report(key, f"{value!r} is not a pin name", 'write "GPIO<n>" for the Pi or "<expander>:A0".."B7"')
        return None


_TOP = ("profile", "i2c", "mux", "expander", "defaults", "seat", "bus", "sim", "parts")
_SEAT_KEYS = ("number", "mux_channel", "buttons", "led", "screen", "reader", "node")


def parse_profile(data: Mapping[str, Any], file: str) -> Profile:
    """Validate raw profile data (already parsed TOML) from ``file``."""
    r = _Reader(file)
    r.problems += unknown_keys(data, _TOP, "", file)
    head = r.table(data, "profile", "")
    r.problems += unknown_keys(head, ("name", "adapter", "description"), "profile", file)
    name = r.str_(head, "name", "profile.", Path(file).stem)
    adapter = r.str_(head, "adapter", "profile.", "sim", ADAPTERS)
    description = r.str_(head, "description", "profile.", "")
    i2c = r.table(data, "i2c", "")
    r.problems += unknown_keys(i2c, ("bus", "speed_hz"), "i2c", file)
    i2c_bus = r.int_(i2c, "bus", "i2c.", 1, 0, 22) or 0
    speed = r.int_(i2c, "speed_hz", "i2c.", 400_000) or 400_000
    if speed not in I2C_SPEEDS:
        r.report("i2c.speed_hz", f"{speed} Hz is not a standard I2C speed", "use 100000, 400000 or 1000000")
    mux = r.table(data, "mux", "")
    r.problems += unknown_keys(mux, ("type", "address"), "mux", file)
    mux_address = None
    if mux:
        r.str_(mux, "type", "mux.", "tca9548a", ("tca9548a",))
        mux_address = r.int_(mux, "address", "mux.", 0x70, 0x70, 0x77)
    expanders = _expanders(r, data.get("expander", []))
    seats = _seats(r, data, adapter)
    bus = _bus(r, data) if adapter == "bus" else None
    if bus is not None:
        _check_remote_address(r, bus, seats)
    parts = r.table(data, "parts", "")
    profile = Profile(name, adapter, file, description, i2c_bus, speed, mux_address, tuple(expanders),
                      tuple(seats), bus, dict(parts))
    if adapter == "gpio":
        _check_gpio_wiring(r, profile)
    if r.problems:
        raise ConfigError(r.problems)
    return profile


def _expanders(r: _Reader, raw: Any) -> list[ExpanderSpec]:
    if not isinstance(raw, list):
        r.report("expander", "must be a list of [[expander]] tables", "write each one as [[expander]]")
        return []
    out = []
    for i, item in enumerate(raw):
        where = f"expander[{i}]."
        r.problems += unknown_keys(item, ("name", "type", "address", "int_pin"), f"expander[{i}]", r.file)
        name = r.str_(item, "name", where, f"mcp{i}")
        kind = r.str_(item, "type", where, "mcp23017", EXPANDER_TYPES)
        address = r.int_(item, "address", where, 0x20, 0x20, 0x27) or 0x20
        int_pin = r.pin(item["int_pin"], where + "int_pin") if "int_pin" in item else None
        if int_pin is not None and int_pin.chip is not None:
            r.report(where + "int_pin", "an expander's interrupt line must go to a Pi pin", 'use "GPIO<n>"')
        out.append(ExpanderSpec(name, kind, address, int_pin))
    return out


def _seats(r: _Reader, data: Mapping[str, Any], adapter: str) -> list[SeatSpec]:
    if adapter == "sim":
        sim = r.table(data, "sim", "")
        r.problems += unknown_keys(sim, ("seats",), "sim", r.file)
        count = r.int_(sim, "seats", "sim.", MAX_SEATS, 1, MAX_SEATS) or MAX_SEATS
        return [SeatSpec(n, reader=ReaderSpec("none"), screen=ScreenSpec("none")) for n in range(1, count + 1)]
    defaults = r.table(data, "defaults", "")
    r.problems += unknown_keys(defaults, ("screen", "reader", "led"), "defaults", r.file)
    raw = data.get("seat", [])
    if not isinstance(raw, list) or not raw:
        r.report("seat", "a real table needs seats", "add one [[seat]] table per seat")
        return []
    seats = []
    for i, item in enumerate(raw):
        where = f"seat[{i}]"
        r.problems += unknown_keys(item, _SEAT_KEYS, where, r.file)
        number = r.int_(item, "number", where + ".", i + 1, 1, MAX_SEATS) or i + 1
        mux_channel = r.int_(item, "mux_channel", where + ".", None, 0, 7)
        node = r.int_(item, "node", where + ".", None, 1, 31)
        buttons = _buttons(r, item.get("buttons", {}), where + ".buttons") if adapter == "gpio" else {}
        led_raw = {**r.table(defaults, "led", "defaults."), **r.table(item, "led", where + ".")}
        led = _led(r, led_raw, where + ".led") if adapter == "gpio" else None
        screen_raw = {**r.table(defaults, "screen", "defaults."), **r.table(item, "screen", where + ".")}
        r.problems += unknown_keys(screen_raw, ("type", "address", "rotate"), where + ".screen", r.file)
        screen = ScreenSpec(
            r.str_(screen_raw, "type", where + ".screen.", "ssd1306", SCREEN_TYPES),
            r.int_(screen_raw, "address", where + ".screen.", 0x3C, 0x3C, 0x3D) or 0x3C,
            r.int_(screen_raw, "rotate", where + ".screen.", 0, 0, 3) or 0,
        )
        reader = _reader(r, {**r.table(defaults, "reader", "defaults."), **r.table(item, "reader", where + ".")},
                         where + ".reader", on_pi=adapter == "gpio")
        seats.append(SeatSpec(number, mux_channel, buttons, led, screen, reader, node))
    _check_seats(r, seats, adapter)
    return seats


def _buttons(r: _Reader, raw: Any, where: str) -> dict[Button, PinRef]:
    names = [b.value for b in Button]
    if not isinstance(raw, Mapping):
        r.report(where, "must be a table of pins", "e.g. buttons = { prev = \"mcp0:A0\", ... }")
        return {}
    r.problems += unknown_keys(raw, names, where, r.file)
    out = {}
    for button in Button:
        if button.value not in raw:
            r.report(f"{where}.{button.value}", "this button has no pin", f"add {button.value} = \"GPIO<n>\"")
            continue
        pin = r.pin(raw[button.value], f"{where}.{button.value}")
        if pin is not None:
            out[button] = pin
    return out


def _led(r: _Reader, raw: Mapping[str, Any], where: str) -> LedSpec | None:
    if not raw:
        return None  # a seat without an LED
    r.problems += unknown_keys(raw, ("pins", "pwm", "active_high"), where, r.file)
    pins_raw = raw.get("pins")
    if not isinstance(pins_raw, list) or len(pins_raw) != 3:
        r.report(where + ".pins", "an RGB LED needs three pins (red, green, blue)", 'pins = ["GPIO5", ...]')
        return None
    pins = [r.pin(p, f"{where}.pins[{i}]") for i, p in enumerate(pins_raw)]
    pwm = bool(raw.get("pwm", True))
    if pwm and any(p is not None and p.chip is not None for p in pins):
        r.report(where + ".pwm", "an expander pin cannot dim (the MCP23017 has no PWM)",
                 "set pwm = false for 8 colours, or move the LED to Pi pins")
    if any(p is None for p in pins):
        return None
    red, green, blue = (p for p in pins if p is not None)
    return LedSpec((red, green, blue), pwm, bool(raw.get("active_high", True)))


def _reader(r: _Reader, raw: Mapping[str, Any], where: str, on_pi: bool) -> ReaderSpec:
    r.problems += unknown_keys(raw, ("type", "address", "port", "baud", "spi_bus", "cs"), where, r.file)
    kind = r.str_(raw, "type", where + ".", "pn532-i2c", READER_TYPES)
    cs = r.pin(raw["cs"], where + ".cs") if "cs" in raw else None
    spec = ReaderSpec(
        kind,
        r.int_(raw, "address", where + ".", 0x24, 0x08, 0x77) or 0x24,
        r.str_(raw, "port", where + ".", ""),
        r.int_(raw, "baud", where + ".", 115200, 9600, 1_000_000) or 115200,
        r.int_(raw, "spi_bus", where + ".", 0, 0, 6) or 0,
        cs,
    )
    if not on_pi:  # a seat node wires its own reader (hardware/boards/)
        return spec
    if kind == "pn532-uart" and not spec.port:
        r.report(where + ".port", "a PN532 on UART needs its serial port", 'e.g. port = "/dev/ttyAMA0"')
    if kind == "mfrc522-spi" and cs is None:
        r.report(where + ".cs", "an MFRC522 needs its own chip-select pin", 'e.g. cs = "GPIO5"')
    return spec


def _check_seats(r: _Reader, seats: list[SeatSpec], adapter: str) -> None:
    seen: dict[int, int] = {}
    for i, seat in enumerate(seats):
        if seat.number in seen:
            r.report(f"seat[{i}].number", f"seat {seat.number} is listed twice (also seat[{seen[seat.number]}])",
                     "give every seat its own number")
        seen[seat.number] = i
    if adapter == "bus":
        nodes: dict[int, int] = {}
        for i, seat in enumerate(seats):
            if seat.node is None:
                r.report(f"seat[{i}].node", f"seat {seat.number} has no bus node address", "add node = 1..31")
            elif seat.node in nodes:
                r.report(f"seat[{i}].node", f"node {seat.node} is used by seat {nodes[seat.node]} too",
                         "give every seat node its own address")
            else:
                nodes[seat.node] = seat.number


def _bus(r: _Reader, data: Mapping[str, Any]) -> BusSpec:
    bus = r.table(data, "bus", "")
    r.problems += unknown_keys(bus, ("port", "baud", "remote_address", "board", "reply_timeout_ms", "slot_guard_us",
                                     "direction", "reader_spi_hz"), "bus", r.file)
    port = r.str_(bus, "port", "bus.", "")
    if not port:
        r.report("bus.port", "the seat bus needs a serial port",
                 'e.g. port = "/dev/tianhei-bus" (systemd/99-tianhei.rules names the USB RS-485 adapter so)')
    baud = r.int_(bus, "baud", "bus.", 250_000, 9600, 4_000_000) or 250_000
    remote = r.int_(bus, "remote_address", "bus.", None, 1, 31)
    board = r.str_(bus, "board", "bus.", "pico-seat")
    if not (profiles_dir().parent / "boards" / f"{board}.toml").is_file():
        r.report("bus.board", f"no seat-node board {board!r} in hardware/boards/", 'use board = "pico-seat"')
    reply = r.int_(bus, "reply_timeout_ms", "bus.", 10, 1, 1000) or 10
    guard = r.int_(bus, "slot_guard_us", "bus.", 40, 40, 400) or 40
    direction = r.str_(bus, "direction", "bus.", "auto", BUS_DIRECTIONS)
    # (the MFRC522 takes up to 10 Mbit/s, data sheet §8.1.2; below 100 kHz a scan's steps outlast the loop's)
    reader = r.int_(bus, "reader_spi_hz", "bus.", READER_SPI_HZ, 100_000, 10_000_000) or READER_SPI_HZ
    return BusSpec(port, baud, remote, board, reply, guard, direction, reader)


def _check_remote_address(r: _Reader, bus: BusSpec, seats: list[SeatSpec]) -> None:
    """The remote needs an address of its own: sharing a seat's, one of the two would vanish from the table (the
    master keys its nodes by address), and a seat's replies would be refused as unsealed remote replies."""
    for seat in seats:
        if bus.remote_address is not None and (seat.node or seat.number) == bus.remote_address:
            free = sorted(set(range(1, 32)) - {s.node or s.number for s in seats})
            r.report("bus.remote_address", f"the remote's address {bus.remote_address} is seat {seat.number}'s "
                     f"node address", f"give the remote an address no seat uses (e.g. {free[0]}), and the same "
                     f"'address' in its config.json" if free else "free an address for the remote")


def pin_uses(profile: Profile) -> list[tuple[PinRef, str]]:
    """Every pin the profile wires, with the dotted key that wires it (for validation and the wiring table)."""
    uses: list[tuple[PinRef, str]] = []
    for i, exp in enumerate(profile.expanders):
        if exp.int_pin is not None:
            uses.append((exp.int_pin, f"expander[{i}].int_pin"))
    for i, seat in enumerate(profile.seats):
        for button, pin in seat.buttons.items():
            uses.append((pin, f"seat[{i}].buttons.{button.value}"))
        if seat.led is not None:
            uses += [(pin, f"seat[{i}].led.pins[{j}]") for j, pin in enumerate(seat.led.pins)]
        if seat.reader.cs is not None:
            uses.append((seat.reader.cs, f"seat[{i}].reader.cs"))
    return uses


def _check_gpio_wiring(r: _Reader, profile: Profile) -> None:
    """Pins used twice, reserved pins, unknown expanders, shared mux channels, clashing I2C addresses."""
    expanders = {e.name: e for e in profile.expanders}
    spi_used = any(s.reader.type == "mfrc522-spi" for s in profile.seats)
    uart_used = any(s.reader.type == "pn532-uart" and ("AMA" in s.reader.port or "serial0" in s.reader.port)
                    for s in profile.seats)
    taken: dict[PinRef, str] = {}
    for pin, key in pin_uses(profile):
        if pin in taken:
            r.report(key, f"pin {pin} is already used by {taken[pin]}", "give each wire its own pin")
            continue
        taken[pin] = key
        if pin.chip is not None and pin.chip not in expanders:
            r.report(key, f"no expander named {pin.chip!r}", suggest(pin.chip, expanders))
        if pin.chip is None:
            reason = pi_header.RESERVED.get(pin.index)
            reason = reason or (pi_header.SPI0_PINS.get(pin.index) if spi_used else None)
            reason = reason or (pi_header.UART0_PINS.get(pin.index) if uart_used else None)
            if reason and not (key.endswith(".cs") and pin.index in (7, 8)):
                r.report(key, f"GPIO{pin.index} is {reason}", "pick a free GPIO from the wiring table")
    channels: dict[int, int] = {}
    uses_i2c = False
    for i, seat in enumerate(profile.seats):
        on_i2c = seat.screen.type == "ssd1306" or seat.reader.type == "pn532-i2c"
        uses_i2c = uses_i2c or on_i2c
        if on_i2c and profile.mux_address is not None:
            if seat.mux_channel is None:
                r.report(f"seat[{i}].mux_channel", f"seat {seat.number} has I2C parts but no mux channel",
                         "add mux_channel = 0..7")
            elif seat.mux_channel in channels:
                r.report(f"seat[{i}].mux_channel",
                         f"seats {channels[seat.mux_channel]} and {seat.number} share mux channel {seat.mux_channel}",
                         "two screens answer at the same address: give each seat its own channel")
            else:
                channels[seat.mux_channel] = seat.number
    if uses_i2c and profile.mux_address is None and len(profile.seats) > 1:
        r.report("mux", "several seats' screens share one I2C address and there is no multiplexer",
                 "add [mux] type = \"tca9548a\", address = 0x70")
    downstream = {s.screen.address for s in profile.seats if s.screen.type != "none"}
    downstream |= {s.reader.address for s in profile.seats if s.reader.type == "pn532-i2c"}
    addresses: dict[int, str] = {}
    if profile.mux_address is not None:
        addresses[profile.mux_address] = "the multiplexer"
    for i, exp in enumerate(profile.expanders):
        clash = addresses.get(exp.address) or ("a seat's screen or reader" if exp.address in downstream else None)
        if clash:
            r.report(f"expander[{i}].address", f"0x{exp.address:02X} is also {clash}",
                     "set the expander's A0..A2 pins to another address (0x20..0x27)")
        addresses[exp.address] = f"expander {exp.name}"
