"""Seventeen nodes' datasheet current through the bus cable: fed only at the Pi's end the far nodes brown out, fed
where docs/hardware.md says every node keeps 4.5 V and no cable segment carries more than its conductors may."""

from __future__ import annotations

import power
import pytest
import seat_node


def test_a_node_draws_what_its_parts_data_sheets_say() -> None:
    parts = seat_node.parts_catalogue()
    base = power.node_current_a(parts)
    assert base == pytest.approx(0.253)   # Pico 50, MAX3485 40, OLED 20, MFRC522 117, LED 18, bias 2 x 4 mA
    parts["mfrc522-spi"] = {**parts["mfrc522-spi"], "current_ma": 60}
    assert power.node_current_a(parts) == pytest.approx(base - 0.057)


def test_the_ladder_agrees_with_the_sum_for_one_feed() -> None:
    cable = power.Cable(segment_ohm=0.1, max_rail_a=10.0)
    result = power.solve(5, 0.2, cable, (0,))
    # node k sees the current of nodes k..5 in every segment before it (half a segment from the feed to node 1)
    expected, drop = [], 0.0
    for k in range(1, 6):
        drop += 0.1 * 0.2 * (6 - k) * (0.5 if k == 1 else 1.0)
        expected.append(5.0 - drop)
    assert result.volts == pytest.approx(expected)
    assert result.busiest == pytest.approx(1.0)


def test_seventeen_nodes_fed_only_at_the_pis_end_brown_out() -> None:
    result = power.solve(17, power.node_current_a(), power.Cable.from_parts(), (0,))
    assert result.lowest < power.MIN_V
    assert result.busiest > power.Cable.from_parts().max_rail_a


def test_seventeen_nodes_fed_where_the_docs_say_keep_4_5_volts() -> None:
    cable = power.Cable.from_parts()
    result = power.solve(17, power.node_current_a(), cable, power.FEEDS_17)
    assert result.lowest >= power.MIN_V, power.report()
    assert result.busiest <= cable.max_rail_a, power.report()


def test_a_feed_past_the_last_node_is_refused() -> None:
    with pytest.raises(ValueError, match=r"gaps 0\.\.16"):
        power.solve(17, 0.25, power.Cable.from_parts(), (17,))
