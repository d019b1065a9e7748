"""The same wire-format test vectors pass under CPython and under the real MicroPython binary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRMWARE = HERE.parents[1] / "firmware"
VECTORS = HERE / "vectors.json"
RUNNER = HERE / "vector_runner.py"


def _last_line(out: str) -> str:
    return out.strip().splitlines()[-1]


def test_vectors_pass_under_cpython() -> None:
    out = subprocess.run(
        [sys.executable, str(RUNNER), str(VECTORS), str(FIRMWARE / "lib")], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert _last_line(out.stdout).endswith("failed 0")


def test_vectors_pass_under_micropython(micropython: str) -> None:
    out = subprocess.run(
        [micropython, str(RUNNER), str(VECTORS), str(FIRMWARE / "lib")], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr
    cpython = subprocess.run(
        [sys.executable, str(RUNNER), str(VECTORS), str(FIRMWARE / "lib")], capture_output=True, text=True
    )
    assert out.stdout == cpython.stdout, "MicroPython and CPython disagree on some vector"


def test_firmware_copy_is_the_controller_module() -> None:
    """firmware/lib/seatbus.py is the very file the controller imports, not a copy that could drift."""
    from controller.bus import seatbus

    assert (FIRMWARE / "lib" / "seatbus.py").resolve() == Path(seatbus.__file__).resolve()
