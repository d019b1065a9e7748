"""``./dev hardware``: the seat board and what a fab needs, from the design, into var/hardware/.

Writes the schematic (hardware/kicad/seat-node/), routes the board with Debian's Python and pcbnew, checks both
(ERC, DRC with schematic parity: any error stops here), then exports Gerbers and drill files (zipped for the fab),
JLCPCB's BOM and placement files, hardware/BOM-seat-node.md, the schematic as PDF and a rendered picture of the
board, the box (STL, STEP) and the cable diagrams when their extras are installed (pip install -e '.[hardware]').

    ./dev hardware [--out DIR] [--no-route]

--no-route keeps the committed board's tracks (the schematic and everything exported are still made).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bom
import netlist
import schematic
import seat_node

REPO = seat_node.HARDWARE.parent
BOARD_PY = Path(__file__).resolve().parent / "pcb.py"
SYSTEM_PYTHON = "/usr/bin/python3"   # Debian's, where KiCad's pcbnew module is
FAB_LAYERS = "F.Cu,B.Cu,F.Paste,B.Paste,F.Silkscreen,B.Silkscreen,F.Mask,B.Mask,Edge.Cuts"


class Failed(Exception):
    """A step that cannot go on, with one line saying why."""


def cli(*args: str) -> str:
    if shutil.which("kicad-cli") is None:
        raise Failed("kicad-cli is missing: run `sudo sh hardware/kicad/kicad-package.sh` (KiCad 9)")
    result = subprocess.run(["kicad-cli", *args], capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise Failed(f"kicad-cli {' '.join(args[:3])}: {tail[0]}")
    return result.stdout


def route(net_file: Path) -> None:
    result = subprocess.run([SYSTEM_PYTHON, str(BOARD_PY), str(net_file)], capture_output=True, text=True,
                            timeout=1800)
    print(result.stdout.strip())
    if result.returncode != 0:
        tail = result.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise Failed(f"pcb.py: {tail[0]} (it needs KiCad's pcbnew in {SYSTEM_PYTHON})")
    if "not routed" in result.stdout:
        raise Failed("pcb.py left connections unrouted: move parts in seat_node.py and run again")


def check(sch: Path, pcb: Path, out: Path) -> None:
    # ERC's warnings too (a symbol copy that differs from KiCad's library is one); DRC's errors only (docs/hardware.md: its one warning).
    cli("sch", "erc", "--severity-all", "--format", "json", "--output", str(out / "erc.json"), str(sch))
    erc = json.loads((out / "erc.json").read_text(encoding="utf-8"))
    errors = sum(len(s["violations"]) for s in erc["sheets"])
    cli("pcb", "drc", "--schematic-parity", "--severity-error", "--format", "json",
        "--output", str(out / "drc.json"), str(pcb))
    drc = json.loads((out / "drc.json").read_text(encoding="utf-8"))
    counts = (len(drc["violations"]), len(drc["unconnected_items"]), len(drc["schematic_parity"]))
    print(f"ERC: {errors} errors or warnings; DRC: {counts[0]} errors, {counts[1]} unconnected, {counts[2]} parity issues")
    if errors or any(counts):
        raise Failed(f"the board does not pass its checks: see {out / 'erc.json'} and {out / 'drc.json'}")


def fab(pcb: Path, sch: Path, out: Path) -> None:
    gerbers = out / "gerbers"
    shutil.rmtree(gerbers, ignore_errors=True)
    gerbers.mkdir(parents=True)
    cli("pcb", "export", "gerbers", "--layers", FAB_LAYERS, "--output", f"{gerbers}/", str(pcb))
    cli("pcb", "export", "drill", "--output", f"{gerbers}/", str(pcb))
    with zipfile.ZipFile(out / "seat-node-gerbers.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(gerbers.iterdir()):
            archive.write(file, file.name)
    cli("pcb", "export", "pos", "--format", "csv", "--units", "mm", "--use-drill-file-origin",
        "--output", str(out / "kicad-pos.csv"), str(pcb))
    (out / "seat-node-bom-jlcpcb.csv").write_text(bom.jlc_bom(), encoding="utf-8")
    (out / "seat-node-cpl-jlcpcb.csv").write_text(bom.jlc_cpl((out / "kicad-pos.csv").read_text(encoding="utf-8")),
                                                  encoding="utf-8")
    cli("sch", "export", "pdf", "--output", str(out / "seat-node-schematic.pdf"), str(sch))
    for side in ("top", "bottom"):
        cli("pcb", "render", "--side", side, "--width", "1600", "--height", "1000", "--zoom", "1.25",
            "--background", "opaque", "--output", str(out / f"seat-node-{side}.png"), str(pcb))


def pictures(out: Path) -> None:
    """The renders docs/hardware.md shows, copied beside its other pictures."""
    docs = REPO / "docs" / "pictures"
    for name in ("seat-node-top.png", "seat-node-bottom.png", "seat-box.png", "seat-box-fit.png"):
        shutil.copyfile(out / name, docs / name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev hardware", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "var" / "hardware")
    parser.add_argument("--no-route", action="store_true", help="keep the committed board's tracks")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    try:
        sch = schematic.write()
        print(f"schematic: {sch.relative_to(REPO)}")
        net = netlist.export(sch, out / "seat-node.net")
        pcb = seat_node.BOARD_DIR / f"{seat_node.NAME}.kicad_pcb"
        if not args.no_route:
            route(net)
        check(sch, pcb, out)
        print(f"BOM: {Path(bom.write_markdown()).relative_to(REPO)}")
        fab(pcb, sch, out)
        import box
        import harness

        print(box.build(out))
        print(harness.build(out))
        pictures(out)
    except (Failed, RuntimeError, ImportError) as error:
        print(f"./dev hardware: {error}", file=sys.stderr)
        return 1
    print(f"fab files in {out}: seat-node-gerbers.zip, seat-node-bom-jlcpcb.csv, seat-node-cpl-jlcpcb.csv, "
          "seat-node-schematic.pdf, seat-node-top.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
