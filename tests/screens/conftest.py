"""Screen tests: ``--update-golden`` rewrites the golden PNGs instead of comparing with them.

Run ``pytest tests/screens --update-golden`` (pytest registers the option only when this folder is named on
the command line); ``TIANHEI_UPDATE_GOLDEN=1`` does the same from anywhere. Look at the changed PNGs before
committing them."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/screens/golden/*.png from the current renderer")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    try:
        flag = bool(request.config.getoption("--update-golden"))
    except ValueError:  # the option was not registered (pytest started elsewhere)
        flag = False
    return flag or os.environ.get("TIANHEI_UPDATE_GOLDEN") == "1"
