"""Reading the text written on a card (an NDEF Text record) from the reader it was tapped on.

Only the ``gpio`` adapter reaches its readers' memory (the PN532 driver's ``read_pages``); the ``sim`` and ``bus``
tables report UIDs only, so enrollment there asks for every role. The read is a request the gpio adapter's I/O
thread serves between its reader polls (``GpioTable.read_card_text``): run here, on the loop's thread, it would
interleave with those polls on the same chip. A read that fails (the card was taken away, a corrupt frame) comes
back as an error the enrollment prints before asking for the role, which is never wrong.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Protocol

from controller.diag.deck import CardTexts


class _ReadsCardText(Protocol):
    def read_card_text(self, seat: int, uid: str) -> Future[tuple[str, ...]]: ...


def card_texts(table: object) -> CardTexts | None:
    """How to read card texts on ``table``, or None when none of its readers can (every role is then chosen)."""
    read = getattr(table, "read_card_text", None)
    presences = getattr(getattr(table, "scheduler", None), "presences", None) or ()
    if read is None or not any(hasattr(p.reader, "read_pages") for p in presences):
        return None
    reader: _ReadsCardText = table  # type: ignore[assignment]
    return reader.read_card_text
