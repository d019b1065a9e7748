"""The topic tree: tianhei/<club>/<room>/<kind> for tables, tianhei/<club>/hall/... for the hall."""

import pytest

from controller.hall import topics


def test_a_table_publishes_under_its_club_and_room():
    assert topics.room_topic("redclub", "3", "status") == "tianhei/redclub/3/status"
    assert topics.parse("tianhei/redclub/3/result") == ("redclub", "3", "result")


def test_the_hall_subscribes_one_level_deep_so_it_never_hears_its_own_receipts():
    subs = topics.room_subscriptions("redclub")
    assert subs == [f"tianhei/redclub/+/{k}" for k in ("status", "event", "result", "record")]
    assert topics.parse(topics.hall_topic("redclub", "3", "ack")) is None


@pytest.mark.parametrize("name", ["", "Room3", "a/b", "+", "#", "x" * 33, "房间"])
def test_a_name_that_cannot_be_a_topic_segment_is_refused_with_the_reason(name):
    with pytest.raises(topics.TopicError, match="lower-case letters"):
        topics.check_name("room", name)


def test_hall_is_not_a_room_name():
    with pytest.raises(topics.TopicError, match="hall's own topic"):
        topics.room_topic("c", "hall", "status")


def test_unknown_kinds_and_foreign_topics_are_not_room_messages():
    with pytest.raises(ValueError, match="unknown message kind"):
        topics.room_topic("c", "1", "roles")
    assert topics.parse("tianhei/c/1/roles") is None
    assert topics.parse("other/c/1/status") is None
