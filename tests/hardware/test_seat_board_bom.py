"""The seat board's bill of materials has one source, hardware/parts.toml: the committed BOM-seat-node.md is what
it makes, every part has a footprint, height and datasheet current, and the fab's files list the assembled parts;
hardware/seat-board.toml, the board's parts counted for the tables' bills, is what the design makes."""

from __future__ import annotations

import tomllib

import bom
import power
import pytest
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


def test_committed_board_table_is_what_the_design_makes() -> None:
    committed = bom.BOARD_TABLE.read_text(encoding="utf-8")
    assert committed == bom.board_table(), "hardware/seat-board.toml is stale: run `./dev hardware` and commit it"


def test_a_seat_board_counts_every_bought_part_of_the_design_and_its_modules() -> None:
    catalogue = seat_node.parts_catalogue()
    seat = bom.per_board()
    bought = [p for p in seat_node.design().parts if float(str(catalogue[p.part]["price"])) > 0]
    assert sum(seat.values()) == len(bought) + len(seat_node.MODULES) + 1, "parts, modules and the bare board"
    assert seat["max3485"] == 1 and seat["rj45"] == 2 and seat["button"] == 3 and seat["mfrc522-spi"] == 1
    assert "mounting-hole" not in seat, "a mounting hole is drilled, not bought"


def test_the_handheld_is_the_seat_board_without_buttons_and_reader_and_with_the_5_way_switch() -> None:
    seat = bom.per_board()
    handheld = bom.per_board(seat_node.HANDHELD_LEAVES_OUT, seat_node.HANDHELD_MODULES)
    assert seat - handheld == {"button": 3, "socket-1x08": 1, "mfrc522-spi": 1}
    assert handheld - seat == {"remote-switch": 1}


def test_a_part_the_handheld_leaves_out_must_be_on_the_board() -> None:
    with pytest.raises(KeyError, match="no part SW9"):
        bom.per_board(("SW9",))


def test_the_board_table_says_where_the_power_study_feeds_5_v() -> None:
    table = tomllib.loads(bom.board_table())
    assert table["power"] == {"nodes": 17, "feeds": list(power.FEEDS_17)}
