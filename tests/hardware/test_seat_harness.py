"""The cable diagrams agree with the board: every RJ45 in hardware/kicad/seat-node/harness-*.yaml carries A, B,
5 V and GND on the pins the board's connectors do, and WireViz draws them."""

from __future__ import annotations

from pathlib import Path

import harness
import pytest
import seat_node
import yaml


@pytest.mark.parametrize("path", harness.HARNESSES, ids=lambda p: p.stem)
def test_every_rj45_in_a_harness_has_the_boards_pinout(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jacks = {name: c for name, c in data["connectors"].items() if c.get("subtype") == "8P8C"}
    assert jacks, f"{path.name} draws no RJ45"
    for name, jack in jacks.items():
        nets = [harness.LABEL_NET[label] for label in jack["pinlabels"]]
        assert nets == [seat_node.BUS_PINS[pin] for pin in range(1, 9)], f"{path.name} {name}"


def test_wireviz_draws_both_cables(tmp_path: Path) -> None:
    drawn = harness.draw(tmp_path, formats="s")
    assert sorted(p.stem for p in drawn) == ["harness-bus", "harness-pi"]
    for picture in drawn:
        svg = picture.with_suffix(".svg").read_text(encoding="utf-8")
        assert "<svg" in svg and "GND" in svg
