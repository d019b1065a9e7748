"""What every card reader offers, and the presence tracker that reports a card arriving or leaving once.

A reader's :meth:`CardReader.poll` answers "which card is on me right now" and must return within a bounded time
(the drivers bound every wait with an injected clock). Readers see a card that stays on them again on every poll,
and a card at the edge of the field can drop out of one poll; :class:`CardPresence` hides both: it reports an
arrival once, and a removal only after the card has been missing for ``absent_polls`` polls in a row. A poll that
fails (corrupt frame, I2C/SPI/serial error) changes nothing: the error is counted and the next poll tries again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from controller.ports import CardEvent

log = logging.getLogger(__name__)


class NfcError(Exception):
    """A reader did not answer as its datasheet says (bad checksum, timeout, unexpected reply)."""


class CardReader(Protocol):
    """One seat's reader."""

    def setup(self) -> None:
        """Bring the chip into reading mode (also done lazily by the first poll). Raises :class:`NfcError`."""

    def poll(self) -> str | None:
        """The UID (upper-case hex) of the card in the field now, or None. Raises :class:`NfcError`."""


class CardPresence:
    """Turns polls of one reader into :class:`CardEvent` s: arrival once, removal once."""

    def __init__(self, seat: int, reader: CardReader, emit: Callable[[CardEvent], None],
                 now: Callable[[], float], absent_polls: int = 2) -> None:
        if absent_polls < 1:
            raise ValueError("absent_polls must be at least 1")
        self.seat = seat
        self.reader = reader
        self.emit = emit
        self._now = now
        self._absent_polls = absent_polls
        self.current: str | None = None
        self._missing = 0
        self.errors = 0
        self.failing = 0  # consecutive failed polls; the scheduler polls a failing reader less often
        self.last_error: str = ""

    def _failed(self, exc: Exception) -> None:
        self.errors += 1
        self.failing += 1
        self.last_error = str(exc)
        if self.failing == 1 or self.failing % 50 == 0:
            log.warning("seat %d reader: %s (failed %d times in a row, will retry)", self.seat, exc, self.failing)

    def setup(self) -> bool:
        """Set the reader up before polling starts, so the first rounds are as short as the rest."""
        try:
            self.reader.setup()
        except (NfcError, OSError) as exc:
            self._failed(exc)
            return False
        return True

    def poll(self) -> None:
        """Poll the reader once and emit whatever changed."""
        try:
            uid = self.reader.poll()
        except (NfcError, OSError) as exc:  # OSError: the bus itself failed (no acknowledge, stuck line)
            self._failed(exc)
            return
        self.failing = 0
        if uid == self.current:
            self._missing = 0
            return
        if uid is None:
            self._missing += 1
            if self._missing >= self._absent_polls and self.current is not None:
                self.emit(CardEvent(self.seat, self.current, False, self._now()))
                self.current = None
                self._missing = 0
            return
        if self.current is not None:  # swapped without a gap: the old card left, the new one arrived
            self.emit(CardEvent(self.seat, self.current, False, self._now()))
        self.current = uid
        self._missing = 0
        self.emit(CardEvent(self.seat, uid, True, self._now()))
