"""Hardware profiles: the shipped ones load, and wiring mistakes are caught with key, file and fix."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.config import pi_header
from controller.config.errors import ConfigError
from controller.config.profile import available_profiles, load_profile, parse_profile, pin_uses, profiles_dir
from controller.ports import Button


def compact8() -> dict:
    return tomllib.loads((profiles_dir() / "compact-8.toml").read_text(encoding="utf-8"))


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_profile(data, "broken.toml")
    return [str(p) for p in info.value.problems]


def test_the_shipped_profiles_load() -> None:
    assert {"compact-8", "bus-16", "sim"} <= set(available_profiles())
    for name in available_profiles():
        load_profile(name)


def test_compact_8_does_its_pin_arithmetic_honestly() -> None:
    profile = load_profile("compact-8")
    pi_pins = [pin.index for pin, _ in pin_uses(profile) if pin.chip is None]
    assert len(pi_pins) == len(set(pi_pins)) == 9, "8 OK buttons and one interrupt line"
    assert all(p in pi_header.free_gpios() for p in pi_pins)
    assert not set(pi_pins) & {18, 19, 21}, "the I2S audio pins stay free"
    expander_pins = [pin for pin, _ in pin_uses(profile) if pin.chip is not None]
    assert len(expander_pins) == len(set(expander_pins)) == 16 + 24
    assert sorted(s.mux_channel for s in profile.seats) == list(range(8))  # type: ignore[type-var]
    assert all(set(s.buttons) == set(Button) for s in profile.seats)


def test_bus_16_has_sixteen_nodes_and_a_remote() -> None:
    profile = load_profile("bus-16")
    assert [s.node for s in profile.seats] == list(range(1, 17))
    assert profile.bus is not None and profile.bus.remote_address == 17


def test_a_pin_used_twice() -> None:
    data = compact8()
    data["seat"][1]["buttons"]["ok"] = data["seat"][0]["buttons"]["ok"]
    assert problems(data) == [
        "pin GPIO5 is already used by seat[0].buttons.ok (seat[1].buttons.ok in broken.toml): give each wire its own pin"
    ]


def test_a_pin_the_pi_does_not_have() -> None:
    data = compact8()
    data["seat"][2]["buttons"]["ok"] = "GPIO40"
    found = problems(data)
    assert found == ["the Pi's 40-pin header has no GPIO40 (seat[2].buttons.ok in broken.toml): "
                     "use GPIO4..GPIO27 (see the wiring table for free pins)"]


def test_a_reserved_pin() -> None:
    data = compact8()
    data["seat"][0]["buttons"]["ok"] = "GPIO2"
    assert "GPIO2 is SDA1" in problems(data)[0]


def test_two_seats_on_one_mux_channel() -> None:
    data = compact8()
    data["seat"][5]["mux_channel"] = 2
    found = problems(data)
    assert found == ["seats 3 and 6 share mux channel 2 (seat[5].mux_channel in broken.toml): "
                     "two screens answer at the same address: give each seat its own channel"]


def test_an_unknown_key_and_an_unknown_expander() -> None:
    data = compact8()
    data["seat"][0]["buton"] = {}
    data["seat"][0]["buttons"]["prev"] = "mcp9:A0"
    found = problems(data)
    assert any("unknown key 'buton'" in f and "did you mean 'buttons'?" in f for f in found)
    assert any("no expander named 'mcp9'" in f for f in found)


def test_pwm_on_an_expander_pin_is_refused() -> None:
    data = compact8()
    data["seat"][0]["led"]["pwm"] = True
    assert "cannot dim" in problems(data)[0]


def test_an_mfrc522_needs_its_chip_select() -> None:
    data = compact8()
    data["seat"][0]["reader"] = {"type": "mfrc522-spi"}
    assert "chip-select" in problems(data)[0]


def test_an_expander_on_the_readers_address() -> None:
    data = compact8()
    data["expander"][0]["address"] = 0x24  # the PN532's fixed I2C address
    assert problems(data) == ["0x24 is also a seat's screen or reader (expander[0].address in broken.toml): "
                              "set the expander's A0..A2 pins to another address (0x20..0x27)"]


def test_bus_nodes_must_be_unique(tmp_path: Path) -> None:
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    data["seat"][3]["node"] = 1
    assert problems(data) == ["node 1 is used by seat 1 too (seat[3].node in broken.toml): "
                              "give every seat node its own address"]


def test_the_remote_cannot_share_a_seats_address() -> None:
    """Seat 3 would vanish from the table (the master keys its nodes by address): refused, with a free address."""
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    data["bus"]["remote_address"] = 3
    assert problems(data) == ["the remote's address 3 is seat 3's node address (bus.remote_address in broken.toml): "
                              "give the remote an address no seat uses (e.g. 17), and the same 'address' in its "
                              "config.json"]


def test_a_club_that_saw_overlapping_answers_widens_the_slot_guard_in_its_profile(tmp_path: Path) -> None:
    """firmware/PROTOCOL.md, "Slot timing": the 40 µs guard was measured on emulated Picos only; a table whose logic
    analyser shows two seats driving at once sets ``[bus] slot_guard_us`` and the master keeps it."""
    import os

    from controller.bus.table import open_bus_table

    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    assert parse_profile(data, "bus-16.toml").bus.slot_guard_us == 40  # type: ignore[union-attr]
    main, other = os.openpty()
    try:
        data["bus"]["port"] = os.ttyname(other)
        data["bus"]["slot_guard_us"] = 80
        table = open_bus_table(parse_profile(data, "mine.toml"))
        try:
            assert table.master.short_guard_us == 80
        finally:
            table.master.transport.port.close()  # type: ignore[attr-defined]
    finally:
        os.close(main)
        os.close(other)


def test_a_slot_guard_shorter_than_the_measured_one_is_refused() -> None:
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    data["bus"]["slot_guard_us"] = 20
    [problem] = problems(data)
    assert "slot_guard_us" in problem and "20" in problem


def test_a_table_on_the_pis_own_uart_says_rts_turns_the_line() -> None:
    """docs/hardware.md, "The Pi's own UART": ``[bus] direction = "rts"``; a USB adapter turns the line itself."""
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    assert parse_profile(data, "bus-16.toml").bus.direction == "auto"  # type: ignore[union-attr]
    data["bus"]["direction"] = "rts"
    assert parse_profile(data, "mine.toml").bus.direction == "rts"  # type: ignore[union-attr]


def test_a_misspelt_direction_is_refused_with_the_two_it_can_be() -> None:
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    data["bus"]["direction"] = "RTS"
    [problem] = problems(data)
    assert "bus.direction" in problem and "auto" in problem and "rts" in problem


def test_a_reader_clock_beyond_the_mfrc522s_10_mhz_is_refused_with_the_range() -> None:
    """``[bus] reader_spi_hz``: the seats' card reader SPI clock (tianhei nodes image writes it into each node)."""
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    assert parse_profile(data, "bus-16.toml").bus.reader_spi_hz == 4_000_000  # type: ignore[union-attr]
    data["bus"]["reader_spi_hz"] = 20_000_000
    [problem] = problems(data)
    assert "reader_spi_hz" in problem and "20000000 is out of range" in problem and "100000..10000000" in problem
