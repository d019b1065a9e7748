"""Writes the seat board's schematic (hardware/kicad/seat-node/seat-node.kicad_sch) from seat_node.design().

Each part is a symbol from KiCad's own libraries (copied into the file, as KiCad does); every pin gets a net label
or a no-connect flag right on its end, so the netlist is exactly the design's and nothing depends on drawn wires.
Run by ``./dev hardware`` (hardware/kicad/build.py); stdlib only.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass
from pathlib import Path

import seat_node
import sexpr
from sexpr import Node, Quoted

SYMBOLS = Path("/usr/share/kicad/symbols")
GRID = 2.54
PAGE = ("A2", 594.0, 420.0)
MANDATORY_FIELDS = ("Reference", "Value", "Footprint", "Datasheet", "Description")
_NAMESPACE = uuid.UUID("5e47f00d-0000-4000-8000-000000000036")


def _uuid(*parts: object) -> Quoted:
    """Stable ids, so the written file changes only where the design does."""
    return Quoted(str(uuid.uuid5(_NAMESPACE, "/".join(str(p) for p in parts))))


@dataclass(frozen=True)
class Pin:
    number: str
    name: str
    kind: str
    x: float   # the connection end, in the symbol's own coordinates (y up)
    y: float
    angle: int


class Library:
    """Symbols read from KiCad's .kicad_sym files, flattened where one extends another."""

    def __init__(self, root: Path = SYMBOLS) -> None:
        self.root = root
        self._files: dict[str, str] = {}

    def symbol(self, lib_id: str) -> list[Node]:
        lib, name = lib_id.split(":", 1)
        if lib not in self._files:
            path = self.root / f"{lib}.kicad_sym"
            if not path.is_file():
                raise FileNotFoundError(f"KiCad's symbol library {path} is missing (hardware/kicad/kicad-package.sh)")
            self._files[lib] = path.read_text(encoding="utf-8")
        text = self._files[lib]
        # Only the one symbol's text is parsed (a library is megabytes): top-level symbols start a line with one tab.
        start = text.find(f'\n\t(symbol "{name}"\n')
        if start < 0:
            raise KeyError(f"{lib_id}: no such symbol in KiCad's {lib} library")
        end = text.find('\n\t(symbol "', start + 1)
        parsed = sexpr.parse(text[start:end if end > 0 else len(text)])
        assert isinstance(parsed, list)
        found = [parsed]
        node = copy.deepcopy(found[0])
        extends = sexpr.find(node, "extends")
        if extends:
            # As KiCad flattens a derived symbol: the parent's body and fields in the parent's order, each field
            # the child's where it has one -- but an empty mandatory field (MAX3485's Footprint) keeps the
            # parent's, else ERC reports the copy as differing from the library (lib_symbol_mismatch).
            parent = self.symbol(f"{lib}:{extends[0][1]}")
            mine = {p[1]: p for p in sexpr.find(node, "property")
                    if not (p[1] in MANDATORY_FIELDS and not str(p[2]))}
            base = str(parent[1]).split(":", 1)[1]
            body = [c for c in parent[2:] if not (isinstance(c, list) and c and c[0] == "property")]
            for child in body:
                if isinstance(child, list) and child and child[0] == "symbol":
                    child[1] = Quoted(str(child[1]).replace(base, name, 1))
            fields = [mine.pop(p[1], p) for p in sexpr.find(parent, "property")]
            node = [node[0], node[1], *body, *fields, *mine.values()]
        node[1] = Quoted(lib_id)
        return node

    def pins(self, lib_id: str) -> list[Pin]:
        pins = []
        for unit in sexpr.find(self.symbol(lib_id), "symbol"):
            for pin in sexpr.find(unit, "pin"):
                at = sexpr.first(pin, "at")
                pins.append(Pin(str(sexpr.first(pin, "number")[1]), str(sexpr.first(pin, "name")[1]), str(pin[1]),
                                float(str(at[1])), float(str(at[2])), int(float(str(at[3])))))
        return pins


def _num(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _effects(justify: str = "", hide: bool = False) -> list[Node]:
    node: list[Node] = ["effects", ["font", ["size", "1.27", "1.27"]]]
    if justify:
        node.append(["justify", *justify.split()])
    if hide:
        node.append(["hide", "yes"])
    return node


def _property(key: str, value: str, x: float, y: float, hide: bool = False) -> list[Node]:
    return ["property", Quoted(key), Quoted(value), ["at", _num(x), _num(y), "0"], _effects(hide=hide)]


def _extent(pins: list[Pin]) -> tuple[float, float, float, float]:
    xs = [p.x for p in pins] or [0.0]
    ys = [p.y for p in pins] or [0.0]
    return min(xs), max(xs), min(ys), max(ys)


def build(design: seat_node.Design, library: Library | None = None) -> str:
    """The schematic's text."""
    lib = library or Library()
    root = _uuid("root")
    used = sorted({p.symbol for p in design.parts} | {"power:PWR_FLAG"})
    body: list[Node] = [
        "kicad_sch", ["version", "20250114"], ["generator", Quoted("tianhei_seat_node")],
        ["generator_version", Quoted("9.0")], ["uuid", root], ["paper", Quoted(PAGE[0])],
        ["title_block", ["title", Quoted("Tianhei seat node")], ["comment", "1", Quoted(
            "Generated by hardware/kicad/schematic.py from hardware/kicad/seat_node.py; do not edit")]],
        ["lib_symbols", *(lib.symbol(s) for s in used)],
    ]
    parts = sorted(design.parts, key=lambda p: (p.symbol != "MCU_Module:RaspberryPi_Pico", p.ref))
    x, y, row = 30.0 * 1, 40.0, 0.0
    for part in parts:
        pins = lib.pins(part.symbol)
        x0, x1, y0, y1 = _extent(pins)
        width, height = x1 - x0 + 60, y1 - y0 + 30
        if x + width > PAGE[1] - 20:
            x, y, row = 30.0, y + row, 0.0
        sx = _snap(x - x0 + 30)
        sy = _snap(y + y1 + 10)
        body.append(_instance(part, sx, sy, root, y1, y0))
        body.extend(_pin_marks(part, pins, sx, sy))
        x, row = x + width, max(row, height)
    # VSYS is fed only through the Schottky (passive): a power flag says the bus drives it (ERC).
    flag_x, flag_y = _snap(40.0), _snap(y + row + 20)
    body.append(_flag("#FLG01", "VSYS", flag_x, flag_y, root))
    body.append(_label("VSYS", flag_x, flag_y, 90))
    body += [["sheet_instances", ["path", Quoted("/"), ["page", Quoted("1")]]], ["embedded_fonts", "no"]]
    return sexpr.dump(body) + "\n"


def _snap(value: float) -> float:
    return round(value / GRID) * GRID


def _instance(part: seat_node.Part, sx: float, sy: float, root: Quoted, top: float, bottom: float) -> list[Node]:
    footprint = part.footprint or seat_node.footprint(part.part)
    node: list[Node] = [
        "symbol", ["lib_id", Quoted(part.symbol)], ["at", _num(sx), _num(sy), "0"], ["unit", "1"],
        ["exclude_from_sim", "no"], ["in_bom", "no" if part.part == "mounting-hole" else "yes"],
        ["on_board", "yes"], ["dnp", "no"], ["uuid", _uuid("symbol", part.ref)],
        _property("Reference", part.ref, sx, sy - top - 3.81),
        _property("Value", part.value, sx, sy - bottom + 3.81),
        _property("Footprint", footprint, sx, sy, hide=True),
        _property("Datasheet", "", sx, sy, hide=True),
        _property("Description", seat_node.part_name(part.part), sx, sy, hide=True),
        _property("Part", part.part, sx, sy, hide=True),
    ]
    node.append(["instances", ["project", Quoted(seat_node.NAME),
                               ["path", Quoted(f"/{root}"), ["reference", Quoted(part.ref)], ["unit", "1"]]]])
    return node


def _pin_marks(part: seat_node.Part, pins: list[Pin], sx: float, sy: float) -> list[list[Node]]:
    """A label on each connected pin's end, a no-connect flag on the others; every design pin must exist."""
    marks: list[list[Node]] = []
    by_key: dict[str, list[Pin]] = {}
    for pin in pins:
        by_key.setdefault(pin.number, []).append(pin)
        if pin.name != pin.number:
            by_key.setdefault(pin.name, []).append(pin)
    for key in part.pins:
        if key not in by_key:
            raise KeyError(f"{part.ref} ({part.symbol}) has no pin {key}")
    done: set[tuple[float, float]] = set()
    for pin in pins:
        net = part.pins.get(pin.number, part.pins.get(pin.name))
        px, py = sx + pin.x, sy - pin.y
        if (px, py) in done:
            continue   # stacked pins (the Pico's GND): one mark joins them all
        done.add((px, py))
        if net is None:
            marks.append(["no_connect", ["at", _num(px), _num(py)], ["uuid", _uuid("nc", part.ref, pin.number)]])
        else:
            marks.append(_label(net, px, py, (pin.angle + 180) % 360, part.ref, pin.number))
    return marks


def _label(net: str, x: float, y: float, angle: int, *key: str) -> list[Node]:
    justify = "left bottom" if angle in (0, 90) else "right bottom"
    return ["label", Quoted(net), ["at", _num(x), _num(y), str(angle)], _effects(justify),
            ["uuid", _uuid("label", net, x, y, *key)]]


def _flag(ref: str, net: str, x: float, y: float, root: Quoted) -> list[Node]:
    return ["symbol", ["lib_id", Quoted("power:PWR_FLAG")], ["at", _num(x), _num(y), "0"], ["unit", "1"],
            ["exclude_from_sim", "no"], ["in_bom", "yes"], ["on_board", "yes"], ["dnp", "no"],
            ["uuid", _uuid("flag", ref)],
            _property("Reference", ref, x, y + 2, hide=True), _property("Value", "PWR_FLAG", x, y - 4),
            _property("Footprint", "", x, y, hide=True), _property("Datasheet", "", x, y, hide=True),
            _property("Description", f"{net} is driven by the bus through the Schottky", x, y, hide=True),
            ["instances", ["project", Quoted(seat_node.NAME),
                           ["path", Quoted(f"/{root}"), ["reference", Quoted(ref)], ["unit", "1"]]]]]


def lib_tables(design: seat_node.Design) -> dict[str, str]:
    """The project's own symbol and footprint library tables: KiCad's libraries by its own path variables, so
    kicad-cli finds them on a machine where KiCad's GUI never ran (no tables in the user's home)."""
    symbols = sorted({p.symbol.split(":")[0] for p in design.parts} | {"power"})
    footprints = sorted({(p.footprint or seat_node.footprint(p.part)).split(":")[0] for p in design.parts} - {""})
    def table(kind: str, names: list[str], var: str, ext: str) -> str:
        rows = "".join(f'  (lib (name "{n}")(type "KiCad")(uri "${{{var}}}/{n}.{ext}")(options "")(descr ""))\n'
                       for n in names)
        return f"({kind}\n  (version 7)\n{rows})\n"
    return {"sym-lib-table": table("sym_lib_table", symbols, "KICAD9_SYMBOL_DIR", "kicad_sym"),
            "fp-lib-table": table("fp_lib_table", footprints, "KICAD9_FOOTPRINT_DIR", "pretty")}


def write(folder: Path | None = None) -> Path:
    folder = folder or seat_node.BOARD_DIR
    folder.mkdir(parents=True, exist_ok=True)
    design = seat_node.design()
    path = folder / f"{seat_node.NAME}.kicad_sch"
    path.write_text(build(design), encoding="utf-8")
    for name, text in lib_tables(design).items():
        (folder / name).write_text(text, encoding="utf-8")
    return path


if __name__ == "__main__":
    print(f"wrote {write()}")
