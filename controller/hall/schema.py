"""The shape of every message that crosses a broker into the hall or the league, checked at the door.

A message from the network is read with the depth limit of every other network input
(:mod:`controller.web.safejson`) and then held to the schema below: each object's fields are known, each value
has its type and range, every number is finite (JSON's ``1e999`` reads as infinity, which no date, count or
``datetime`` survives). Whatever fails is refused as :class:`Refused`, which names the field (``body.seats[2].card``)
and why, so the hall and the league log one line, keep the message in their quarantine and go on with the next
one. What passes is safe to store, to rank and to show: the code behind the door never meets a list where it
wants a name.

Plain typed functions, no schema library: the messages are few and small, the checks are ranges a club can read,
and the Pi starts nothing more. Each ``*_message``/``*_body`` function is one message kind; the small checks
(:func:`text`, :func:`integer`, :func:`number`, :func:`obj`, …) are the vocabulary they share.
"""

from __future__ import annotations

import datetime
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from controller.club.record import GameRecord
from controller.rules.events import EVENT_TYPES, Event
from controller.web import safejson

#: Times are seconds since 1970 up to the year 2100: ``datetime`` turns every one into a date on any platform.
LATEST_AT = 4_102_444_800.0
#: The most seats a table has (two card places at 32 physical seats, D2).
MAX_SEATS = 64
#: A sequence number fits a float exactly (the table's outbox counts from 1).
MAX_SEQ = 2**53
_TOKEN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,47}$")
_CARD = re.compile(r"^[0-9A-Fa-f:\- ]{1,48}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

Check = Callable[[Any, str], Any]
T = TypeVar("T")
log = logging.getLogger(__name__)
#: (what, field, why) already said: a page reads its rows every few seconds, the log says each fault once.
_said: set[tuple[str, str, str]] = set()


class Refused(ValueError):
    """A message that does not fit its schema: ``field`` is where (``body.players``), ``why`` what is wrong."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(f"{field or 'message'}: {why}")
        self.field = field or "message"
        self.why = why


def parse(payload: bytes) -> Any:
    """The payload as JSON, with the console's depth limit; :class:`Refused` when it is not usable JSON."""
    try:
        return safejson.loads(payload)
    except ValueError as exc:
        raise Refused("message", str(exc) if isinstance(exc, safejson.TooDeep) else "not JSON") from None


def readable(items: Iterable[Any], check: Callable[[Any, str], T], what: str) -> list[T]:
    """The stored ``items`` that fit ``check``, checked; the others are left out (said once in the log). Rows kept
    before the door was checked, or edited by hand, must not turn a page into an error."""
    out = []
    for item in items:
        try:
            out.append(check(item, ""))
        except (Refused, ValueError, TypeError, KeyError, OverflowError) as exc:
            key = (what, getattr(exc, "field", ""), str(exc))
            if key not in _said and len(_said) < 1000:
                _said.add(key)
                log.warning("%s is left out: %s", what, exc)
    return out


def finite(value: Any, default: float = 0.0) -> float:
    """A stored number as a finite float (``default`` for anything else)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return default


# ---- the vocabulary --------------------------------------------------------------------------------------------
def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else \
        "null" if value is None else type(value).__name__


def text(max_len: int = 200, pattern: re.Pattern[str] | None = None) -> Check:
    def check(value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise Refused(where, f"{_kind(value)} where text belongs")
        if len(value) > max_len:
            raise Refused(where, f"longer than {max_len} characters")
        if pattern is not None and not pattern.match(value):
            raise Refused(where, f"{value[:40]!r} is not a valid value here")
        return value
    return check


def integer(lo: int, hi: int) -> Check:
    def check(value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer() and lo <= value <= hi:
                return int(value)
            raise Refused(where, f"{_kind(value)} where a whole number belongs")
        if not lo <= value <= hi:
            raise Refused(where, f"{value} is outside {lo}..{hi}")
        return value
    return check


def number(lo: float, hi: float) -> Check:
    def check(value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Refused(where, f"{_kind(value)} where a number belongs")
        if not math.isfinite(value):
            raise Refused(where, "not a finite number")
        if not lo <= value <= hi:
            raise Refused(where, f"{value:g} is outside {lo:g}..{hi:g}")
        return float(value)
    return check


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise Refused(where, f"{_kind(value)} where true or false belongs")
    return value


def nullable(check: Check) -> Check:
    return lambda value, where: None if value is None else check(value, where)


def list_of(check: Check, max_items: int = MAX_SEATS) -> Check:
    def checked(value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise Refused(where, f"{_kind(value)} where a list belongs")
        if len(value) > max_items:
            raise Refused(where, f"more than {max_items} items")
        return [check(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return checked


def plain(value: Any, where: str, depth: int = 4) -> Any:
    """Any small JSON value (an option's value, an event's field): finite numbers, short text, short lists."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return number(-1e15, 1e15)(value, where) if isinstance(value, float) else integer(-2**53, 2**53)(value, where)
    if isinstance(value, str):
        return text(2000)(value, where)
    if depth == 0:
        raise Refused(where, "nested too deep")
    if isinstance(value, list):
        return list_of(lambda v, w: plain(v, w, depth - 1), 256)(value, where)
    if isinstance(value, dict):
        if len(value) > 256:
            raise Refused(where, "more than 256 fields")
        return {k: plain(v, f"{where}.{k}", depth - 1) for k, v in value.items()}
    raise Refused(where, f"{_kind(value)} is not JSON")  # pragma: no cover - json gives nothing else


def counts(value: Any, where: str, max_items: int = 64) -> dict[str, int]:
    """An object of names to counts (a member's games by role)."""
    if not isinstance(value, dict) or len(value) > max_items:
        raise Refused(where, f"not an object of at most {max_items} counts")
    return {TOKEN(k, f"{where}.{k[:40]}"): integer(0, 10**6)(v, f"{where}.{k[:40]}") for k, v in value.items()}


def obj(value: Any, where: str, required: Mapping[str, Check], optional: Mapping[str, Check] | None = None
        ) -> dict[str, Any]:
    """An object with these fields (every required one, any optional one, no other), each checked."""
    if not isinstance(value, dict):
        raise Refused(where, f"{_kind(value)} where an object belongs")
    optional = optional or {}
    dot = f"{where}." if where else ""
    for name in value:
        if name not in required and name not in optional:
            raise Refused(f"{dot}{str(name)[:40]}", "an unknown field")
    out = {}
    for name, check in required.items():
        if name not in value:
            raise Refused(f"{dot}{name}", "missing")
        out[name] = check(value[name], f"{dot}{name}")
    for name, check in optional.items():
        if name in value:
            out[name] = check(value[name], f"{dot}{name}")
    return out


def moment(latest: float = LATEST_AT) -> Check:
    """A moment (seconds since 1970), finite and not after ``latest`` (at most the year 2100)."""
    latest = min(latest, LATEST_AT)

    def check(value: Any, where: str) -> float:
        try:
            return number(0.0, latest)(value, where)
        except Refused as exc:
            if "outside" not in exc.why:
                raise
            until = datetime.datetime.fromtimestamp(latest).strftime("%Y-%m-%d %H:%M")
            raise Refused(where, f"{value:g} is not a time from 1970 to {until}") from None
    return check


at_time = moment()


def date(latest: float) -> Check:
    """An evening's date ``YYYY-MM-DD``, a real one, not after the day of ``latest`` (a moment). Any year before
    is taken: a table whose clock was never set still played its games."""
    def check(value: Any, where: str) -> str:
        text(10, _DATE)(value, where)
        try:
            day = datetime.date.fromisoformat(value)
        except ValueError:
            raise Refused(where, f"{value!r} is not a date") from None
        if day > datetime.date.fromtimestamp(min(latest, LATEST_AT)):
            raise Refused(where, f"{value} is not an evening that can have been played yet")
        return value
    return check


TOKEN = text(48, _TOKEN)
NAME = text(80)
SEAT = integer(1, MAX_SEATS)


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
    "ejections": list_of(SEAT), "surrenders": list_of(SEAT)}


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
                    "seats": list_of(lambda v, w: obj(v, w, _RESULT_SEAT)), "minutes": number(0, 1e9)}

_STATUS_OPTIONAL = {
    "state": text(16, re.compile(r"^(idle|checkin|playing|ended)$")), "game": text(80), "names": list_of(NAME),
    "variant": NAME, "players": integer(1, MAX_SEATS), "phase": TOKEN, "gesture": TOKEN,
    "day": integer(0, 1000), "night": integer(0, 1000), "dead": list_of(SEAT), "speaker": SEAT,
    "candidate": SEAT, "seconds": number(0, 86400), "rate": number(0, 1e9), "winner": nullable(TOKEN),
    "reason": nullable(text(80)), "numbering": TOKEN, "out": nullable(plain), "tied": list_of(plain),
    "tally": list_of(list_of(plain, 8))}


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
        raise Refused(where, f"{_kind(value)} where an event belongs")
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


_BODIES: dict[str, Callable[[Any, str], Any]] = {"status": status_body, "result": result_body, "event": event_body,
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
