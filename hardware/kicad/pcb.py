"""Builds the seat board (hardware/kicad/seat-node/seat-node.kicad_pcb) with KiCad's pcbnew Python API.

Run with Debian's own Python (``/usr/bin/python3``, where KiCad's ``pcbnew`` module lives) by ``./dev hardware``:

    /usr/bin/python3 hardware/kicad/pcb.py NETLIST

NETLIST is the schematic's netlist (``kicad-cli sch export netlist``): every footprint, value and pad net comes
from it, every position from seat_node.py, and every track from router.py. DRC with schematic parity
(tests/hardware/test_seat_board_kicad.py) checks the result.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pcbnew

sys.path.insert(0, str(Path(__file__).resolve().parent))

import netlist
import router
import seat_node

FOOTPRINTS = Path("/usr/share/kicad/footprints")
PITCH = 0.254
WIDTHS = {"GND": 0.5, "+5V_BUS": 0.6, "VSYS": 0.6, "+3V3": 0.4}
SIGNAL = 0.25
PASSES = 8
ANTENNA_HALF = 20.0   # mm: half the side of the square kept free of the pour under the reader's antenna


def mm(x: float, y: float) -> pcbnew.VECTOR2I:
    return pcbnew.VECTOR2I(pcbnew.FromMM(x + seat_node.ORIGIN[0]), pcbnew.FromMM(y + seat_node.ORIGIN[1]))


def place(board: pcbnew.BOARD, nets: netlist.Netlist) -> None:
    design = seat_node.design()
    codes = {}
    for name in nets.nets:
        item = pcbnew.NETINFO_ITEM(board, name if name.startswith("unconnected") else f"/{name}")
        board.Add(item)
        codes[name] = item
    pad_net = {(node.ref, node.pin): name for name, nodes in nets.nets.items() for node in nodes}
    for ref, footprint in sorted(nets.footprints.items()):
        lib, name = footprint.split(":", 1)
        fp = pcbnew.FootprintLoad(str(FOOTPRINTS / f"{lib}.pretty"), name)
        if fp is None:
            raise SystemExit(f"pcb.py: {ref}'s footprint {footprint} is not in {FOOTPRINTS}")
        fp.SetFPID(pcbnew.LIB_ID(lib, name))
        fp.SetReference(ref)
        fp.SetValue(nets.values[ref])
        fp.SetPath(pcbnew.KIID_PATH(f"/{nets.stamps[ref]}"))
        x, y, rot = design.part(ref).at
        fp.SetPosition(mm(x, y))
        fp.SetOrientationDegrees(rot)
        board.Add(fp)
        for pad in fp.Pads():
            net = pad_net.get((ref, pad.GetNumber()))
            if net is not None:
                pad.SetNet(codes[net])


def outline(board: pcbnew.BOARD) -> None:
    rect = pcbnew.PCB_SHAPE(board)
    rect.SetShape(pcbnew.SHAPE_T_RECT)
    rect.SetStart(mm(0, 0))
    rect.SetEnd(mm(seat_node.WIDTH, seat_node.DEPTH))
    rect.SetLayer(pcbnew.Edge_Cuts)
    rect.SetWidth(pcbnew.FromMM(0.1))
    board.Add(rect)


def text(board: pcbnew.BOARD, words: str, x: float, y: float, size: float = 1.2,
         layer: int = pcbnew.F_SilkS) -> None:
    item = pcbnew.PCB_TEXT(board)
    item.SetText(words)
    item.SetPosition(mm(x, y))
    item.SetLayer(layer)
    item.SetTextSize(pcbnew.VECTOR2I(pcbnew.FromMM(size), pcbnew.FromMM(size)))
    item.SetTextThickness(pcbnew.FromMM(size * 0.15))
    board.Add(item)


def labels(board: pcbnew.BOARD) -> None:
    """What a club reads on the board: the seat's number (written in the box), the jumpers, the bus pairs."""
    for x, y, words in seat_node.SILKSCREEN:
        text(board, words, x, y)
    box = pcbnew.PCB_SHAPE(board)
    box.SetShape(pcbnew.SHAPE_T_RECT)
    x0, y0, x1, y1 = seat_node.SEAT_LABEL_BOX
    box.SetStart(mm(x0, y0))
    box.SetEnd(mm(x1, y1))
    box.SetLayer(pcbnew.F_SilkS)
    box.SetWidth(pcbnew.FromMM(0.2))
    board.Add(box)


def _shape(pad: pcbnew.PAD) -> router.Rect:
    box = pad.GetBoundingBox()
    ox, oy = seat_node.ORIGIN
    cx = pcbnew.ToMM(box.GetCenter().x) - ox
    cy = pcbnew.ToMM(box.GetCenter().y) - oy
    hw, hh = pcbnew.ToMM(box.GetWidth()) / 2, pcbnew.ToMM(box.GetHeight()) / 2
    try:
        shape = pad.GetShape(pcbnew.F_Cu)
    except TypeError:
        shape = pad.GetShape()
    return router.Rect(cx, cy, hw, hh, shape == pcbnew.PAD_SHAPE_CIRCLE and abs(hw - hh) < 1e-6)


def route(board: pcbnew.BOARD) -> list[str]:
    """Routes every net of two pads or more; the names of connections it could not make (empty: all made)."""
    pads = [p for fp in board.GetFootprints() for p in fp.Pads()]
    nets: dict[str, list[pcbnew.PAD]] = {}
    for pad in pads:
        if pad.GetNetCode() > 0:
            nets.setdefault(pad.GetNetname(), []).append(pad)
    routable = {n: ps for n, ps in nets.items() if len(ps) > 1 and not n.startswith("unconnected")}
    order = sorted(routable, key=lambda n: _spread(routable[n]))
    best: tuple[int, router.Grid | None, list[str]] = (10**9, None, [])
    for attempt in range(PASSES):
        grid, failed = _route_all(pads, routable, order)
        print(f"pcb.py: pass {attempt + 1}: {len(failed)} connection(s) left" + (f" ({', '.join(failed)})"
              if failed else ""), flush=True)
        if len(failed) < best[0]:
            best = (len(failed), grid, failed)
        if not failed:
            break
        stuck = list(dict.fromkeys(f.split(":")[0] for f in failed))
        order = stuck + [n for n in order if n not in stuck]
    chosen = best[1]
    assert chosen is not None
    for seg in chosen.segments:
        track = pcbnew.PCB_TRACK(board)
        track.SetStart(mm(seg.x0, seg.y0))
        track.SetEnd(mm(seg.x1, seg.y1))
        track.SetWidth(pcbnew.FromMM(seg.width))
        track.SetLayer(pcbnew.F_Cu if seg.layer == 0 else pcbnew.B_Cu)
        track.SetNetCode(seg.net)
        board.Add(track)
    for via in chosen.vias:
        item = pcbnew.PCB_VIA(board)
        item.SetPosition(mm(via.x, via.y))
        item.SetWidth(pcbnew.FromMM(chosen.rules.via_diameter))
        item.SetDrill(pcbnew.FromMM(chosen.rules.via_drill))
        item.SetNetCode(via.net)
        board.Add(item)
    return best[2]


def _spread(pads: list[pcbnew.PAD]) -> float:
    xs = [p.GetPosition().x for p in pads]
    ys = [p.GetPosition().y for p in pads]
    return pcbnew.ToMM(max(xs) - min(xs) + max(ys) - min(ys))


def _route_all(pads: list[pcbnew.PAD], nets: dict[str, list[pcbnew.PAD]],
               order: list[str]) -> tuple[router.Grid, list[str]]:
    grid = router.Grid(seat_node.WIDTH, seat_node.DEPTH, PITCH, widths=tuple(sorted({SIGNAL, *WIDTHS.values()})))
    ox, oy = seat_node.ORIGIN
    for pad in pads:
        if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH:
            c = pad.GetPosition()
            grid.add_hole(pcbnew.ToMM(c.x) - ox, pcbnew.ToMM(c.y) - oy, pcbnew.ToMM(pad.GetDrillSize().x) / 2)
            continue
        layers = (0, 1) if pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH else (0,)
        grid.add_pad(_shape(pad), layers, pad.GetNetCode())
    for fp in {id(p.GetParentFootprint()): p.GetParentFootprint() for p in pads}.values():
        for zone in fp.Zones():   # the Pico footprint's antenna keep-out: no tracks or vias there
            if zone.GetIsRuleArea() and zone.GetDoNotAllowTracks():
                box = zone.GetBoundingBox()
                grid.add_pad(router.Rect(pcbnew.ToMM(box.GetCenter().x) - ox, pcbnew.ToMM(box.GetCenter().y) - oy,
                                         pcbnew.ToMM(box.GetWidth()) / 2, pcbnew.ToMM(box.GetHeight()) / 2), (0, 1), -1)
    failed = []
    for name in order:
        group = nets[name]
        net = group[0].GetNetCode()
        width = WIDTHS.get(name.lstrip("/"), SIGNAL)
        layers_of = {id(p): ((0, 1) if p.GetAttribute() == pcbnew.PAD_ATTRIB_PTH else (0,)) for p in group}
        cells = {id(p): [(layer, i, j) for i, j in grid.cells_in(_shape(p)) for layer in layers_of[id(p)]]
                 for p in group}
        tree = list(cells[id(group[0])])
        left = group[1:]
        while left:
            centre = [(_shape(p).cx, _shape(p).cy) for p in group if p not in left]
            left.sort(key=lambda p: min((_shape(p).cx - x) ** 2 + (_shape(p).cy - y) ** 2 for x, y in centre))
            pad = left.pop(0)
            path = grid.route(net, width, tree, cells[id(pad)])
            if path is None:
                failed.append(f"{name}:{pad.GetParentFootprint().GetReference()}.{pad.GetNumber()}")
                continue
            grid.commit(net, width, path)
            tree += path + cells[id(pad)]
    return grid, failed


def _no_pour(board: pcbnew.BOARD, corners: list[tuple[float, float]]) -> None:
    """A rule area on the bottom layer where the GND pour stays out (tracks may still pass)."""
    keep = pcbnew.ZONE(board)
    keep.SetIsRuleArea(True)
    keep.SetDoNotAllowCopperPour(True)
    keep.SetDoNotAllowTracks(False)
    keep.SetDoNotAllowVias(False)
    keep.SetDoNotAllowPads(False)
    keep.SetDoNotAllowFootprints(False)
    keep.SetLayer(pcbnew.B_Cu)
    ring = keep.Outline()
    ring.NewOutline()
    for x, y in corners:
        ring.Append(int(x), int(y))
    board.Add(keep)


def ground_pour(board: pcbnew.BOARD) -> None:
    """GND poured over the whole bottom layer, round the routed tracks (a return path under the signals)."""
    gnd = board.FindNet("/GND")
    zone = pcbnew.ZONE(board)
    zone.SetLayer(pcbnew.B_Cu)
    zone.SetNet(gnd)
    inset = 0.5
    outline = zone.Outline()
    outline.NewOutline()
    for x, y in ((inset, inset), (seat_node.WIDTH - inset, inset), (seat_node.WIDTH - inset, seat_node.DEPTH - inset),
                 (inset, seat_node.DEPTH - inset)):
        outline.Append(mm(x, y).x, mm(x, y).y)
    zone.SetLocalClearance(pcbnew.FromMM(0.3))
    zone.SetMinThickness(pcbnew.FromMM(0.25))
    zone.SetPadConnection(pcbnew.ZONE_CONNECTION_FULL)   # solid: thermal spokes into small islands fail DRC
    zone.SetIslandRemovalMode(pcbnew.ISLAND_REMOVAL_MODE_ALWAYS)
    board.Add(zone)
    for fp in board.GetFootprints():   # no pour near the holes without copper (the filler leaves no room itself)
        for pad in fp.Pads():
            if pad.GetAttribute() == pcbnew.PAD_ATTRIB_NPTH:
                c, r = pad.GetPosition(), pad.GetDrillSize().x / 2 + pcbnew.FromMM(0.5)
                reach = r / math.cos(math.pi / 16)
                _no_pour(board, [(c.x + reach * math.cos(2 * math.pi * k / 16), c.y + reach * math.sin(2 * math.pi * k / 16))
                                 for k in range(16)])
    # No plane under the reader's antenna loop either: copper below a 13.56 MHz loop detunes it and shortens the
    # range. The loop's middle is ANTENNA_FROM_PINS from the reader socket's pin row, away from it.
    socket, (tx, ty) = seat_node.MODULE_SOCKETS["mfrc522-spi"]
    pins = [p.GetPosition() for p in board.FindFootprintByReference(socket).Pads()]
    reach = float(str(seat_node.parts_catalogue()["mfrc522-spi"]["antenna_from_pins_mm"]))
    cx = sum(p.x for p in pins) / len(pins) + pcbnew.FromMM(reach * tx)
    cy = sum(p.y for p in pins) / len(pins) + pcbnew.FromMM(reach * ty)
    half = pcbnew.FromMM(ANTENNA_HALF)
    _no_pour(board, [(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half), (cx - half, cy + half)])
    board.BuildConnectivity()
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())


def build(netlist_file: Path, out: Path) -> list[str]:
    pcbnew.KIID.SeedGenerator(36)   # the same ids every run: a regenerated board differs only where it changed
    board = pcbnew.NewBoard(str(out))
    board.GetDesignSettings().SetCopperLayerCount(2)
    # The board's lower-left corner as the drill/placement origin: what fabs expect of placement files.
    board.GetDesignSettings().SetAuxOrigin(mm(0, seat_node.DEPTH))
    place(board, netlist.read(netlist_file))
    outline(board)
    labels(board)
    failed = route(board)
    ground_pour(board)
    pcbnew.SaveBoard(str(out), board)
    out.with_suffix(".kicad_prl").unlink(missing_ok=True)   # the editor's view state, nobody's design
    return failed


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: /usr/bin/python3 hardware/kicad/pcb.py NETLIST")
    target = seat_node.BOARD_DIR / f"{seat_node.NAME}.kicad_pcb"
    left = build(Path(sys.argv[1]), target)
    print(f"wrote {target}" + (f"; {len(left)} connection(s) not routed" if left else ""))
