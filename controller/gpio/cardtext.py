"""Reading the text on a card (NDEF) as a request the gpio adapter's I/O thread serves between reader polls.

A text read is many chip exchanges (a PN532 InDataExchange per 16 bytes, each a command, an ACK and an answer).
The bus lock covers one transfer, not an exchange, so a read run on the caller's thread while the I/O thread
polls the same reader would interleave the two conversations: the chip drops the first command when the second
arrives, and each side reads the other's answer. Running the read on the I/O thread, after a poll round and
before the next, makes that impossible by construction.

The caller gets a :class:`concurrent.futures.Future` (safe to complete from one thread and wait on from another;
an asyncio loop takes it with ``asyncio.wrap_future`` or a done-callback posted with ``call_soon_threadsafe``).
It ends with the card's Text records, or with an :class:`~controller.nfc.reader.NfcError` naming the seat and the
card: no reader, a reader that cannot read card memory, a card no longer on the reader, a failed read.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future

from controller.nfc.ndef import read_text
from controller.nfc.reader import CardPresence, NfcError

log = logging.getLogger(__name__)

Texts = tuple[str, ...]


def _uid(raw: str) -> str:
    """The form readers report (upper-case hex, no separators), so ``04:a2`` matches ``04A2``."""
    return re.sub(r"[\s:\-]", "", raw).upper()


class CardTextRequests:
    """Requests queued by any thread, served by the I/O thread (:meth:`serve`) in the order they came."""

    def __init__(self, wake: Callable[[], None] = lambda: None) -> None:
        self._pending: deque[tuple[int, str, Future[Texts]]] = deque()
        self._lock = threading.Lock()
        self._wake = wake
        self.served = 0

    def submit(self, seat: int, uid: str) -> Future[Texts]:
        """Ask for the texts on card ``uid``, which the caller saw arrive on seat ``seat``'s reader."""
        future: Future[Texts] = Future()
        with self._lock:
            self._pending.append((seat, _uid(uid), future))
        self._wake()
        return future

    def pending(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def _take(self) -> tuple[int, str, Future[Texts]] | None:
        with self._lock:
            return self._pending.popleft() if self._pending else None

    def serve(self, presences: Mapping[int, CardPresence]) -> int:
        """Run every queued request now (on the I/O thread, between polls); how many were run."""
        done = 0
        while (item := self._take()) is not None:
            seat, uid, future = item
            if not future.set_running_or_notify_cancel():
                continue  # the caller gave up before its turn
            try:
                future.set_result(self._read(presences.get(seat), seat, uid))
            except NfcError as exc:
                future.set_exception(exc)
            done += 1
        self.served += done
        return done

    def cancel_all(self, why: str) -> None:
        """End every request still queued with ``why`` (the table stopped: nobody will serve them)."""
        while (item := self._take()) is not None:
            seat, uid, future = item
            if future.set_running_or_notify_cancel():
                future.set_exception(NfcError(f"seat {seat}: card {uid}: not read: {why}"))

    @staticmethod
    def _read(presence: CardPresence | None, seat: int, uid: str) -> Texts:
        if presence is None:
            raise NfcError(f"seat {seat} has no card reader in the hardware profile")
        read_pages = getattr(presence.reader, "read_pages", None)
        if read_pages is None:
            raise NfcError(f"seat {seat}: its {type(presence.reader).__name__} reader cannot read card memory "
                           f"(only the PN532 driver reads NDEF text)")
        if presence.current != uid:
            now = presence.current or "no card"
            raise NfcError(f"seat {seat}: card {uid} is no longer on the reader (it sees {now})")
        try:
            texts = tuple(read_text(read_pages))
        except (NfcError, OSError) as exc:
            raise NfcError(f"seat {seat}: card {uid}: text not read: {exc}") from exc
        log.debug("seat %d: card %s says %r", seat, uid, texts)
        return texts
