"""Reading a card's NDEF text on a live gpio table: served by the I/O thread between reader polls (issue 7).

Seat 4's PN532 is polled over and over by the table's own I/O thread while other threads ask for the text on the
card lying on it. The fake PN532 counts ``overlapped`` exchanges (a command arriving while the last answer is
still unread): a read that ran beside the polls would show up there, or as a wrong text.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future

import pytest

from controller.nfc.fakes import FakePn532
from controller.nfc.ndef import text_tlv
from controller.nfc.reader import NfcError
from controller.ports import CardEvent, InputEvent

from .rig import Rig, make_rig

KILLER_CARD = "04D1A600000009"


def write_text(reader: FakePn532, text: str, lang: str = "zh") -> None:
    memory = text_tlv(text, lang)
    reader.ndef_pages = {4 + i: memory[4 * i : 4 * i + 4].ljust(4, b"\0") for i in range((len(memory) + 3) // 4)}


def arrived(events: list[InputEvent], seat: int) -> bool:
    return any(isinstance(e, CardEvent) and e.seat == seat and e.present for e in events)


@pytest.fixture
def live() -> Iterator[tuple[Rig, threading.Event]]:
    """A compact-8 table whose I/O thread polls every reader back to back (period 0), a killer card on seat 4."""
    rig = make_rig(poll_period=0.0)
    rig.readers[4].card = bytes.fromhex(KILLER_CARD)
    write_text(rig.readers[4], "杀手")
    seen = threading.Event()

    def sink(event: InputEvent) -> None:
        rig.events.append(event)
        if isinstance(event, CardEvent) and event.seat == 4:
            seen.set()

    rig.table.start(sink, thread=True)
    assert seen.wait(timeout=5), "seat 4's reader never reported the card"
    yield rig, seen
    rig.table.stop()
    rig.factory.close()


def test_texts_asked_from_four_threads_while_the_io_thread_polls_never_interleave(
        live: tuple[Rig, threading.Event]) -> None:
    rig, _ = live
    reader = rig.readers[4]
    rounds_before = rig.table.scheduler.rounds
    futures: list[Future[tuple[str, ...]]] = []
    lock = threading.Lock()

    def ask() -> None:
        for _ in range(10):
            future = rig.table.read_card_text(4, KILLER_CARD)
            with lock:
                futures.append(future)
            future.result(timeout=5)  # one at a time per thread; the four threads overlap each other

    askers = [threading.Thread(target=ask) for _ in range(4)]
    for t in askers:
        t.start()
    for t in askers:
        t.join(timeout=10)
    assert len(futures) == 40
    assert {f.result(timeout=0) for f in futures} == {("杀手",)}
    assert reader.overlapped == 0, "a card read and a poll talked to the PN532 at the same time"
    assert rig.table.scheduler.rounds > rounds_before, "the readers were polled meanwhile"
    assert reader.commands.count(0x40) >= 40  # InDataExchange: every read reached the card


def test_the_read_waits_for_the_io_thread_and_follows_a_poll(rig: Rig) -> None:
    """Without a thread (``step`` by hand): asking queues the read; the next turn polls, then reads."""
    rig.readers[4].card = bytes.fromhex(KILLER_CARD)
    write_text(rig.readers[4], "Police", "en")
    rig.table.step()
    assert arrived(rig.events, 4)
    rig.clock.advance(0.05)
    rig.readers[4].commands.clear()
    future = rig.table.read_card_text(4, "04:d1:a6:00:00:00:09")  # any spelling of the UID
    assert not future.done(), "nothing is read on the caller's thread"
    rig.table.step()
    assert future.result(timeout=0) == ("Police",)
    commands = rig.readers[4].commands
    assert commands[0] == 0x4A and 0x40 in commands, "the round's poll first, then the card read"


def test_a_card_taken_away_before_its_turn_is_a_clear_error(rig: Rig) -> None:
    rig.readers[4].card = bytes.fromhex(KILLER_CARD)
    rig.table.step()
    rig.readers[4].card = bytes.fromhex("04AABBCCDDEEFF")  # swapped for another card
    rig.clock.advance(0.05)
    future = rig.table.read_card_text(4, KILLER_CARD)
    rig.table.step()
    with pytest.raises(NfcError, match=r"seat 4: card 04D1A600000009 is no longer on the reader.*04AABBCCDDEEFF"):
        future.result(timeout=0)


def test_a_garbled_card_memory_names_the_seat_and_the_card(rig: Rig) -> None:
    rig.readers[2].card = bytes.fromhex(KILLER_CARD)
    rig.readers[2].ndef_pages = {4: b"\x03\x05\xd1\x01", 5: b"\x20T\x02\xfe"}  # a 32-byte text in 5 bytes
    rig.table.step()
    future = rig.table.read_card_text(2, KILLER_CARD)
    rig.table.step()
    with pytest.raises(NfcError, match="seat 2: card 04D1A600000009: text not read"):
        future.result(timeout=0)


def test_a_seat_without_a_reader_and_a_stopped_table_say_so(rig: Rig) -> None:
    future = rig.table.read_card_text(9, KILLER_CARD)
    rig.table.step()
    with pytest.raises(NfcError, match="seat 9 has no card reader"):
        future.result(timeout=0)
    queued = rig.table.read_card_text(4, KILLER_CARD)
    rig.table.stop()
    with pytest.raises(NfcError, match="not read: the table stopped"):
        queued.result(timeout=0)
    with pytest.raises(RuntimeError, match="not started"):
        rig.table.read_card_text(4, KILLER_CARD).result(timeout=0)

