"""Fixtures for the gpio adapter's tests.

Set ``TIANHEI_REAL_HARDWARE=1`` on a Raspberry Pi to run the tests marked ``real_hardware`` with the lgpio pin
factory (as gpiozero's own test_real_pins.py does); without it they are skipped and everything else is mocked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from .rig import Rig, make_rig

REAL = os.environ.get("TIANHEI_REAL_HARDWARE") == "1"


@pytest.fixture(autouse=True)
def _real_hardware_only_on_request(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("real_hardware") and not REAL:
        pytest.skip("needs a Raspberry Pi: set TIANHEI_REAL_HARDWARE=1")


@pytest.fixture
def pin_factory() -> Iterator[object]:
    """The lgpio factory on a real Pi, gpiozero's MockFactory (with PWM pins) everywhere else."""
    if REAL:
        from gpiozero.pins.lgpio import LGPIOFactory

        factory: object = LGPIOFactory()
    else:
        factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.close()  # type: ignore[attr-defined]


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = make_rig()
    r.table.start(r.events.append, thread=False)
    yield r
    r.table.stop()
    r.factory.close()
