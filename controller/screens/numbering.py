"""How a screen writes a number the director names: the seat the room sees.

Views carry the engine's numbers (a seat, or in D2 a card *place*) and nothing else, so a view compares by
value and renders in any language. What the players find at the table is a different matter in D2
(``dual-card-5.0``): the engine counts every card as a place (player k holds places 2k-1 and 2k), while the
table has one seat per player, numbered like the voice says them ("7号 第一张牌"). A screen that drew "13"
would send an 8-player table looking for a seat that does not exist, so the renderer writes numbers through a
:data:`Label` chosen once per game (:func:`label_for`):

- :func:`plain` for every single-card version and D1/D3 (one place per seat): "13", exactly as before;
- :func:`seat_and_card` for D2: place 13 is "7-1" (seat 7, card 1), place 14 "7-2". The same token in both
  languages (sub-numbers written with a dash read naturally in Chinese too), short enough for the huge face
  on a 128x64 screen. A middle dot was tried first: the small face draws it as one pixel, so "7·1" read as
  "71" in lists. Phrases keep their words around it: "7-1号", "Seat 7-1", "#7-1"; a lone "-" still means
  "no pick".

Labelling is a rendering concern: the director passes the label with the view (``render(view, lang,
label=...)``), and the views and the journal keep engine numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

#: A number as a screen writes it.
Label = Callable[[int], str]


def plain(n: int) -> str:
    """One place per seat: the seat number as it is."""
    return str(n)


def seat_and_card(place: int) -> str:
    """D2: card place ``place`` as its seat and which of its two cards (13 -> "7-1", 14 -> "7-2")."""
    if place < 1:
        raise ValueError(f"card place {place} does not exist (places count from 1)")
    return f"{(place + 1) // 2}-{2 - place % 2}"


def labels(numbers: Iterable[int], label: Label = plain) -> str:
    """Several numbers one after another ("2 9" / "1-1 5-2"), as partner lists and ties show them."""
    return " ".join(label(n) for n in numbers)


class _Variant(Protocol):
    @property
    def live(self) -> str: ...


def label_for(variant: _Variant) -> Label:
    """The label of a game of ``variant``: seat and card where both cards are live places (D2), else plain."""
    return seat_and_card if variant.live == "both" else plain
