"""The vocabulary of the hall's and the league's door (controller/hall/schema.py): small typed checks that each
take a value and where it is (``body.seats[2].card``) and give the value back or raise :class:`Refused`, naming the
field and why; and the readers' side: stored rows that no longer fit are left out, said once in the log.

Plain functions, no schema library: the messages are few and small, the ranges are ones a club can read, and the
Pi starts nothing more.
"""

from __future__ import annotations

import datetime
import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from controller.web import safejson

#: Times are seconds since 1970 up to the year 2100: ``datetime`` turns every one into a date on any platform.
LATEST_AT = 4_102_444_800.0
#: The most seats a table has (two card places at 32 physical seats, D2).
MAX_SEATS = 64
#: A sequence number fits a float exactly (the table's outbox counts from 1).
MAX_SEQ = 2**53
_TOKEN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,47}$")
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


def stored_json(text: Any, default: Any = None) -> Any:
    """A stored JSON column, or ``default`` when it is not JSON (the reader's check then leaves the row out)."""
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return default


def finite(value: Any, default: float = 0.0) -> float:
    """A stored number as a finite float (``default`` for anything else)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return default


# ---- the vocabulary --------------------------------------------------------------------------------------------
def kind_of(value: Any) -> str:
    """What a JSON value is, in words ("a list", "an object", "int")."""
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else \
        "null" if value is None else type(value).__name__


def text(max_len: int = 200, pattern: re.Pattern[str] | None = None) -> Check:
    def check(value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise Refused(where, f"{kind_of(value)} where text belongs")
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
            raise Refused(where, f"{kind_of(value)} where a whole number belongs")
        if not lo <= value <= hi:
            raise Refused(where, f"{value} is outside {lo}..{hi}")
        return value
    return check


def number(lo: float, hi: float) -> Check:
    def check(value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Refused(where, f"{kind_of(value)} where a number belongs")
        if not math.isfinite(value):
            raise Refused(where, "not a finite number")
        if not lo <= value <= hi:
            raise Refused(where, f"{value:g} is outside {lo:g}..{hi:g}")
        return float(value)
    return check


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise Refused(where, f"{kind_of(value)} where true or false belongs")
    return value


def nullable(check: Check) -> Check:
    return lambda value, where: None if value is None else check(value, where)


def list_of(check: Check, max_items: int = MAX_SEATS) -> Check:
    def checked(value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise Refused(where, f"{kind_of(value)} where a list belongs")
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
    raise Refused(where, f"{kind_of(value)} is not JSON")  # pragma: no cover - json gives nothing else


def counts(value: Any, where: str, max_items: int = 64) -> dict[str, int]:
    """An object of names to counts (a member's games by role)."""
    if not isinstance(value, dict) or len(value) > max_items:
        raise Refused(where, f"not an object of at most {max_items} counts")
    return {TOKEN(k, f"{where}.{k[:40]}"): integer(0, 10**6)(v, f"{where}.{k[:40]}") for k, v in value.items()}


def obj(value: Any, where: str, required: Mapping[str, Check], optional: Mapping[str, Check] | None = None
        ) -> dict[str, Any]:
    """An object with these fields (every required one, any optional one, no other), each checked."""
    if not isinstance(value, dict):
        raise Refused(where, f"{kind_of(value)} where an object belongs")
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
