"""Helpers of the seat board's tests: kicad-cli on a copy of the board's folder (conftest.py puts hardware/kicad/
on the path)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
KICAD_DIR = REPO / "hardware" / "kicad"
BOARD_DIR = KICAD_DIR / "seat-node"


def kicad_cli() -> str:
    found = shutil.which("kicad-cli")
    if found is None:
        raise AssertionError("kicad-cli is missing: run `sudo sh hardware/kicad/kicad-package.sh` (./dev test does)")
    return found


def board_copy(tmp: Path) -> Path:
    """The committed board folder copied, so kicad-cli's reports and project touches stay out of the tree."""
    target = tmp / "seat-node"
    shutil.copytree(BOARD_DIR, target)
    return target


def run_report(args: list[str], report: Path) -> dict[str, Any]:
    """Runs a kicad-cli check that writes a JSON report; the report, or a one-line failure."""
    result = subprocess.run([kicad_cli(), *args, "--format", "json", "--output", str(report)],
                            capture_output=True, text=True, timeout=300)
    if not report.is_file():
        raise AssertionError(f"kicad-cli {' '.join(args[:2])} wrote no report: {(result.stderr or result.stdout)[-300:]}")
    return json.loads(report.read_text(encoding="utf-8"))
