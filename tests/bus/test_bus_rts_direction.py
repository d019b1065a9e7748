"""The Pi's own UART turns the RS-485 line with RTS (``[bus] direction = "rts"``, docs/hardware.md): Linux's
RS-485 mode raises RTS while the UART sends. The kernel's side runs in `./dev system-test` on the VM's PL011
(Debian's arm64 kernel); here, what the table asks of pyserial and what it says when a port cannot do it."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from controller.bus.table import open_bus_table
from controller.bus.transport import NoRS485Mode, drive_de_from_rts
from controller.config.profile import parse_profile, profiles_dir


class _Port:
    """A port as pyserial's posix ``Serial`` takes ``rs485_mode``: the settings land in the driver (here, kept)."""

    def __init__(self, refuse: str = "") -> None:
        self.refuse = refuse
        self.closed = False
        self.settings: object = None

    @property
    def rs485_mode(self) -> object:
        return self.settings

    @rs485_mode.setter
    def rs485_mode(self, settings: object) -> None:
        if self.refuse:
            raise ValueError(self.refuse)
        self.settings = settings

    def close(self) -> None:
        self.closed = True


def test_rts_is_high_while_the_pi_sends_and_low_while_it_listens_with_no_extra_delay() -> None:
    port = _Port()
    drive_de_from_rts(port, "/dev/ttyAMA0")
    mode = port.settings
    assert mode.rts_level_for_tx is True and mode.rts_level_for_rx is False  # type: ignore[attr-defined]
    assert mode.delay_before_tx == 0 and mode.delay_before_rx == 0  # type: ignore[attr-defined]
    assert not mode.loopback  # type: ignore[attr-defined]  # the receiver is off while the Pi sends: no echo
    assert not port.closed


def test_a_port_whose_driver_refuses_rs485_mode_is_closed_and_named() -> None:
    port = _Port(refuse="Failed to set RS485 mode: [Errno 25] Inappropriate ioctl for device")
    with pytest.raises(NoRS485Mode) as err:
        drive_de_from_rts(port, "/dev/ttyS0")
    assert port.closed
    assert "/dev/ttyS0 has no RS-485 mode" in str(err.value) and "PL011" in str(err.value)


def test_a_table_set_to_turn_the_line_with_rts_on_a_port_that_cannot_says_so_and_where(tmp_path: Path) -> None:
    """A pty (like a USB adapter's driver) has no RS-485 mode: the table does not start on a line it cannot turn."""
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    main, other = os.openpty()
    try:
        data["bus"]["port"] = os.ttyname(other)
        data["bus"]["direction"] = "rts"
        with pytest.raises(OSError) as err:
            open_bus_table(parse_profile(data, "mine.toml"))
        text = str(err.value)
        assert f"{os.ttyname(other)} has no RS-485 mode" in text and 'direction = "rts" in mine.toml' in text
        assert "direction = \"auto\"" in text
    finally:
        os.close(main)
        os.close(other)


def test_a_table_on_the_pis_uart_that_is_not_turned_on_says_how_to_turn_it_on(tmp_path: Path) -> None:
    data = tomllib.loads((profiles_dir() / "bus-16.toml").read_text(encoding="utf-8"))
    data["bus"]["port"] = str(tmp_path / "ttyAMA0")  # no such port: the UART is off (or given to Bluetooth)
    data["bus"]["direction"] = "rts"
    with pytest.raises(OSError) as err:
        open_bus_table(parse_profile(data, "mine.toml"))
    assert "the Pi's UART" in str(err.value) and "enable_uart=1" in str(err.value) and "mine.toml" in str(err.value)
