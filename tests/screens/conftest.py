"""Screen tests: ``--update-golden`` rewrites the golden PNGs instead of comparing with them.

Run ``pytest --update-golden`` (the option is registered in tests/conftest.py); ``TIANHEI_UPDATE_GOLDEN=1``
does the same. Look at the changed PNGs before
committing them."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    try:
        flag = bool(request.config.getoption("--update-golden"))
    except ValueError:  # the option was not registered (pytest started elsewhere)
        flag = False
    return flag or os.environ.get("TIANHEI_UPDATE_GOLDEN") == "1"
