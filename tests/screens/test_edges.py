"""The seat's own label keeps off the panel's edges.

Found at a club table: the tap-card screen drew "3号" from x=0, where the first column sits behind the bezel and
the number looked cut off. The label now stands at the top right, where the role screen after the tap shows it.
"""

from __future__ import annotations

import pytest
from PIL import Image

from controller.screens import render
from controller.screens import views as v
from controller.screens.canvas import W
from controller.screens.numbering import plain, seat_and_card

TOP_LINE = 13


def _edge_columns_lit(image: Image.Image) -> list[int]:
    top = image.convert("1").crop((0, 0, W, TOP_LINE))
    return [x for x in (0, W - 1) if any(top.getpixel((x, y)) for y in range(TOP_LINE))]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("view", [v.TapCard(3), v.TapCard(20), v.TapCard(7, card=1), v.TapCard(7, card=2),
                                  v.TapCard(11, digital=True)], ids=repr)
def test_the_tap_card_screen_keeps_its_seat_off_the_edges(view: v.TapCard, lang: str) -> None:
    assert _edge_columns_lit(render(view, lang, strict=True)) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_d2_tap_card_screen_keeps_its_seat_and_card_off_the_edges(lang: str) -> None:
    for place in (1, 14, 32):
        assert _edge_columns_lit(render(v.TapCard(place, card=2), lang, strict=True, label=seat_and_card)) == []


def test_the_seat_stands_where_the_role_screen_after_the_tap_shows_it() -> None:
    """The number does not jump when the card is read: the same pixels on the top line's right part."""
    for lang in ("zh", "en"):
        tap = render(v.TapCard(7, card=2), lang, strict=True, label=plain).crop((W // 2, 0, W, TOP_LINE))
        role = render(v.RoleReveal(7, "doctor", card=2), lang, strict=True, label=plain).crop((W // 2, 0, W, TOP_LINE))
        assert tap.tobytes() == role.tobytes()
