"""The league demo's poisoned room: one room of a club whose table login publishes what no table of ours writes
(what a stolen password or a careless club's own script would do), and records an older hall took from that room and keeps offering the league. Each poison is one that
once stopped a hall or the league for every club (issue 33): a seat's member that is a list, a card that is a
number, ``players: 1e999``, a record nested 100,000 deep, a record written at ``1e300``. The demo checks that each
one ends in a quarantine and that every other room's game reaches the hall and the league all the same.
"""

from __future__ import annotations

import json
from typing import Any

from controller.hall import topics

RECORD_AT = 1_764_000_000.0


def _record(uid: str) -> dict[str, Any]:
    """A club record as a table writes it (controller/club/record.py ``as_dict``)."""
    seats = [{"seat": n, "role": role, "side": side, "member": member, "death": None, "cause": None, "penalties": 0,
              "card": None} for n, (role, side, member) in enumerate(
                  [("police", "good", "Mallory"), ("killer", "killers", "Trudy"), ("civilian", "good", None)], 1)]
    return {"uid": uid, "table": "room-x", "journal_game": 1, "variant": "classic-1.0", "options": {}, "players": 3,
            "room": "standard", "started": None, "length_s": 60.0, "winner": "good", "reason": "r", "seats": seats,
            "deaths": [], "penalties": [], "ejections": [], "surrenders": [], "first_victim": None, "id": None}


def _envelope(room: str, kind: str, seq: int, body: Any, at: float = RECORD_AT) -> bytes:
    return json.dumps({"id": f"poison-{seq}", "epoch": "poison", "seq": seq, "room": room, "kind": kind, "at": at,
                       "body": body}).encode()


def room_poisons(club: str, room: str) -> list[tuple[str, bytes]]:
    """(topic, payload) of what the poisoned room's table login publishes on its own room's topics."""
    listed, numbered = _record(f"{club}-{room}-listed"), _record(f"{club}-{room}-numbered")
    listed["seats"][0]["member"] = ["Mallory", "Trudy"]
    numbered["seats"][1]["card"] = 4
    huge = _envelope(room, "record", 3, dict(_record(f"{club}-{room}-huge"), players="@@")).replace(b'"@@"', b"1e999")
    deep = (b'{"id": "poison-4", "epoch": "poison", "seq": 4, "room": "' + room.encode() + b'", "kind": "record", '
            b'"body": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    record = topics.room_topic(club, room, "record")
    return [(record, _envelope(room, "record", 1, listed)), (record, _envelope(room, "record", 2, numbered)),
            (record, huge), (record, deep),
            (topics.room_topic(club, room, "result"), _envelope(room, "result", 5, {"game": "x", "winner": "good"},
                                                                at=1e300))]


def stored_poisons(club: str, now: float, evening: str) -> list[tuple[str, float, str, dict[str, Any]]]:
    """(room, written at, evening, record) of records a hall from before the door was checked took from the
    poisoned room and keeps offering the league after every restart, for days."""
    listed = _record(f"{club}-kept-listed")
    listed["seats"][0]["member"] = ["Mallory"]
    # (written at 1e300 by a table whose clock was wrong: kept under an evening long past)
    return [("3", now - 60.0, evening, listed), ("3", 1e300, "2025-11-24", _record(f"{club}-kept-far"))]
