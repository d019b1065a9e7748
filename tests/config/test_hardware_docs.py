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
