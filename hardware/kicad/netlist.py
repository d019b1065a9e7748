"""The schematic's netlist as KiCad exports it (``kicad-cli sch export netlist``), read into nets of part pins.

Stdlib only: the tests read it under the project's Python, pcb.py under Debian's.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import sexpr


@dataclass(frozen=True)
class Node:
    ref: str
    pin: str        # the pad number
    function: str   # the symbol's pin name (the Pico's GPIO7, the transceiver's DI), "" when it has none


@dataclass
class Netlist:
    values: dict[str, str]          # ref -> value
    footprints: dict[str, str]      # ref -> Library:Footprint
    nets: dict[str, list[Node]]     # name without the sheet's "/" -> its pins
    stamps: dict[str, str]          # ref -> the symbol's uuid (the footprint's path, for schematic parity)

    def net_of(self, ref: str, pin_or_function: str) -> str | None:
        """The net a part's pin (by number or by the symbol's pin name) is on; None when it is on none."""
        for name, nodes in self.nets.items():
            for node in nodes:
                if node.ref == ref and pin_or_function in (node.pin, node.function):
                    return name
        return None

    def pins_on(self, net: str) -> set[tuple[str, str]]:
        return {(n.ref, n.pin) for n in self.nets.get(net, [])}


def read(path: Path) -> Netlist:
    tree = sexpr.parse(path.read_text(encoding="utf-8"))
    values, footprints, stamps = {}, {}, {}
    for comp in sexpr.find(sexpr.first(tree, "components"), "comp"):
        ref = str(sexpr.first(comp, "ref")[1])
        values[ref] = str(sexpr.first(comp, "value")[1])
        footprints[ref] = str(sexpr.first(comp, "footprint")[1]) if sexpr.find(comp, "footprint") else ""
        stamps[ref] = str(sexpr.first(comp, "tstamps")[1])
    nets: dict[str, list[Node]] = {}
    for net in sexpr.find(sexpr.first(tree, "nets"), "net"):
        name = str(sexpr.first(net, "name")[1]).lstrip("/")
        nets[name] = [Node(str(sexpr.first(n, "ref")[1]), str(sexpr.first(n, "pin")[1]),
                           str(sexpr.first(n, "pinfunction")[1]) if sexpr.find(n, "pinfunction") else "")
                      for n in sexpr.find(net, "node")]
    return Netlist(values, footprints, nets, stamps)


def export(schematic: Path, out: Path) -> Path:
    """Runs kicad-cli to export ``schematic``'s netlist to ``out``; a one-line error when it cannot."""
    result = subprocess.run(["kicad-cli", "sch", "export", "netlist", "--output", str(out), str(schematic)],
                            capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or not out.is_file():
        last = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"kicad-cli could not export the netlist of {schematic.name}: {last[0]}")
    return out
