"""Points and levels (V2.13, seed 000 「積分」): a pure function of a game's record and the club's scoring table.

The seeds say that club games earn game points and accumulated time points, that the entry game scores a little
differently, and that a "recruit camp" takes members of level 2 and below; they give no numbers. Tianhei ships the
documented default below (docs/club-records.md) and a club writes its own in ``[club.scoring]`` and
``[club.levels]`` of tianhei.toml; :func:`parse_scoring` checks it for ``tianhei config check``.

Decisions (the seeds are silent):
- the entry game is classic-1.0 (生推, V1) or any game in an ``entry`` room: it uses the ``entry`` table;
- a game in a ``training`` room earns time points only (training is practice);
- a result row is keyed by side (good, killers) and may name a role, which then wins over its side; a row a
  club writes replaces the default's row whole (so it must say what both sides score, or ``"*"``);
- an ejected player (V2.11 §5.14/§5.15) earns no result and no time points, and the ejection points;
- a player who surrendered (V2.11) earns what the losing side earns;
- each penalty point (V2.11 §5.4) costs ``penalty`` points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from controller.club.record import GameRecord, SeatRecord

RESULTS = ("win", "lose", "draw")
GAME_KINDS = ("standard", "entry")


@dataclass(frozen=True)
class ResultTable:
    """Points for a result: ``points[result][key]`` where key is a role name or a side; ``*`` is any player."""

    points: Mapping[str, Mapping[str, float]]

    def of(self, result: str, seat: SeatRecord) -> float:
        row = self.points.get(result, {})
        for key in (seat.role, seat.side, "*"):
            if key in row:
                return float(row[key])
        return 0.0


@dataclass(frozen=True)
class ScoringTable:
    standard: ResultTable
    entry: ResultTable
    #: Accumulated time points per minute played.
    time_per_minute: float = 0.1
    #: Points per penalty point (negative: a cost).
    penalty: float = -1.0
    #: Points for being ejected by the judge.
    ejected: float = -3.0
    #: Level k is reached at ``levels[k - 1]`` accumulated points (levels[0] is 0: everyone is level 1).
    levels: tuple[float, ...] = (0, 15, 50, 120, 250)


DEFAULT_TABLES: dict[str, dict[str, dict[str, float]]] = {
    # The standard game: the side that wins scores; a killer or police win counts more than a civilian's,
    # since they carried the side; a draw gives everyone a point.
    "standard": {"win": {"killer": 3, "police": 3, "*": 2}, "lose": {"*": 0}, "draw": {"*": 1}},
    # The entry game (1.0, blind push): everyone on the winning side scores the same, a little less.
    "entry": {"win": {"*": 2}, "lose": {"*": 0}, "draw": {"*": 1}},
}

DEFAULT = ScoringTable(standard=ResultTable(DEFAULT_TABLES["standard"]), entry=ResultTable(DEFAULT_TABLES["entry"]))


@dataclass(frozen=True)
class SeatPoints:
    """One seat's points for one game: ``game`` (the result), ``time``, ``penalty`` (<= 0 by default)."""

    seat: int
    member: str | None
    game: float = 0.0
    time: float = 0.0
    penalty: float = 0.0

    @property
    def total(self) -> float:
        return round(self.game + self.time + self.penalty, 2)

    def as_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "member": self.member, "game": self.game, "time": self.time,
                "penalty": self.penalty, "total": self.total}


def game_kind(record: GameRecord) -> str:
    return "entry" if record.variant.startswith("classic-") or record.room == "entry" else "standard"


def result_of(record: GameRecord, seat: SeatRecord) -> str:
    if record.winner not in ("good", "killers"):
        return "draw"
    return "win" if seat.side == record.winner else "lose"


def score(record: GameRecord, table: ScoringTable = DEFAULT) -> tuple[SeatPoints, ...]:
    """Every seat's points for this game. Pure (V2.13)."""
    results = table.entry if game_kind(record) == "entry" else table.standard
    out = []
    for seat in record.seats:
        ejected = seat.seat in record.ejections
        game = 0.0 if ejected or record.room == "training" else results.of(result_of(record, seat), seat)
        time = 0.0 if ejected else round(record.minutes * table.time_per_minute, 2)
        penalty = seat.penalties * table.penalty + (table.ejected if ejected else 0.0)
        out.append(SeatPoints(seat.seat, seat.member, round(game, 2), time, round(penalty, 2)))
    return tuple(out)


def level_for(points: float, table: ScoringTable = DEFAULT, floor: int = 1) -> int:
    """The level ``points`` reach by the club's thresholds; never below ``floor`` (a level the club gave)."""
    level = sum(1 for threshold in table.levels if points >= threshold)
    return max(level, floor, 1)


# ---- the club's own table: tianhei.toml [club.scoring] / [club.levels] ---------------------------------------

@dataclass
class _Problems:
    found: list[tuple[str, str, str]] = field(default_factory=list)

    def add(self, key: str, message: str, fix: str) -> None:
        self.found.append((key, message, fix))


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse_scoring(scoring: Mapping[str, Any], levels: Sequence[Any] | None = None,
                  roles: set[str] | None = None) -> tuple[ScoringTable, list[tuple[str, str, str]]]:
    """The club's table over the default, and every problem as (dotted key under club., message, fix).

    ``scoring`` is ``[club.scoring]``: ``standard`` and ``entry`` (each ``win``/``lose``/``draw`` = { side or
    role = points }), ``time_per_minute``, ``penalty``, ``ejected``. ``roles``: the role names a row may use."""
    p = _Problems()
    known = {"standard", "entry", "time_per_minute", "penalty", "ejected"}
    for key in scoring:
        if key not in known:
            p.add(f"scoring.{key}", f"unknown key {key!r}", f"use one of: {', '.join(sorted(known))}")
    tables: dict[str, ResultTable] = {}
    keys_ok = {"good", "killers", "*"} | (roles or set())
    for kind in GAME_KINDS:
        merged = {r: dict(DEFAULT_TABLES[kind][r]) for r in RESULTS}
        raw = scoring.get(kind, {})
        if not isinstance(raw, Mapping):
            p.add(f"scoring.{kind}", "must be a table", f"write [club.scoring.{kind}] with win/lose/draw rows")
            raw = {}
        for result, row in raw.items():
            where = f"scoring.{kind}.{result}"
            if result not in RESULTS:
                p.add(where, f"unknown result {result!r}", "use win, lose or draw")
                continue
            if not isinstance(row, Mapping):
                p.add(where, "must be a table of points", f'write {result} = {{ good = 2, killers = 3, "*" = 0 }}')
                continue
            missing = [side for side in ("good", "killers") if side not in row and "*" not in row]
            if missing:
                p.add(where, f"does not say what the {' and '.join(missing)} side scores (a row replaces the "
                             f"default's whole row)", f"add {missing[0]} = N, or \"*\" = N for everyone else")
            merged[result] = {}
            for who, points in row.items():
                if roles is not None and who not in keys_ok:
                    p.add(f"{where}.{who}", f"{who!r} is neither a side nor a role",
                          "use good, killers, \"*\" or a role name (tianhei variants)")
                elif not _number(points):
                    p.add(f"{where}.{who}", f"{points!r} is not a number", f"write {who} = 2")
                else:
                    merged[result][str(who)] = float(points)
        tables[kind] = ResultTable(merged)
    numbers: dict[str, float] = {}
    for key in ("time_per_minute", "penalty", "ejected"):
        if key in scoring:
            if _number(scoring[key]):
                numbers[key] = float(scoring[key])
            else:
                p.add(f"scoring.{key}", f"{scoring[key]!r} is not a number", f"write {key} = {getattr(DEFAULT, key)}")
    if numbers.get("time_per_minute", 0.0) < 0:
        p.add("scoring.time_per_minute", "time points cannot be negative", "use 0 or more")
        numbers.pop("time_per_minute")
    thresholds = DEFAULT.levels
    if levels is not None:
        if not isinstance(levels, Sequence) or isinstance(levels, str) or not all(_number(x) for x in levels):
            p.add("levels", f"{levels!r} is not a list of points", "write levels = [0, 15, 50, 120, 250]")
        elif not levels or levels[0] != 0 or any(b <= a for a, b in pairwise(levels)):
            p.add("levels", f"{list(levels)} must start at 0 and rise", "write levels = [0, 15, 50, 120, 250]")
        else:
            thresholds = tuple(float(x) for x in levels)
    table = ScoringTable(standard=tables["standard"], entry=tables["entry"], levels=thresholds, **numbers)
    return table, p.found
