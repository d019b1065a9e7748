"""A grid router for two-layer boards: our own, so the seat board is routed by a script (no autorouter is packaged
for Debian's KiCad) and the same design always gives the same tracks. KiCad's DRC checks its work.

The board is a grid of cells (``pitch`` mm) on two layers. Every copper object (pad, track, via, and the board's
edge and holes) marks, for each track width in use, the cells where a track centre of that width would come too
close to it: with the object's net, or -1 where two nets or a hole claim the cell. A net's track may use cells that
are free or its own. Connections are found one at a time by A* (octile moves, a via costs ``VIA_COST`` cells),
from the net's tree so far to its next pad; the path becomes straight segments and vias.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

VIA_COST = 12.0
SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned copper rectangle (pads at right angles), or a circle when ``round``."""
    cx: float
    cy: float
    hw: float
    hh: float
    round: bool = False


@dataclass(frozen=True)
class Segment:
    x0: float
    y0: float
    x1: float
    y1: float
    width: float
    layer: int
    net: int


@dataclass(frozen=True)
class Via:
    x: float
    y: float
    net: int


@dataclass
class Rules:
    clearance: float = 0.2
    margin: float = 0.06        # for the corners a grid path cuts between two cell centres
    edge_clearance: float = 0.5
    via_diameter: float = 0.6
    via_drill: float = 0.3


@dataclass
class Grid:
    width: float
    height: float
    pitch: float
    rules: Rules = field(default_factory=Rules)
    widths: tuple[float, ...] = (0.25,)

    def __post_init__(self) -> None:
        self.nx = int(self.width / self.pitch) + 1
        self.ny = int(self.height / self.pitch) + 1
        self.classes = (*self.widths, self.rules.via_diameter)
        self.blocked = {k: np.zeros((2, self.ny, self.nx), dtype=np.int32) for k in self.classes}
        xs = np.arange(self.nx) * self.pitch
        ys = np.arange(self.ny) * self.pitch
        self.xs, self.ys = xs, ys
        for k in self.classes:
            reach = k / 2 + self.rules.edge_clearance
            near = (xs[None, :] < reach) | (xs[None, :] > self.width - reach) | \
                   (ys[:, None] < reach) | (ys[:, None] > self.height - reach)
            self.blocked[k][:, near] = -1
        self.segments: list[Segment] = []
        self.vias: list[Via] = []

    # ---- marking copper ------------------------------------------------------------------------------------
    def _mark(self, layers: tuple[int, ...], net: int, x0: float, y0: float, x1: float, y1: float,
              distance) -> None:
        for k in self.classes:
            reach = k / 2 + self.rules.clearance + self.rules.margin
            i0 = max(int((x0 - reach) / self.pitch), 0)
            i1 = min(int((x1 + reach) / self.pitch) + 2, self.nx)
            j0 = max(int((y0 - reach) / self.pitch), 0)
            j1 = min(int((y1 + reach) / self.pitch) + 2, self.ny)
            if i0 >= i1 or j0 >= j1:
                continue
            px = self.xs[None, i0:i1]
            py = self.ys[j0:j1, None]
            hit = distance(px, py) < reach
            for layer in layers:
                window = self.blocked[k][layer, j0:j1, i0:i1]
                if net <= 0:
                    window[hit] = -1
                else:
                    window[hit & (window == 0)] = net
                    window[hit & (window != net)] = -1

    def add_pad(self, shape: Rect, layers: tuple[int, ...], net: int) -> None:
        if shape.round:
            def distance(px, py):
                return np.hypot(px - shape.cx, py - shape.cy) - shape.hw
        else:
            def distance(px, py):
                dx = np.maximum(np.abs(px - shape.cx) - shape.hw, 0)
                dy = np.maximum(np.abs(py - shape.cy) - shape.hh, 0)
                return np.hypot(dx, dy)
        self._mark(layers, net, shape.cx - shape.hw, shape.cy - shape.hh, shape.cx + shape.hw, shape.cy + shape.hh,
                   distance)

    def add_hole(self, x: float, y: float, radius: float) -> None:
        """A hole without copper: no track of any net near it, on either layer."""
        self.add_pad(Rect(x, y, radius, radius, True), (0, 1), -1)

    def add_segment(self, seg: Segment) -> None:
        self.segments.append(seg)
        dx, dy = seg.x1 - seg.x0, seg.y1 - seg.y0
        length2 = dx * dx + dy * dy or 1e-12

        def distance(px, py):
            t = np.clip(((px - seg.x0) * dx + (py - seg.y0) * dy) / length2, 0, 1)
            return np.hypot(px - (seg.x0 + t * dx), py - (seg.y0 + t * dy)) - seg.width / 2
        self._mark((seg.layer,), seg.net, min(seg.x0, seg.x1) - seg.width, min(seg.y0, seg.y1) - seg.width,
                   max(seg.x0, seg.x1) + seg.width, max(seg.y0, seg.y1) + seg.width, distance)

    def add_via(self, via: Via) -> None:
        self.vias.append(via)
        r = self.rules.via_diameter / 2
        self.add_pad(Rect(via.x, via.y, r, r, True), (0, 1), via.net)

    # ---- routing -------------------------------------------------------------------------------------------
    def cell(self, x: float, y: float) -> tuple[int, int]:
        return min(max(round(x / self.pitch), 0), self.nx - 1), min(max(round(y / self.pitch), 0), self.ny - 1)

    def cells_in(self, shape: Rect) -> list[tuple[int, int]]:
        """Grid cells whose centres lie inside a pad (at least the one nearest its centre)."""
        i0, j0 = self.cell(shape.cx - shape.hw, shape.cy - shape.hh)
        i1, j1 = self.cell(shape.cx + shape.hw, shape.cy + shape.hh)
        inside = []
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                x, y = i * self.pitch, j * self.pitch
                if shape.round:
                    ok = math.hypot(x - shape.cx, y - shape.cy) <= shape.hw - 0.05
                else:
                    ok = abs(x - shape.cx) <= shape.hw - 0.05 and abs(y - shape.cy) <= shape.hh - 0.05
                if ok:
                    inside.append((i, j))
        return inside or [self.cell(shape.cx, shape.cy)]

    def route(self, net: int, width: float, sources: list[tuple[int, int, int]],
              targets: list[tuple[int, int, int]], max_visits: int = 400_000) -> list[tuple[int, int, int]] | None:
        """A path of (layer, i, j) cells from any source to any target, or None."""
        nx, ny = self.nx, self.ny
        free = [((self.blocked[width][layer] == 0) | (self.blocked[width][layer] == net)).ravel().tolist()
                for layer in (0, 1)]
        via_ok = ((self.blocked[self.rules.via_diameter][0] == 0) | (self.blocked[self.rules.via_diameter][0] == net)) \
            & ((self.blocked[self.rules.via_diameter][1] == 0) | (self.blocked[self.rules.via_diameter][1] == net))
        via_free = via_ok.ravel().tolist()
        goal = {(layer, i, j) for layer, i, j in targets}
        tx = sum(i for _, i, _ in targets) / len(targets)
        ty = sum(j for _, _, j in targets) / len(targets)

        def h(i: int, j: int) -> float:
            dx, dy = abs(i - tx), abs(j - ty)
            return (dx + dy) + (SQRT2 - 2) * min(dx, dy)

        best: dict[tuple[int, int, int], float] = {}
        came: dict[tuple[int, int, int], tuple[int, int, int] | None] = {}
        heap: list[tuple[float, float, tuple[int, int, int]]] = []
        for s in sources:
            best[s] = 0.0
            came[s] = None
            heapq.heappush(heap, (h(s[1], s[2]), 0.0, s))
        steps = ((1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0),
                 (1, 1, SQRT2), (1, -1, SQRT2), (-1, 1, SQRT2), (-1, -1, SQRT2))
        visits = 0
        while heap:
            _, g, node = heapq.heappop(heap)
            if g > best.get(node, math.inf):
                continue
            if node in goal:
                path = [node]
                while came[path[-1]] is not None:
                    path.append(came[path[-1]])  # type: ignore[arg-type]
                return path[::-1]
            visits += 1
            if visits > max_visits:
                return None
            layer, i, j = node
            grid = free[layer]
            for di, dj, cost in steps:
                ni, nj = i + di, j + dj
                if not (0 <= ni < nx and 0 <= nj < ny) or not grid[nj * nx + ni]:
                    continue
                if di and dj and not (grid[j * nx + ni] or grid[nj * nx + i]):
                    continue
                nxt = (layer, ni, nj)
                ng = g + cost + (0.2 if layer == 1 else 0.0)
                if ng < best.get(nxt, math.inf):
                    best[nxt] = ng
                    came[nxt] = node
                    heapq.heappush(heap, (ng + h(ni, nj), ng, nxt))
            if via_free[j * nx + i]:
                nxt = (1 - layer, i, j)
                if free[1 - layer][j * nx + i]:
                    ng = g + VIA_COST
                    if ng < best.get(nxt, math.inf):
                        best[nxt] = ng
                        came[nxt] = node
                        heapq.heappush(heap, (ng + h(i, j), ng, nxt))
        return None

    def commit(self, net: int, width: float, path: list[tuple[int, int, int]]) -> None:
        """The path as straight segments (collinear steps merged) and vias, marked on the grid."""
        p = self.pitch
        run = [path[0]]
        for node in path[1:]:
            if node[0] != run[-1][0]:
                self._flush(net, width, run)
                self.add_via(Via(node[1] * p, node[2] * p, net))
                run = [node]
                continue
            if len(run) >= 2:
                d0 = (run[-1][1] - run[-2][1], run[-1][2] - run[-2][2])
                d1 = (node[1] - run[-1][1], node[2] - run[-1][2])
                if d0 != d1:
                    self._flush(net, width, run)
                    run = [run[-1]]
            run.append(node)
        self._flush(net, width, run)

    def _flush(self, net: int, width: float, run: list[tuple[int, int, int]]) -> None:
        if len(run) < 2:
            return
        p = self.pitch
        a, b = run[0], run[-1]
        self.add_segment(Segment(a[1] * p, a[2] * p, b[1] * p, b[2] * p, width, a[0], net))
