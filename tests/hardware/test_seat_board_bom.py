"""The seat board's bill of materials has one source, hardware/parts.toml: the committed BOM-seat-node.md is what
it makes, every part has a footprint, height and datasheet current, and the fab's files list the assembled parts."""

from __future__ import annotations

import bom
import seat_node

from tests.hardware.seat_board import REPO


def test_committed_bom_is_what_parts_toml_makes() -> None:
    committed = (REPO / "hardware" / "BOM-seat-node.md").read_text(encoding="utf-8")
    assert committed == bom.markdown(), "hardware/BOM-seat-node.md is stale: run `./dev hardware` and commit it"


def test_every_part_on_the_board_has_what_the_fab_and_the_box_need() -> None:
    catalogue = seat_node.parts_catalogue()
    for part in seat_node.design().parts:
        entry = catalogue[part.part]
        assert str(entry["footprint"]).count(":") == 1, part.ref
        assert float(str(entry["height_mm"])) >= 0 and "current_ma" in entry and entry["datasheet_current"], part.ref
        assert entry["fitted"] in ("assembly", "hand"), part.ref


def test_the_fab_bom_lists_the_assembled_parts_and_a_seat_lists_every_reference() -> None:
    rows = bom.jlc_bom().splitlines()
    assert rows[0] == "Comment,Designator,Footprint,LCSC Part #"
    assert any(row.startswith("MAX3485 MAX3485ESA+,U1,") for row in rows)
    assert not any(",A1," in row for row in rows), "the Pico is soldered by hand, not by the fab"
    refs = [ref for line in bom.lines() for ref in line.refs]
    assert sorted(refs) == sorted(p.ref for p in seat_node.design().parts)


def test_placement_file_takes_kicads_positions_for_the_assembled_parts() -> None:
    kicad = 'Ref,Val,Package,PosX,PosY,Rot,Side\n"U1","MAX3485","SOIC-8",86.0,-50.0,0.0,top\n"A1","Pico","x",1,2,90,top\n'
    assert bom.jlc_cpl(kicad).splitlines() == ["Designator,Mid X,Mid Y,Layer,Rotation", "U1,86.000mm,-50.000mm,Top,0"]
