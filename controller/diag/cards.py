"""Reading the text written on a card (an NDEF Text record) from the reader it was tapped on.

Only the ``gpio`` adapter reaches its readers' memory (``read_pages`` on the PN532 driver); the ``sim`` and
``bus`` tables report UIDs only, so enrollment there asks for every role. A read that fails (the card was taken
away, a corrupt frame) is no text: the seat then asks for the role, which is never wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from controller.nfc.ndef import read_text
from controller.nfc.reader import NfcError

log = logging.getLogger(__name__)


def card_texts(table: object) -> Callable[[int, str], Sequence[str]] | None:
    scheduler = getattr(table, "scheduler", None)
    presences = getattr(scheduler, "presences", None)
    if not presences:
        return None
    readers = {p.seat: p.reader for p in presences if hasattr(p.reader, "read_pages")}
    if not readers:
        return None

    def texts(seat: int, uid: str) -> Sequence[str]:
        reader = readers.get(seat)
        if reader is None:
            return ()
        try:
            return read_text(reader.read_pages)
        except (NfcError, OSError) as exc:
            log.info("seat %d: card %s: no text read (%s); asking for its role", seat, uid, exc)
            return ()

    return texts
