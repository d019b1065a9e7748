"""The seat board passes KiCad's own checks: the schematic's ERC, the board's DRC with schematic parity, and the
committed schematic is the one our script writes from the design (hardware/kicad/seat_node.py)."""

from __future__ import annotations

from pathlib import Path

from tests.hardware.seat_board import BOARD_DIR, board_copy, run_report


def test_schematic_has_no_erc_errors_nor_warnings(tmp_path: Path) -> None:
    """Warnings too: a symbol copy that differs from KiCad's library (lib_symbol_mismatch) is one."""
    folder = board_copy(tmp_path)
    report = run_report(["sch", "erc", "--severity-all", str(folder / "seat-node.kicad_sch")], tmp_path / "erc.json")
    found = [f"{v['severity']} {v['type']}: {v['description']}" for sheet in report["sheets"] for v in sheet["violations"]]
    assert found == [], "ERC on the seat board's schematic:\n" + "\n".join(found)


def test_board_has_no_drc_errors_nothing_unconnected_and_matches_the_schematic(tmp_path: Path) -> None:
    folder = board_copy(tmp_path)
    report = run_report(["pcb", "drc", "--schematic-parity", "--severity-error", str(folder / "seat-node.kicad_pcb")],
                        tmp_path / "drc.json")
    errors = [f"{v['type']}: {v['description']} ({', '.join(i['description'] for i in v['items'])})"
              for v in report["violations"]]
    unconnected = [", ".join(i["description"] for i in v["items"]) for v in report["unconnected_items"]]
    parity = [f"{v['type']}: {v['description']}" for v in report["schematic_parity"]]
    assert errors == [], "DRC errors:\n" + "\n".join(errors)
    assert unconnected == [], "unconnected:\n" + "\n".join(unconnected)
    assert parity == [], "the board and its schematic differ:\n" + "\n".join(parity)


def test_committed_schematic_is_what_the_design_writes() -> None:
    import schematic
    import seat_node

    committed = (BOARD_DIR / "seat-node.kicad_sch").read_text(encoding="utf-8")
    assert committed == schematic.build(seat_node.design()), (
        "hardware/kicad/seat-node/seat-node.kicad_sch is stale: run `./dev hardware` and commit the board")
