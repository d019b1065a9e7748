"""The shape of every message that crosses a broker into the hall or the league, checked at the door.

A message from the network is read with the depth limit of every other network input
(:mod:`controller.web.safejson`) and then held to the schema below: each object's fields are known, each value
has its type and range, every number is finite (JSON's ``1e999`` reads as infinity, which no date, count or
``datetime`` survives). Whatever fails is refused as :class:`~controller.hall.checks.Refused`, which names the
field (``body.seats[2].card``) and why, so the hall and the league log one line, keep the message in their
quarantine and go on with the next one. What passes is safe to store, to rank and to show: the code behind the
door never meets a list where it wants a name. Each function here is one message kind (or a part of one), built
from the checks of :mod:`controller.hall.checks`.
"""

from __future__ import annotations

import re
from typing import Any

from controller.club.record import GameRecord
from controller.club.words import WORDS_MAX
from controller.hall.checks import (
    MAX_SEATS,
    MAX_SEQ,
    NAME,
    SEAT,
    TOKEN,
    Check,
    Refused,
    at_time,
    boolean,
    counts,
    date,
    integer,
    kind_of,
    list_of,
    moment,
    nullable,
    number,
    obj,
    plain,
    text,
)
from controller.rules.events import EVENT_TYPES, Event

_CARD = re.compile(r"^[0-9A-Fa-f:\- ]{1,48}$")


# ---- a version's own words (a club's own variant file, which neither the hall nor the league has) ---------------
def _words(value: Any, where: str) -> list[str]:
    """A pair [zh, en] of a version's own words (its name, its name for the side that won): shown as text, never
    used to open anything. Longer than :data:`WORDS_MAX` is refused: a table cuts them (controller/club/words.py)."""
    pair = list_of(text(WORDS_MAX), 2)(value, where)
    if len(pair) != 2:
        raise Refused(where, f"{len(pair)} words where [zh, en] belongs")
    return pair


# ---- a game's club record (the hall's input from a table, the league's from a hall) ----------------------------
_SEAT_RECORD = {"seat": SEAT, "role": TOKEN, "side": TOKEN}
_SEAT_RECORD_OPTIONAL = {"member": nullable(NAME), "death": nullable(integer(1, MAX_SEATS)),
                         "cause": nullable(TOKEN), "penalties": integer(0, 1000), "card": nullable(text(48, _CARD))}


def _seat_record(value: Any, where: str) -> dict[str, Any]:
    return obj(value, where, _SEAT_RECORD, _SEAT_RECORD_OPTIONAL)


def _options(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or len(value) > 64:
        raise Refused(where, "not an object of at most 64 options")
    return {k: plain(v, f"{where}.{k}", 3) for k, v in value.items()}


_RECORD = {"uid": text(80), "table": NAME, "journal_game": integer(0, MAX_SEQ), "variant": NAME,
           "players": integer(1, MAX_SEATS), "winner": TOKEN, "seats": list_of(_seat_record)}
_RECORD_OPTIONAL = {
    "options": _options, "room": NAME, "started": nullable(text(40)), "length_s": nullable(number(0, 7 * 86400)),
    "reason": text(80), "id": nullable(integer(0, MAX_SEQ)), "first_victim": nullable(SEAT),
    "deaths": list_of(lambda v, w: obj(v, w, {"seat": SEAT, "cause": TOKEN})),
    "penalties": list_of(lambda v, w: obj(v, w, {"seat": SEAT, "total": integer(0, 1000)}), 1000),
    "ejections": list_of(SEAT), "surrenders": list_of(SEAT), "variant_words": _words, "winner_words": _words}


def record_body(value: Any, where: str = "record") -> GameRecord:
    """A club record as :meth:`GameRecord.as_dict` writes it; every seat within the game's players."""
    data = obj(value, where, _RECORD, _RECORD_OPTIONAL)
    players = data["players"]
    if len(data["seats"]) != players:
        raise Refused(f"{where}.seats", f"{len(data['seats'])} seats for {players} players")
    for i, seat in enumerate(data["seats"]):
        if seat["seat"] != i + 1:
            raise Refused(f"{where}.seats[{i}].seat", f"seat {seat['seat']} where seat {i + 1} belongs")
    for name in ("deaths", "penalties"):
        for i, item in enumerate(data.get(name, ())):
            if item["seat"] > players:
                raise Refused(f"{where}.{name}[{i}].seat", f"seat {item['seat']} of {players} players")
    return GameRecord.from_dict(data)


# ---- what a table publishes (the hall's input) -----------------------------------------------------------------
_RESULT_SEAT = {"seat": SEAT, "name": NAME, "side": TOKEN, "alive": boolean}
_RESULT = {"game": NAME, "winner": TOKEN}
_RESULT_OPTIONAL = {"variant": NAME, "players": integer(1, MAX_SEATS), "reason": text(80), "days": integer(0, 1000),
                    "nights": integer(0, 1000), "names": list_of(NAME), "winners": list_of(NAME),
                    "seats": list_of(lambda v, w: obj(v, w, _RESULT_SEAT)), "minutes": number(0, 1e9),
                    "variant_words": _words, "winner_words": _words}

_STATUS_OPTIONAL = {
    "state": text(16, re.compile(r"^(idle|checkin|playing|ended)$")), "game": text(80), "names": list_of(NAME),
    "variant": NAME, "players": integer(1, MAX_SEATS), "phase": TOKEN, "gesture": TOKEN,
    "day": integer(0, 1000), "night": integer(0, 1000), "dead": list_of(SEAT), "speaker": SEAT,
    "candidate": SEAT, "seconds": number(0, 86400), "rate": number(0, 1e9), "winner": nullable(TOKEN),
    "reason": nullable(text(80)), "numbering": TOKEN, "out": nullable(plain), "tied": list_of(plain),
    "tally": list_of(list_of(plain, 8)), "variant_words": _words, "winner_words": _words,
    # the 狼人杀 boards' sheriff (W10): who holds the badge, and who runs for it and who withdrew in its election
    "sheriff": nullable(SEAT), "running": list_of(SEAT), "withdrawn": list_of(SEAT)}


def status_body(value: Any, where: str = "body") -> dict[str, Any]:
    return obj(value, where, {}, _STATUS_OPTIONAL)


def result_body(value: Any, where: str = "body") -> dict[str, Any]:
    return obj(value, where, _RESULT, _RESULT_OPTIONAL)


def stored_result(value: Any, where: str = "") -> dict[str, Any]:
    """A result as the hall's store gives it back: the body with its room and when it was written."""
    return obj(value, where, {**_RESULT, "room": text(32), "at": at_time}, _RESULT_OPTIONAL)


def _told_before_the_end(cls: type[Event]) -> bool:
    """An event type the room may see some of (all of a public one; the public part of Opened and Dawn)."""
    return cls.public or cls.public_view is not Event.public_view


def _public_event(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Refused(where, f"{kind_of(value)} where an event belongs")
    kind = value.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None or not _told_before_the_end(cls):
        raise Refused(f"{where}.type", "not an event the room may see")
    return obj(value, where, {"type": TOKEN}, _EVENT_FIELDS[cls.type])


def _event_field(value: Any, where: str) -> Any:
    return plain(value, where, 4)


#: Each event type's fields, each a small JSON value.
_EVENT_FIELDS: dict[str, dict[str, Check]] = {
    kind: {name: _event_field for name in cls.__match_args__} for kind, cls in EVENT_TYPES.items()}


def event_body(value: Any, where: str = "body") -> dict[str, Any]:
    """One public event (``n``: its place among the game's public events) or an undo to ``undo_to`` of them."""
    return obj(value, where, {"game": text(80)}, {"n": integer(0, MAX_SEQ), "event": _public_event,
                                                  "undo_to": integer(0, MAX_SEQ)})


_BODIES: dict[str, Check] = {"status": status_body, "result": result_body, "event": event_body,
                                                 "record": record_body}


def table_message(msg: Any, room: str, kind: str) -> dict[str, Any]:
    """A table's envelope (``controller/hall/outbox.py``) on ``tianhei/<club>/<room>/<kind>``, its body checked for
    its kind. The envelope names the topic's room and kind (a table writes only under its own room)."""
    data = obj(msg, "", {"epoch": text(64), "seq": integer(1, MAX_SEQ), "room": text(32), "kind": TOKEN,
                         "body": lambda v, w: v}, {"id": text(100), "at": at_time})
    if data["room"] != room or data["kind"] != kind:
        raise Refused("room" if data["room"] != room else "kind", "does not match the topic it came on")
    _BODIES[kind](data["body"], "body")
    return data


#: The head of an envelope as a table's outbox writes it (``Message.envelope``): its id, even when the body is not
#: JSON the hall can read (nested too deep, cut short).
_HEAD = re.compile(rb'^\{\s*(?:"id"\s*:\s*"[^"\\]{0,100}"\s*,\s*)?"epoch"\s*:\s*"([^"\\]{1,64})"\s*,\s*"seq"\s*:\s*(\d{1,16})\s*,')


def message_id(msg: Any, payload: bytes = b"") -> tuple[str, int] | None:
    """(epoch, seq) of an envelope when both are usable, even if the rest is not (from the head of ``payload``
    when it was not JSON at all): the hall then acknowledges it, so the table does not send a refused message again
    for ever."""
    if not isinstance(msg, dict):
        head = _HEAD.match(payload[:300])
        if head is None or not 1 <= int(head.group(2)) <= MAX_SEQ:
            return None
        return head.group(1).decode("utf-8", "replace"), int(head.group(2))
    try:
        return text(64)(msg.get("epoch"), "epoch"), integer(1, MAX_SEQ)(msg.get("seq"), "seq")
    except Refused:
        return None


# ---- what a club's bridge delivers (the league's input) ------------------------------------------------------
def league_record(msg: Any, club: str, *, now: float) -> tuple[dict[str, Any], GameRecord]:
    """A record as ``club``'s hall sends it on (``controller/hall/league_feed.py``): written no later than a day
    from now."""
    data = obj(msg, "", {"room": NAME, "at": moment(now + 86400.0),
                         "evening": date(now + 86400.0), "record": lambda v, w: v}, {"club": TOKEN})
    if data.get("club", club) != club:
        raise Refused("club", "does not match the topic it came on")
    return data, record_body(data["record"], "record")


_STANDING = {"member": NAME, "points": number(-1e6, 1e6), "wins": integer(0, 10**6), "games": integer(0, 10**6),
             "rank": integer(1, 10**6)}
_STANDING_OPTIONAL = {name: integer(0, 10**6) for name in ("losses", "draws", "survived", "level")}
_STANDING_OPTIONAL.update({name: number(-1e6, 1e6) for name in ("game_points", "time_points", "penalty_points")})
_STANDING_OPTIONAL["games_by_role"] = counts


def standing_row(value: Any, where: str) -> dict[str, Any]:
    return obj(value, where, _STANDING, _STANDING_OPTIONAL)


def league_standings(msg: Any, club: str, *, now: float) -> tuple[str, list[dict[str, Any]]]:
    """``club``'s evening standings (retained on its topic): an evening played by now, rows of the club's ranking."""
    data = obj(msg, "", {"evening": date(now + 86400.0), "standings": list_of(standing_row, 10_000)},
               {"club": TOKEN})
    if data.get("club", club) != club:
        raise Refused("club", "does not match the topic it came on")
    return data["evening"], data["standings"]


def league_receipt(msg: Any) -> set[str]:
    """The league's receipt to a hall: the uids it has (the hall's input from the league)."""
    return set(obj(msg, "", {"uids": list_of(text(80), 100_000)})["uids"])
