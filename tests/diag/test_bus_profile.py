"""The table tools open a ``bus`` profile's serial port; when it is not there they say so and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config.profile import load_profile
from controller.diag.host import HardwareError, open_host


def test_diag_on_bus_16_without_its_rs485_adapter_names_the_port_and_the_fix() -> None:
    profile = load_profile("bus-16")
    assert profile.bus is not None
    if Path(profile.bus.port).exists():
        pytest.skip(f"{profile.bus.port} is there: this machine has the adapter")
    with pytest.raises(HardwareError) as err, open_host(profile):
        pass
    message = str(err.value)
    assert "bus-16" in message and profile.bus.port in message and "--hardware sim" in message
