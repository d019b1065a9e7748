"""The table's outbox: written before anything is sent, sent in order, sent again when the hall's receipt does
not come, kept across a restart, each message with an id that is never reused."""

import json

import pytest

from controller.hall.outbox import RESEND_S, Outbox, OutboxError
from tests.hall.conftest import Clock


def test_messages_are_due_in_the_order_they_were_written(tmp_path):
    box = Outbox(tmp_path / "o.sqlite")
    seqs = [box.put("tianhei/c/1/event", "event", {"n": i}) for i in range(5)]
    assert [m.seq for m in box.due()] == seqs
    envelope = json.loads(box.due()[0].envelope(box.epoch, "1"))
    assert envelope["id"] == f"{box.epoch}-{seqs[0]}" and envelope["body"] == {"n": 0} and envelope["room"] == "1"


def test_a_sent_message_waits_for_the_receipt_and_goes_again_if_none_comes(tmp_path):
    clock = Clock()
    box = Outbox(tmp_path / "o.sqlite", clock=clock)
    box.put("t", "result", {"game": "g1"}, durable=True)
    box.mark_sent([m.seq for m in box.due()])
    assert box.due() == []
    clock.t += RESEND_S  # the broker died with it: no receipt
    assert [m.kind for m in box.due()] == ["result"]
    box.mark_sent([1])
    clock.t += RESEND_S  # the second wait is twice as long
    assert box.due() == []
    clock.t += RESEND_S
    assert len(box.due()) == 1


def test_the_receipt_acknowledges_all_up_to_a_sequence_and_those_above_it_but_the_missing(tmp_path):
    clock = Clock()
    box = Outbox(tmp_path / "o.sqlite", clock=clock)
    for i in range(6):
        box.put("t", "event", {"n": i})
    box.mark_sent([m.seq for m in box.due()])
    assert box.ack(box.epoch, 2, top=6, missing=[4]) == 2
    clock.t += RESEND_S
    assert box.counts()["unacked"] == 1 and [m.seq for m in box.due()] == [4]


def test_a_receipt_for_another_epoch_changes_nothing(tmp_path):
    box = Outbox(tmp_path / "o.sqlite")
    box.put("t", "event", {})
    box.mark_sent([1])
    assert box.ack("someone-else", 10) == 0
    assert box.counts()["unacked"] == 1


def test_after_a_restart_the_unsent_messages_are_still_there_under_the_same_epoch(tmp_path):
    box = Outbox(tmp_path / "o.sqlite")
    box.put("t", "status", {"state": "playing"}, retain=True)
    epoch, game = box.epoch, box.next_game("1")
    box.close()
    again = Outbox(tmp_path / "o.sqlite")
    assert again.epoch == epoch and [m.retain for m in again.due()] == [True]
    assert again.next_game("1") != game


def test_a_new_outbox_file_has_a_new_epoch_so_old_ids_are_never_reused(tmp_path):
    assert Outbox(tmp_path / "a.sqlite").epoch != Outbox(tmp_path / "b.sqlite").epoch


def test_an_outbox_in_a_place_that_cannot_be_written_says_so_in_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(OutboxError, match=r"cannot open the outbox .*\[mqtt\] outbox"):
        Outbox(tmp_path / "file" / "o.sqlite")
