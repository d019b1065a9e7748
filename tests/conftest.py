"""Options for the whole suite (registered here so they work from the repository root)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/screens/golden/*.png from the current renderer (look before committing)")
