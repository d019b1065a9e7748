"""The rp2 image every emulated-Pico test boots (``./dev firmware``, cached under ~/.cache/tianhei/firmware)."""

from __future__ import annotations

import pytest

from controller.nodes import firmware_build


@pytest.fixture(scope="session")
def firmware() -> bytes:
    """The image; when it cannot be built the test fails and says why: a seat that never ran on its chip is not
    a pass."""
    try:
        return firmware_build.build().firmware.read_bytes()
    except firmware_build.BuildError as err:
        pytest.fail(f"the rp2 firmware could not be built, so the seat never ran on its chip: {err}")
