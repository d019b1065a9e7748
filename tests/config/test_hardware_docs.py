"""The committed wiring tables and bills of materials agree with the profiles they are generated from."""

from __future__ import annotations

import pytest

from controller.config import hardware_docs
from controller.config.profile import load_profile

GENERATED = hardware_docs.generated()


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_committed_doc_is_up_to_date(name: str) -> None:
    path = hardware_docs.hardware_dir() / name
    assert path.is_file(), f"hardware/{name} is missing: run `python hardware/generate_docs.py`"
    assert path.read_text(encoding="utf-8") == GENERATED[name], (
        f"hardware/{name} disagrees with its profile: run `python hardware/generate_docs.py` and commit"
    )


def test_every_part_in_a_bill_has_a_name_and_a_price() -> None:
    catalogue = hardware_docs.load_parts()
    for name in ("compact-8", "bus-16", "sim"):
        for part in hardware_docs.bill(load_profile(name)):
            assert part in catalogue and float(catalogue[part]["price"]) > 0  # type: ignore[arg-type]


def test_compact_8_bill_counts_the_wiring() -> None:
    parts = hardware_docs.bill(load_profile("compact-8"))
    assert parts["pn532-i2c"] == 8 and parts["ssd1306"] == 8 and parts["button"] == 24
    assert parts["mcp23017"] == 3 and parts["tca9548a"] == 1


def test_bus_16_is_built_from_seat_boards_not_hand_wired_modules() -> None:
    parts = hardware_docs.bill(load_profile("bus-16"))
    assert not {"rs485", "resistor-220", "terminator"} & set(parts), "the transceiver and resistors are on the board"
    assert parts["seat-pcb"] == 17 and parts["max3485"] == 17 and parts["pico"] == 17, "16 seats + the handheld"
    assert parts["button"] == 48 and parts["mfrc522-spi"] == 16 and parts["remote-switch"] == 1
    assert parts["rj45"] == 34 and parts["usb-rs485"] == 1 and parts["bus-breakout"] == 1


def test_a_17_node_chain_buys_an_injector_for_each_feed_past_the_pis_end_and_a_cable_more_for_each() -> None:
    parts = hardware_docs.bill(load_profile("bus-16"))
    assert parts["poe-injector"] == parts["injector-psu"] == 2 and parts["bus-psu"] == 1
    assert parts["bus-cable"] == 17 + 2


def test_the_bus_bill_multiplies_the_boards_own_parts_list() -> None:
    board = hardware_docs.load_seat_board()
    board["seat"] = {**board["seat"], "c-100n": 2}
    parts = hardware_docs.bill(load_profile("bus-16"), board)
    assert parts["c-100n"] == 16 * 2 + 1, "a second capacitor on the seat's board, none more on the handheld's"


def test_a_chain_the_power_study_did_not_solve_is_refused() -> None:
    board = hardware_docs.load_seat_board()
    board["power"] = {"nodes": 9, "feeds": [0]}
    with pytest.raises(ValueError, match="5 V into 9 nodes, not 17"):
        hardware_docs.bill(load_profile("bus-16"), board)
