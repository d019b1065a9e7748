"""Drawing the diagnostics' and enrollment's words on a seat, in the table's language.

The tools speak through the same :class:`~controller.screens.views.Message` view as the director, so their
screens are drawn by the one renderer (fonts, fitting, both languages) and look like the rest of the table.
"""

from __future__ import annotations

from controller.ports import Button, Seat
from controller.screens.render import render
from controller.screens.strings import Lang
from controller.screens.views import L10n, Message

BUTTON_MARK = {Button.PREV: "◀", Button.NEXT: "▶", Button.OK: "OK"}


def show(seat: Seat, lang: Lang, title: L10n | str, body: L10n | str = "") -> None:
    seat.display(render(Message(title, body), lang))


def seconds(left: float) -> str:
    """Whole seconds left, rounded up (a deadline is never shown as 0 before it passes)."""
    whole = int(left)
    return str(max(0, whole + (1 if left > whole else 0)))
