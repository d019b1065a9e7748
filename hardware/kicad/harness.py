"""The cable diagrams: WireViz draws hardware/kicad/seat-node/harness-*.yaml (the bus cable between nodes, the
Pi's end) with Debian's graphviz, into ``out`` and docs/pictures/ for docs/hardware.md."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import seat_node

HARNESSES = sorted(seat_node.BOARD_DIR.glob("harness-*.yaml"))
LABEL_NET = {"A": "RS485_A", "B": "RS485_B", "+5V": "+5V_BUS", "GND": "GND"}


def draw(out: Path, formats: str = "ps") -> list[Path]:
    """Runs wireviz on every harness; the PNGs written (one-line error when wireviz or graphviz is missing)."""
    wireviz = Path(sys.executable).with_name("wireviz")
    if not wireviz.exists() or shutil.which("dot") is None:
        raise RuntimeError("the cable diagrams need wireviz (pip install -e '.[hardware]') and graphviz "
                           "(apt-get install graphviz)")
    result = subprocess.run([str(wireviz), "-f", formats, "-o", str(out), *map(str, HARNESSES)],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"wireviz: {tail[0]}")
    return [out / f"{h.stem}.png" for h in HARNESSES]


def build(out: Path) -> str:
    pictures = draw(out)
    docs = seat_node.HARDWARE.parent / "docs" / "pictures"
    for png in pictures:
        shutil.copyfile(png, docs / png.name)
    return f"cables: {', '.join(p.name for p in pictures)} in {out} and docs/pictures/"
