"""The seat's box, parametric: a base and a lid around the seat board, every position read from the KiCad board
file (hardware/kicad/seat-node/seat-node.kicad_pcb), every part's height from hardware/parts.toml.

:func:`plan` works out the box as numbers (stdlib only): the cavity, the screw bosses on the board's holes, the
cable slots at the RJ45 jacks, the OLED window over the display's active area, the button holes, the LED window
and the card rest over the reader's antenna. :func:`solids` turns the plan into build123d solids (the ``hardware``
extra) and :func:`build` writes them as STL and STEP. tests/hardware/test_seat_box.py is the fit test.

Printing: the base floor-down, the lid top-up, the button plungers flange-down; every wall is vertical and every
opening in a wall a slot open at the top, so nothing overhangs (the lid closes the slots).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import seat_node
import sexpr

PCB = seat_node.BOARD_DIR / f"{seat_node.NAME}.kicad_pcb"
WALL, FLOOR, GAP, STANDOFF, BOARD, LID, HEADROOM = 2.0, 2.0, 1.0, 5.0, 1.6, 2.0, 1.5
BOSS_D, SCREW_D, TOWER, LID_SCREW_D = 7.0, 2.5, 7.0, 3.2
BUTTON_HOLE, PLUNGER, FLANGE, LED_WINDOW = 10.6, 10.0, 13.0, 5.4
MALE_HEADER = 2.5      # the plastic of the pin header soldered on a module, between it and our socket
CARD = (85.6, 54.0)    # ISO/IEC 7810 ID-1, the NTAG213 cards' size
RIM, RIM_HIGH, WINDOW_MARGIN = 1.2, 0.8, 1.0

Rect = tuple[float, float, float, float]   # x0, y0, x1, y1 in board millimetres (y toward the player)


@dataclass(frozen=True)
class Footprint:
    ref: str
    x: float
    y: float
    angle: float
    courtyard: Rect
    pads: dict[str, tuple[float, float]]


def _world(fp_x: float, fp_y: float, angle: float, lx: float, ly: float) -> tuple[float, float]:
    a = math.radians(angle)
    return fp_x + lx * math.cos(a) + ly * math.sin(a), fp_y - lx * math.sin(a) + ly * math.cos(a)


def read_board(path: Path = PCB) -> tuple[Rect, dict[str, Footprint]]:
    """The board's outline (Edge.Cuts rectangle) and its footprints, in the board's own coordinates (the outline's
    top-left corner at 0, 0)."""
    tree = sexpr.parse(path.read_text(encoding="utf-8"))
    edges = [g for g in sexpr.find(tree, "gr_rect") if str(sexpr.first(g, "layer")[1]) == "Edge.Cuts"]
    if len(edges) != 1:
        raise ValueError(f"{path.name}: the box needs one Edge.Cuts rectangle, found {len(edges)}")
    start, end = sexpr.first(edges[0], "start"), sexpr.first(edges[0], "end")
    sx, sy, ex, ey = float(str(start[1])), float(str(start[2])), float(str(end[1])), float(str(end[2]))
    ox, oy = min(sx, ex), min(sy, ey)
    footprints = {}
    for fp in sexpr.find(tree, "footprint"):
        at = sexpr.first(fp, "at")
        x, y = float(str(at[1])) - ox, float(str(at[2])) - oy
        angle = float(str(at[3])) if len(at) > 3 else 0.0
        ref = next(str(p[2]) for p in sexpr.find(fp, "property") if p[1] == "Reference")
        points = []
        for kind in ("fp_line", "fp_rect"):
            for item in sexpr.find(fp, kind):
                if str(sexpr.first(item, "layer")[1]) == "F.CrtYd":
                    for key in ("start", "end"):
                        p = sexpr.first(item, key)
                        lx, ly = float(str(p[1])), float(str(p[2]))
                        points.append(_world(x, y, angle, lx, ly))
                        if kind == "fp_rect":   # the other two corners
                            other = sexpr.first(item, "end" if key == "start" else "start")
                            points.append(_world(x, y, angle, lx, float(str(other[2]))))
        for item in sexpr.find(fp, "fp_poly"):
            if str(sexpr.first(item, "layer")[1]) == "F.CrtYd":
                for xy in sexpr.find(sexpr.first(item, "pts"), "xy"):
                    points.append(_world(x, y, angle, float(str(xy[1])), float(str(xy[2]))))
        for item in sexpr.find(fp, "fp_circle"):
            if str(sexpr.first(item, "layer")[1]) == "F.CrtYd":
                c, e = sexpr.first(item, "center"), sexpr.first(item, "end")
                r = math.dist((float(str(c[1])), float(str(c[2]))), (float(str(e[1])), float(str(e[2]))))
                cx, cy = _world(x, y, angle, float(str(c[1])), float(str(c[2])))
                points += [(cx - r, cy - r), (cx + r, cy + r)]
        pads: dict[str, tuple[float, float]] = {}
        for pad in sexpr.find(fp, "pad"):
            pat = sexpr.first(pad, "at")
            pads.setdefault(str(pad[1]), _world(x, y, angle, float(str(pat[1])), float(str(pat[2]))))
        if not points:
            points = [(x, y)]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        footprints[ref] = Footprint(ref, x, y, angle, (min(xs), min(ys), max(xs), max(ys)), pads)
    return (0.0, 0.0, abs(ex - sx), abs(ey - sy)), footprints


@dataclass(frozen=True)
class Module:
    """A module plugged into a socket: its outline, how high its underside and top are above the board."""
    part: str
    outline: Rect
    underside: float            # on the socket, lifted by its own pin header's plastic
    top: float
    pins: tuple[float, float]
    toward: tuple[float, float]

    @property
    def pcb_top(self) -> float:
        """The module board's top side: where the RC522's antenna loop is."""
        return self.underside + BOARD

    def at(self, distance: float) -> tuple[float, float]:
        return self.pins[0] + self.toward[0] * distance, self.pins[1] + self.toward[1] * distance


@dataclass
class Plan:
    board: Rect
    cavity: Rect
    board_top: float            # z of the board's top side (the base's floor underside at 0)
    lid_under: float            # z of the lid's underside (the walls' top)
    parts: dict[str, tuple[Rect, float]]   # ref -> courtyard and top z
    modules: dict[str, Module]
    bosses: list[tuple[float, float]]
    towers: list[tuple[float, float]]
    slots: dict[str, tuple[str, float, float, float]]   # ref -> wall ("back"/"left"), from, to (along it), bottom z
    buttons: list[tuple[float, float]]
    led: tuple[float, float]
    oled_window: Rect
    active_area: Rect
    card_rest: Rect
    antenna: tuple[float, float]
    notes: list[str] = field(default_factory=list)

    @property
    def lid_top(self) -> float:
        return self.lid_under + LID


def _centre(r: Rect) -> tuple[float, float]:
    return (r[0] + r[2]) / 2, (r[1] + r[3]) / 2


def _rect_along(centre: tuple[float, float], toward: tuple[float, float], across: float, along: float,
                start: float = 0.0) -> Rect:
    """A rectangle ``across`` wide on the pin row, from ``start`` to ``start + along`` in the ``toward`` direction."""
    cx, cy = centre
    tx, ty = toward
    a0, a1 = start, start + along
    xs = [cx + tx * a - ty * s for a in (a0, a1) for s in (-across / 2, across / 2)]
    ys = [cy + ty * a + tx * s for a in (a0, a1) for s in (-across / 2, across / 2)]
    return min(xs), min(ys), max(xs), max(ys)


def plan(path: Path = PCB) -> Plan:
    board, fps = read_board(path)
    catalogue = seat_node.parts_catalogue()
    design = {p.ref: p.part for p in seat_node.design().parts}
    board_top = FLOOR + STANDOFF + BOARD
    parts = {}
    for ref, fp in fps.items():
        if ref not in design:
            raise ValueError(f"{path.name}: {ref} is not in the seat board's design (seat_node.py)")
        parts[ref] = (fp.courtyard, board_top + float(str(catalogue[design[ref]]["height_mm"])))
    modules = {}
    for part, (socket, toward) in seat_node.MODULE_SOCKETS.items():
        entry = catalogue[part]
        pins = list(fps[socket].pads.values())
        centre = (sum(p[0] for p in pins) / len(pins), sum(p[1] for p in pins) / len(pins))
        across, along = (float(str(v)) for v in entry["module_mm"])  # type: ignore[attr-defined]
        top = board_top + float(str(entry["height_mm"]))
        socket_top = board_top + float(str(catalogue[design[socket]]["height_mm"]))
        modules[part] = Module(part, _rect_along(centre, toward, across, along, -2.0), socket_top + MALE_HEADER,
                               top, centre, toward)
    tallest = max(top for _, top in parts.values()) if parts else board_top
    tallest = max(tallest, *(m.top for m in modules.values()))
    cavity = (board[0] - GAP, board[1] - GAP, board[2] + GAP, board[3] + GAP)
    lid_under = tallest + HEADROOM
    bosses = [(fps[r].x, fps[r].y) for r in sorted(fps) if design[r] == "mounting-hole"]
    outer = (cavity[0] - WALL, cavity[1] - WALL, cavity[2] + WALL, cavity[3] + WALL)
    towers = [(x, y) for x in (outer[0] - TOWER / 2, outer[2] + TOWER / 2) for y in (outer[1] + TOWER / 2,
                                                                                   outer[3] - TOWER / 2)]
    slots = {}
    for ref, part in design.items():
        if part == "rj45":
            c = fps[ref].courtyard
            slots[ref] = ("back", c[0] - 0.5, c[2] + 0.5, board_top - 0.5)
    pico = fps["A1"].courtyard
    slots["USB"] = ("left", pico[1] + 5.0, pico[3] - 5.0, board_top)
    buttons = [_centre(fps[r].courtyard) for r in sorted(fps) if design[r] == "button"]
    oled = modules["ssd1306"]
    active_w, active_h = (float(str(v)) for v in catalogue["ssd1306"]["active_mm"])  # type: ignore[attr-defined]
    active_mid = oled.at(float(str(catalogue["ssd1306"]["active_from_pins_mm"])))
    active = _rect_along(active_mid, oled.toward, active_w, active_h, -active_h / 2)
    window = (active[0] - WINDOW_MARGIN, active[1] - WINDOW_MARGIN, active[2] + WINDOW_MARGIN,
              active[3] + WINDOW_MARGIN)
    reader = modules["mfrc522-spi"]
    antenna = reader.at(float(str(catalogue["mfrc522-spi"]["antenna_from_pins_mm"])))
    # The card lies over the reader's antenna, its long side toward the player.
    half_w, half_l = CARD[1] / 2 + 0.5, CARD[0] / 2 + 0.5
    card = (antenna[0] - half_w, antenna[1] - half_l, antenna[0] + half_w, antenna[1] + half_l)
    return Plan(board, cavity, board_top, lid_under, parts, modules, bosses, towers, slots, buttons,
                _centre(fps["D3"].courtyard), window, active, card, antenna)


def card_distance(p: Plan) -> float:
    """From the reader's antenna loop (on its module's board) to a card lying on the lid."""
    return p.lid_top - p.modules["mfrc522-spi"].pcb_top


# ---- solids (build123d, the `hardware` extra) ------------------------------------------------------------------
def solids(p: Plan) -> dict[str, object]:
    from build123d import Align, Box, Cylinder, Pos

    low = (Align.MIN, Align.MIN, Align.MIN)

    def block(r: Rect, z0: float, z1: float) -> Any:
        # build123d's y runs away from the player: board y is mirrored so the model is not a mirror image
        return Pos(r[0], -r[3], z0) * Box(r[2] - r[0], r[3] - r[1], z1 - z0, align=low)

    def post(x: float, y: float, d: float, z0: float, z1: float) -> Any:
        return Pos(x, -y, z0) * Cylinder(d / 2, z1 - z0, align=(Align.CENTER, Align.CENTER, Align.MIN))

    c = p.cavity
    outer = (c[0] - WALL, c[1] - WALL, c[2] + WALL, c[3] + WALL)
    base = block(outer, 0, p.lid_under) - block(c, FLOOR, p.lid_under + 1)
    for x, y in p.towers:
        base += block((x - TOWER / 2, y - TOWER / 2, x + TOWER / 2, y + TOWER / 2), 0, p.lid_under)
        base -= post(x, y, SCREW_D, p.lid_under - 10, p.lid_under + 1)
    for x, y in p.bosses:
        base += post(x, y, BOSS_D, FLOOR, p.board_top - BOARD)
        base -= post(x, y, SCREW_D, FLOOR + 1.0, p.board_top)
    for wall, a0, a1, z0 in p.slots.values():
        if wall == "back":
            base -= block((a0, outer[1] - 1, a1, c[1] + 1), z0, p.lid_under + 1)
        else:
            base -= block((outer[0] - 1, a0, c[0] + 1, a1), z0, p.lid_under + 1)
    span = (outer[0] - TOWER, outer[1], outer[2] + TOWER, outer[3])
    lid = block(span, p.lid_under, p.lid_top)
    r = p.card_rest
    lid += block((r[0] - RIM, r[1] - RIM, r[2] + RIM, r[3] + RIM), p.lid_top, p.lid_top + RIM_HIGH) \
        - block(r, p.lid_top - 0.01, p.lid_top + RIM_HIGH + 1)
    for x, y in p.buttons:
        lid -= post(x, y, BUTTON_HOLE, p.lid_under - 1, p.lid_top + 1)
    lid -= post(*p.led, LED_WINDOW, p.lid_under - 1, p.lid_top + 1)
    lid -= block(p.oled_window, p.lid_under - 1, p.lid_top + 1)
    for x, y in p.towers:
        lid -= post(x, y, LID_SCREW_D, p.lid_under - 1, p.lid_top + 1)
    button_top = min(top for ref, (_, top) in p.parts.items() if ref.startswith("SW"))
    plunger = post(0, 0, FLANGE, 0, 1.5) + post(0, 0, PLUNGER, 0, p.lid_top + 1.5 - button_top)
    return {"base": base, "lid": lid, "plunger": plunger}


def build(out: Path) -> str:
    """STL and STEP of the base, the lid and a button plunger (print three) into ``out``."""
    from build123d import export_step, export_stl

    made = solids(plan())
    for name, shape in made.items():
        export_stl(shape, str(out / f"seat-box-{name}.stl"))  # type: ignore[arg-type]
        export_step(shape, str(out / f"seat-box-{name}.step"))  # type: ignore[arg-type]
    picture(made, out / "seat-box.png")
    fit_drawing(plan(), out / "seat-box-fit.png")
    return f"box: seat-box-{{{','.join(made)}}}.stl and .step, seat-box.png, seat-box-fit.png in {out}"


def triangles(shape: object, tolerance: float = 0.05) -> list[tuple[tuple[float, float, float], ...]]:
    """The shape's surface as triangles (vertex triples), as its STL has them."""
    vertices, faces = shape.tessellate(tolerance)  # type: ignore[attr-defined]
    points = [(v.X, v.Y, v.Z) for v in vertices]
    return [(points[a], points[b], points[c]) for a, b, c in faces]


def overhangs(tris: list[tuple[tuple[float, float, float], ...]], limit_deg: float = 45.0,
              bed: float = 0.0) -> list[tuple[float, float, float]]:
    """Centres of the triangles that face down more steeply than ``limit_deg`` from the vertical and are not on
    the bed: what a printer would have to print on air."""
    bad = []
    cos_limit = math.cos(math.radians(90 - limit_deg))
    for a, b, c in tris:
        u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
        v = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
        n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        length = math.sqrt(n[0] ** 2 + n[1] ** 2 + n[2] ** 2)
        if length < 1e-12:
            continue
        if n[2] / length < -cos_limit and min(a[2], b[2], c[2]) > bed + 1e-3:
            bad.append(((a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3, (a[2] + b[2] + c[2]) / 3))
    return bad


def _split(tris: list[tuple[tuple[float, float, float], ...]],
           longest: float) -> list[tuple[tuple[float, float, float], ...]]:
    """Triangles halved across their longest edge until no edge is longer than ``longest``."""
    out, todo = [], list(tris)
    while todo:
        tri = todo.pop()
        edges = [(math.dist(tri[i], tri[(i + 1) % 3]), i) for i in range(3)]
        length, i = max(edges)
        if length <= longest:
            out.append(tri)
            continue
        a, b, c = tri[i], tri[(i + 1) % 3], tri[(i + 2) % 3]
        mid = tuple((p + q) / 2 for p, q in zip(a, b, strict=True))
        todo += [(a, mid, c), (mid, b, c)]  # type: ignore[list-item]
    return out


def picture(made: dict[str, object], path: Path) -> Path:
    """A shaded picture of the base with the lid lifted above it (matplotlib, no screen)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    fig = plt.figure(figsize=(10, 7), dpi=110)
    ax = fig.add_subplot(projection="3d")
    light = (-0.4, -0.5, 0.77)
    for name, lift, colour in (("base", 0.0, (0.29, 0.44, 0.65)), ("lid", 25.0, (0.85, 0.51, 0.17))):
        # small triangles, so matplotlib's back-to-front sorting draws the faces in the right order
        tris = [[(x, y, z + lift) for x, y, z in t] for t in _split(triangles(made[name], 0.2), 6.0)]
        shades = []
        for a, b, c in tris:
            u = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
            v = (c[0] - a[0], c[1] - a[1], c[2] - a[2])
            n = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
            size = math.sqrt(sum(k * k for k in n)) or 1.0
            lit = 0.45 + 0.55 * max(0.0, sum(k * m for k, m in zip(n, light, strict=True)) / size)
            shades.append(tuple(min(1.0, ch * lit) for ch in colour))
        ax.add_collection3d(Poly3DCollection(tris, facecolors=shades, edgecolors="none"))
    ax.set_xlim(-10, 145)
    ax.set_ylim(-110, 10)
    ax.set_zlim(0, 60)
    ax.set_box_aspect((155, 120, 60))
    ax.view_init(elev=32, azim=-60)
    ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def fit_drawing(p: Plan, path: Path) -> Path:
    """The fit seen from above: the board's parts and modules, the lid's openings and the card rest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    def rect(r: Rect, **style: object) -> Rectangle:
        return Rectangle((r[0], r[1]), r[2] - r[0], r[3] - r[1], **style)  # type: ignore[arg-type]

    fig, ax = plt.subplots(figsize=(10, 7.6), dpi=110)
    c = p.cavity
    ax.add_patch(rect((c[0] - WALL, c[1] - WALL, c[2] + WALL, c[3] + WALL), facecolor="#dde3ea", edgecolor="black"))
    ax.add_patch(rect(c, facecolor="white", edgecolor="grey"))
    ax.add_patch(rect(p.board, facecolor="#cfe3cf", edgecolor="darkgreen"))
    for ref, (court, top) in sorted(p.parts.items()):
        ax.add_patch(rect(court, fill=False, edgecolor="darkgreen", linewidth=0.6))
        ax.text((court[0] + court[2]) / 2, (court[1] + court[3]) / 2, f"{ref}\n{top - p.board_top:.1f}",
                fontsize=6, ha="center", va="center", color="darkgreen")
    for module in p.modules.values():
        ax.add_patch(rect(module.outline, fill=False, edgecolor="purple", linestyle="--"))
    for wall, a0, a1, _ in p.slots.values():
        slot = (a0, c[1] - WALL, a1, c[1]) if wall == "back" else (c[0] - WALL, a0, c[0], a1)
        ax.add_patch(rect(slot, facecolor="black"))
    ax.add_patch(rect(p.oled_window, fill=False, edgecolor="orangered", linewidth=1.5))
    ax.add_patch(rect(p.active_area, facecolor="orangered", alpha=0.25))
    ax.add_patch(rect(p.card_rest, fill=False, edgecolor="royalblue", linewidth=1.5))
    ax.add_patch(Circle(p.antenna, 1.5, color="royalblue"))
    for x, y in p.buttons:
        ax.add_patch(Circle((x, y), BUTTON_HOLE / 2, fill=False, edgecolor="orangered", linewidth=1.5))
    ax.add_patch(Circle(p.led, LED_WINDOW / 2, fill=False, edgecolor="orangered", linewidth=1.5))
    for x, y in p.bosses:
        ax.add_patch(Circle((x, y), BOSS_D / 2, facecolor="#888888"))
    ax.set_xlim(c[0] - 10, c[2] + 10)
    ax.set_ylim(c[3] + 10, c[1] - 10)
    ax.set_aspect("equal")
    ax.set_title("Seat box from above (mm; y toward the player): parts with their heights, modules dashed, "
                 "lid openings red, card rest blue", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
