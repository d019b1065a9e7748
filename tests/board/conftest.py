"""Board tests draw through pygame on SDL's dummy video driver (no window, no desktop needed).

``--update-golden`` (registered in tests/conftest.py) or ``TIANHEI_UPDATE_GOLDEN=1`` rewrites the golden PNGs
instead of comparing with them; look at the changed PNGs before committing them."""

from __future__ import annotations

import os

import pytest

os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame opens a display
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    try:
        flag = bool(request.config.getoption("--update-golden"))
    except ValueError:  # the option was not registered (pytest started elsewhere)
        flag = False
    return flag or os.environ.get("TIANHEI_UPDATE_GOLDEN") == "1"
