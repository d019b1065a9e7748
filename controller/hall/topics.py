"""The topic tree: ``tianhei/<club>/<room>/<kind>`` for what tables publish, ``tianhei/<club>/hall/…`` for the hall.

====================================  =========  ========================================================
topic                                 retained   what
====================================  =========  ========================================================
``tianhei/C/R/status``                yes        the room's state: idle, checkin, playing (variant, day,
                                                 phase, speaker and speech seconds), ended
``tianhei/C/R/event``                 no         the public view of one game event (never a role or a pick)
``tianhei/C/R/result``                no         the result when a game ends (winner, reason, days, seats)
``tianhei/C/R/record``                no         the game's record for the club (after the end, C4)
``tianhei/C/hall/rooms/R/ack``        yes        the hall's receipt: every message of room R up to a sequence
``tianhei/C/hall/rooms/R/sent``       yes        members the hall sent to room R for its next game
====================================  =========  ========================================================

Every table message is an envelope ``{"id", "epoch", "seq", "room", "kind", "at", "body"}``; ``id`` is unique for
ever (the outbox's epoch and sequence), so the hall drops a message it already has.

Club and room names are topic segments: lower-case letters, digits, ``-`` and ``_`` (no MQTT wildcards, no ``/``).
"hall" is not a room name.
"""

from __future__ import annotations

import re

PREFIX = "tianhei"
KINDS = ("status", "event", "result", "record")
RETAINED = frozenset({"status"})
_SEGMENT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


class TopicError(ValueError):
    """A club or room name that cannot be a topic segment."""


def check_name(what: str, name: str) -> str:
    if not _SEGMENT.match(name):
        raise TopicError(f"{what} name {name!r} must be 1-32 lower-case letters, digits, '-' or '_' "
                         f"(it is part of the MQTT topic)")
    if what == "room" and name == "hall":
        raise TopicError("'hall' is the hall's own topic, not a room name; name the room '1', '2', … or 'red'")
    return name


def room_topic(club: str, room: str, kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown message kind {kind!r}; one of {', '.join(KINDS)}")
    return f"{PREFIX}/{check_name('club', club)}/{check_name('room', room)}/{kind}"


def room_subscriptions(club: str) -> list[str]:
    """What the hall subscribes to: every kind from every room (one wildcard level, so never the hall's own)."""
    return [f"{PREFIX}/{check_name('club', club)}/+/{kind}" for kind in KINDS]


def hall_topic(club: str, room: str, what: str) -> str:
    """The hall's messages for one room: ``ack`` (receipts) and ``sent`` (who was sent there)."""
    return f"{PREFIX}/{check_name('club', club)}/hall/rooms/{check_name('room', room)}/{what}"


def parse(topic: str) -> tuple[str, str, str] | None:
    """(club, room, kind) of a table's topic, or None for anything else."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != PREFIX or parts[2] == "hall" or parts[3] not in KINDS:
        return None
    return parts[1], parts[2], parts[3]


def username(room: str) -> str:
    """A table's broker user is named after its room (the ACL lets it write only there)."""
    return f"room-{check_name('room', room)}"


HALL_USER = "hall"
