"""The hall offers each club record to the league until the league's receipt lists it: once when taken, again
after 30 s, doubling up to 10 minutes, soon after each reconnection; never a record the receipt has."""

from __future__ import annotations

import json

from controller.hall.league_feed import CONNECT_GRACE_S, FIRST_S, MAX_S, RESEND_S, Ledger, topic
from controller.hall.store import HallStore
from tests.league.conftest import record

T = 1_764_000_000.0


def uids(sent) -> list[str]:
    return [body["record"]["uid"] for _, body in sent]


def test_a_record_goes_once_then_again_at_growing_intervals_until_the_receipt_lists_it():
    ledger = Ledger("red")
    ledger.add("1", T, "2025-11-24", record("g1", "good", []), T)
    assert [t for t, _ in ledger.due(T)] == [topic("red", "record")]
    assert ledger.due(T + FIRST_S - 1) == []
    assert uids(ledger.due(T + FIRST_S)) == ["g1"]
    assert ledger.due(T + FIRST_S + 2 * FIRST_S - 1) == []
    assert uids(ledger.due(T + 3 * FIRST_S)) == ["g1"]
    assert ledger.sent == 3 and ledger.resent == 2
    assert ledger.receipt(json.dumps({"uids": ["g1", "other"]}).encode()) == 1
    assert ledger.due(T + 10 * MAX_S) == []


def test_the_wait_grows_to_ten_minutes_and_no_more():
    ledger = Ledger("red")
    ledger.add("1", T, "e", record("g1", "good", []), T)
    now, gaps, last = T, [], T
    for _ in range(12):
        while not ledger.due(now):
            now += 1.0
        gaps.append(now - last)
        last = now
    assert gaps[1:6] == [FIRST_S, 2 * FIRST_S, 4 * FIRST_S, 8 * FIRST_S, 16 * FIRST_S]
    assert max(gaps) == MAX_S


def test_after_a_reconnection_what_is_unconfirmed_goes_again_soon():
    ledger = Ledger("red")
    ledger.add("1", T, "e", record("g1", "good", []), T)
    ledger.due(T)
    ledger.due(T + FIRST_S)  # next in a minute
    ledger.connected(T + FIRST_S + 1)
    assert uids(ledger.due(T + FIRST_S + 1 + CONNECT_GRACE_S)) == ["g1"]


def test_a_record_the_receipt_already_has_is_not_offered_and_one_too_old_is_given_up():
    ledger = Ledger("red")
    ledger.receipt(b'{"uids": ["g1"]}')
    ledger.add("1", T, "e", record("g1", "good", []), T)
    ledger.add("1", T - RESEND_S - 1, "e", record("old", "good", []), T)
    ledger.add("1", T, "e", record("g2", "good", []), T)
    assert uids(ledger.due(T)) == ["g2"]
    assert uids(ledger.due(T + RESEND_S + 1)) == []  # the league never said: given up after three days
    assert ledger.pending == {}


def test_a_hall_started_again_offers_its_recent_records_from_its_file(tmp_path):
    store = HallStore(tmp_path / "hall.sqlite")
    store.add_record("g1", "1", "2025-11-24", T - 3600, record("g1", "good", []))
    store.add_record("g0", "1", "2025-11-20", T - RESEND_S - 60, record("g0", "good", []))
    ledger = Ledger("red")
    ledger.load(store, T)
    assert ledger.due(T) == []  # the retained receipt comes first if there is one
    assert uids(ledger.due(T + CONNECT_GRACE_S)) == ["g1"]
