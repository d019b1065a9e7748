"""The bus's 5 V along the daisy chain: each node's current (its parts' datasheet figures in hardware/parts.toml)
through the cable's resistance, solved for every node's voltage, with 5 V fed in at chosen points.

Positions: node 1 is next to the Pi's end of the bus, node N the far end. A feed "at gap g" is a 5 V supply joined
to the cable between node g and node g+1 (gap 0: at the Pi's end, before node 1) -- a passive PoE injector there
(docs/hardware.md, "Power"). The model is a resistor ladder: every gap's cable segment is ``segment_ohm`` there
and back (5 V and GND conductors), every node a constant current (the most it draws: the Pico's buck-boost would
draw less from a lower voltage, so this errs on the safe side).
"""

from __future__ import annotations

from dataclasses import dataclass

import seat_node

SUPPLY_V = 5.0
MIN_V = 4.5
# Where a club feeds 5 V into a 17-node bus (docs/hardware.md): at the Pi's end, between nodes 6 and 7, and
# between nodes 12 and 13 -- no segment carries more than five nodes' current.
FEEDS_17 = (0, 6, 12)


@dataclass(frozen=True)
class Cable:
    segment_ohm: float      # one segment, 5 V conductors and GND conductors together (there and back)
    max_rail_a: float       # what one segment's 5 V conductors may carry together

    @classmethod
    def from_parts(cls, parts: dict[str, dict[str, object]] | None = None) -> Cable:
        cable = (parts or seat_node.parts_catalogue())["bus-cable"]
        n = float(cable["conductors_per_rail"])  # type: ignore[arg-type]
        one_way = (float(cable["length_m"]) * float(cable["conductor_ohm_per_m"])  # type: ignore[arg-type]
                   + 2 * float(cable["contact_ohm"])) / n  # type: ignore[arg-type]
        return cls(2 * one_way, n * float(cable["conductor_max_a"]))  # type: ignore[arg-type]


def node_current_a(parts: dict[str, dict[str, object]] | None = None) -> float:
    """One seat node's current from the bus: every part on the board and the modules on its sockets."""
    catalogue = parts or seat_node.parts_catalogue()
    keys = [p.part for p in seat_node.design().parts] + list(seat_node.MODULES)
    return sum(float(str(catalogue[k].get("current_ma", 0))) for k in keys) / 1000


@dataclass(frozen=True)
class Result:
    volts: list[float]          # node 1..N
    segment_amps: list[float]   # gap 0..N-1: the current in the segment on the far side of each gap's left node

    @property
    def lowest(self) -> float:
        return min(self.volts)

    @property
    def busiest(self) -> float:
        return max(abs(a) for a in self.segment_amps)


def solve(nodes: int, current_a: float, cable: Cable, feeds: tuple[int, ...]) -> Result:
    """Node voltages with 5 V fed at ``feeds`` (gaps 0..nodes-1), by nodal analysis of the ladder."""
    if not feeds or any(not 0 <= g < nodes for g in feeds):
        raise ValueError(f"feeds must be gaps 0..{nodes - 1}, not {feeds}")
    # Unknowns: the node voltages. A feed sits in the middle of its gap's segment, half a segment from either node.
    g = 1 / cable.segment_ohm
    size = nodes
    a = [[0.0] * size for _ in range(size)]
    b = [-current_a] * size
    for i in range(nodes):          # node i+1 joins to node i (gap i) and node i+2 (gap i+1)
        for gap, other in ((i, i - 1), (i + 1, i + 1)):
            if gap >= nodes:
                continue            # past the last node: no cable
            if gap in feeds:        # half a segment to the supply point at 5 V
                a[i][i] += 2 * g
                b[i] += 2 * g * SUPPLY_V
            elif 0 <= other < nodes:
                a[i][i] += g
                a[i][other] -= g
    volts = _gauss(a, b)
    amps = []
    for gap in range(nodes):
        left = volts[gap - 1] if gap > 0 else None
        right = volts[gap]
        if gap in feeds:
            amps.append(max((SUPPLY_V - right) * 2 * g, (SUPPLY_V - left) * 2 * g if left is not None else 0.0))
        else:
            amps.append(((left if left is not None else right) - right) * g)
    return Result(volts, amps)


def _gauss(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            raise ValueError("the ladder has a node no feed reaches")
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def report(nodes: int = 17, feeds: tuple[int, ...] = FEEDS_17) -> str:
    cable, amps = Cable.from_parts(), node_current_a()
    result = solve(nodes, amps, cable, feeds)
    return (f"{nodes} nodes at {amps * 1000:.0f} mA each, {cable.segment_ohm * 1000:.0f} mohm a segment, 5 V fed at "
            f"gaps {', '.join(map(str, feeds))}: lowest node {result.lowest:.2f} V, busiest segment "
            f"{result.busiest:.2f} A (the cable's 5 V conductors carry {cable.max_rail_a:.2f} A)")


if __name__ == "__main__":
    print(report(17, (0,)))
    print(report())
