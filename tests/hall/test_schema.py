"""The door of the hall and the league (controller/hall/schema.py): what it refuses names the field, what a table
and a hall of ours write passes, and a refused envelope's id is still read so it can be acknowledged."""

from __future__ import annotations

import json

import pytest

from controller.hall import checks, schema
from tests.hall.test_poisoned_room import envelope, good_record, result

NOW = 1_764_000_000.0


def league_message(**changes) -> dict:
    return {"club": "red", "room": "1", "at": NOW - 60, "evening": "2025-11-24", "record": good_record("g"), **changes}


@pytest.mark.parametrize("changes, field", [
    ({"club": "blue"}, "club"),  # another club's name on red's topic
    ({"at": NOW + 3 * 86400}, "at"),  # written the day after tomorrow
    ({"evening": "2025-02-30"}, "evening"),
    ({"evening": "9999-12-31"}, "evening"),
    ({"room": {"$gt": ""}}, "room"),
    ({"extra": 1}, "extra"),
    ({"record": dict(good_record("g"), players=4)}, "record.seats"),  # three seats for four players
    ({"record": dict(good_record("g"), length_s=float("nan"))}, "record.length_s"),
    ({"record": dict(good_record("g"), uid=["g"])}, "record.uid"),
    ({"record": dict(good_record("g"), options={"o": {"a": {"b": {"c": {"d": 1}}}}})}, "record.options.o.a.b.c"),
])
def test_the_league_refuses_a_record_naming_the_field(changes, field):
    with pytest.raises(checks.Refused) as refused:
        schema.league_record(league_message(**changes), "red", now=NOW)
    assert refused.value.field == field


def test_a_record_as_the_hall_sends_it_passes_and_is_the_clubs_record():
    data, record = schema.league_record(league_message(), "red", now=NOW)
    assert record.uid == "g" and [s.member for s in record.seats] == ["Ada", "Bo", "Cai"]
    assert data["at"] == NOW - 60


@pytest.mark.parametrize("payload, expected", [
    (envelope("3", "record", 7, "x").encode(), ("e1", 7)),
    (b'{"id":"e9-12","epoch":"e9","seq":12,"room":"3","kind":"record","at":1.0,"body":' + b"[" * 500, ("e9", 12)),
    (b'{"body": [[[[', None),
    (b'{"epoch": "e1", "seq": 0, "body": [[', None),
])
def test_a_refused_envelopes_id_is_read_even_when_its_body_is_not(payload, expected):
    try:
        msg = checks.parse(payload)
    except checks.Refused:
        msg = None
    assert schema.message_id(msg, payload) == expected


def test_a_tables_envelope_names_its_rooms_topic_and_its_numbers_are_finite():
    ok = json.loads(envelope("3", "result", 1, result("g")))
    assert schema.table_message(ok, "3", "result")["seq"] == 1
    for msg, room, kind, field in [(ok, "4", "result", "room"), (ok, "3", "record", "kind"),
                                   (dict(ok, seq=-1), "3", "result", "seq"), (dict(ok, at=True), "3", "result", "at"),
                                   (dict(ok, body=dict(ok["body"], days=1.5)), "3", "result", "body.days")]:
        with pytest.raises(checks.Refused) as refused:
            schema.table_message(msg, room, kind)
        assert refused.value.field == field


@pytest.mark.parametrize(("words", "field"), [
    (["月狼"], "body.winner_words"),  # one language only
    (["月狼", "Moon wolves", "extra"], "body.winner_words"),
    (["月狼", "x" * 81], "body.winner_words[1]"),
    ("月狼", "body.winner_words"),
])
def test_a_result_whose_side_words_are_not_a_short_zh_en_pair_is_refused_naming_the_field(words, field):
    """A club's own variant's words come with its result to be shown as text: a pair of short strings or nothing."""
    body = dict(result("g1"), winner_words=words)
    with pytest.raises(checks.Refused) as err:
        schema.result_body(body, "body")
    assert err.value.field == field


def test_a_result_with_its_versions_own_words_passes():
    body = dict(result("g1"), variant_words=["月夜狼人 12人", "Moon wolves 12"], winner_words=["月狼", "Moon wolves"])
    assert schema.result_body(body, "body")["winner_words"] == ["月狼", "Moon wolves"]
