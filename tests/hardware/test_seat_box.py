"""The seat's box fits its board: the parts (heights from hardware/parts.toml, places from the KiCad board file)
touch no wall and not the lid, the modules clear what is under them, the display's active area shows whole through
its window, a card on the rest is within the reader's range, the cables reach their jacks, and nothing printed
overhangs more than 45 degrees."""

from __future__ import annotations

import re
from pathlib import Path

import box
import pytest
import seat_node

PLAN = box.plan()


def inside(inner: box.Rect, outer: box.Rect) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def overlap(a: box.Rect, b: box.Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("ref", sorted(PLAN.parts))
def test_a_part_touches_no_wall_and_not_the_lid(ref: str) -> None:
    courtyard, top = PLAN.parts[ref]
    assert inside(courtyard, PLAN.cavity), f"{ref} reaches into a wall: {courtyard} vs {PLAN.cavity}"
    assert top < PLAN.lid_under, f"{ref}'s top {top:.1f} mm is at or above the lid's underside {PLAN.lid_under:.1f}"


@pytest.mark.parametrize("part", sorted(seat_node.MODULE_SOCKETS))
def test_a_module_fits_and_clears_the_parts_under_it(part: str) -> None:
    module = PLAN.modules[part]
    socket = seat_node.MODULE_SOCKETS[part][0]
    assert inside(module.outline, PLAN.cavity) and module.top < PLAN.lid_under
    under = {ref: top for ref, (court, top) in PLAN.parts.items() if ref != socket and overlap(court, module.outline)}
    assert all(top < module.underside for top in under.values()), f"{part} sits on {under}"


def test_the_displays_active_area_shows_whole_through_its_window() -> None:
    assert inside(PLAN.active_area, PLAN.oled_window)
    assert inside(PLAN.oled_window, PLAN.cavity)


def test_a_card_on_the_rest_is_within_the_readers_range() -> None:
    reader = seat_node.parts_catalogue()["mfrc522-spi"]
    limit, datasheet = float(str(reader["card_limit_mm"])), float(str(reader["read_range_mm"]))
    assert limit <= datasheet / 2   # NXP MFRC522 data sheet: "up to 50 mm", for a well-tuned antenna
    assert 0 < box.card_distance(PLAN) <= limit, f"the card lies {box.card_distance(PLAN):.1f} mm above the antenna"
    x, y = PLAN.antenna
    rest = PLAN.card_rest
    assert rest[0] < x < rest[2] and rest[1] < y < rest[3], "the card rest is not over the antenna"
    outer = (PLAN.cavity[0] - box.WALL, PLAN.cavity[1] - box.WALL, PLAN.cavity[2] + box.WALL, PLAN.cavity[3] + box.WALL)
    assert inside((rest[0] - box.RIM, rest[1] - box.RIM, rest[2] + box.RIM, rest[3] + box.RIM), outer)
    openings = [(bx - box.BUTTON_HOLE / 2, by - box.BUTTON_HOLE / 2, bx + box.BUTTON_HOLE / 2, by + box.BUTTON_HOLE / 2)
                for bx, by in [*PLAN.buttons, PLAN.led]] + [PLAN.oled_window]
    assert not any(overlap(rest, o) for o in openings), "a card on the rest would cover a button, the LED or the screen"


def test_the_buttons_plungers_reach_through_the_lid() -> None:
    assert len(PLAN.buttons) == 3 and box.PLUNGER < box.BUTTON_HOLE < box.FLANGE
    button_top = min(top for ref, (_, top) in PLAN.parts.items() if ref.startswith("SW"))
    assert button_top + 1.5 < PLAN.lid_under, "no room for the plunger's flange under the lid"


def test_cable_slots_and_screw_bosses_follow_the_board_file(tmp_path: Path) -> None:
    for jack in ("J1", "J2"):
        wall, a0, a1, bottom = PLAN.slots[jack]
        court = PLAN.parts[jack][0]
        assert wall == "back" and a0 < court[0] and court[2] < a1 and bottom < PLAN.board_top
    assert sorted(PLAN.bosses) == sorted((p.at[0], p.at[1]) for p in seat_node.design().parts if p.ref[0] == "H")
    # Move J1 by 5 mm in the board file alone: its slot moves with it.
    text = (seat_node.BOARD_DIR / "seat-node.kicad_pcb").read_text(encoding="utf-8")
    start = text.index('(property "Reference" "J1"')
    at = text.rindex("(at ", 0, start)
    x = float(re.match(r"\(at ([-\d.]+)", text[at:]).group(1))  # type: ignore[union-attr]
    moved = tmp_path / "moved.kicad_pcb"
    moved.write_text(text[:at] + f"(at {x + 5:g}" + text[at + len(f"(at {text[at + 4:].split()[0]}"):],
                     encoding="utf-8")
    assert box.plan(moved).slots["J1"][1] == pytest.approx(PLAN.slots["J1"][1] + 5)


def test_nothing_printed_overhangs_more_than_45_degrees() -> None:
    pytest.importorskip("build123d", reason="the box's CAD needs the [hardware] extra (pip install -e '.[dev]')")
    made = box.solids(PLAN)
    beds = {"base": 0.0, "lid": PLAN.lid_under, "plunger": 0.0}   # base floor-down, lid top-up, plunger flange-down
    for name, shape in made.items():
        assert box.overhangs(box.triangles(shape), 45.0, beds[name]) == [], f"the {name} overhangs"
    # the check sees an overhang where there is one: printed top-down, the lid would stand on its card rest's rim
    # with the whole plate in the air
    flipped = [tuple((x, y, -z) for x, y, z in t) for t in box.triangles(made["lid"])]
    bed = min(z for t in flipped for _, _, z in t)
    assert len(box.overhangs(flipped, 45.0, bed)) > 10
