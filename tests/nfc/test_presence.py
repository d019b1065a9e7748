"""A card left on a reader is reported once; its removal is reported once; errors change nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.nfc.reader import CardPresence, NfcError
from controller.ports import CardEvent


class ScriptedReader:
    def __init__(self, answers: list[str | NfcError | None]) -> None:
        self.answers = list(answers)

    def poll(self) -> str | None:
        answer = self.answers.pop(0)
        if isinstance(answer, NfcError):
            raise answer
        return answer


def run(answers: list[str | NfcError | None], absent_polls: int = 2) -> list[CardEvent]:
    events: list[CardEvent] = []
    presence = CardPresence(3, ScriptedReader(answers), events.append, lambda: 1.0, absent_polls)
    for _ in answers:
        presence.poll()
    return events


def test_seat_3_leaves_the_card_on_the_reader_it_is_reported_once() -> None:
    events = run(["AA"] * 10)
    assert events == [CardEvent(3, "AA", True, 1.0)]


def test_the_card_is_taken_away() -> None:
    events = run(["AA", "AA", None, None, None])
    assert events == [CardEvent(3, "AA", True, 1.0), CardEvent(3, "AA", False, 1.0)]


def test_one_missed_poll_at_the_edge_of_the_field_is_not_a_removal() -> None:
    assert run(["AA", None, "AA", None, "AA"]) == [CardEvent(3, "AA", True, 1.0)]


def test_a_corrupt_answer_changes_nothing() -> None:
    assert run(["AA", NfcError("bad checksum"), NfcError("bad"), "AA"]) == [CardEvent(3, "AA", True, 1.0)]


def test_swapping_cards_reports_the_old_leaving_then_the_new_arriving() -> None:
    events = run(["AA", "BB"])
    assert [(e.uid, e.present) for e in events] == [("AA", True), ("AA", False), ("BB", True)]


@given(st.lists(st.one_of(st.none(), st.sampled_from(["AA", "BB"]), st.just(NfcError("x"))), max_size=40))
def test_arrivals_and_removals_alternate_per_card(answers: list[str | NfcError | None]) -> None:
    events = run(answers)
    on: str | None = None
    for event in events:
        if event.present:
            assert on is None
            on = event.uid
        else:
            assert on == event.uid
            on = None
