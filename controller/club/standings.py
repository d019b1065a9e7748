"""Standings and a member's history: pure sums over records and the club's scoring table (V2.13)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.club.record import GameRecord
from controller.club.scoring import DEFAULT, ScoringTable, level_for, result_of, score


@dataclass
class Tally:
    """One member's sums over some games."""

    member: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    survived: int = 0
    game_points: float = 0.0
    time_points: float = 0.0
    penalty_points: float = 0.0
    wins_by_side: Counter[str] = field(default_factory=Counter)
    wins_by_role: Counter[str] = field(default_factory=Counter)
    games_by_role: Counter[str] = field(default_factory=Counter)

    @property
    def points(self) -> float:
        return round(self.game_points + self.time_points + self.penalty_points, 2)

    def as_dict(self) -> dict[str, Any]:
        return {"member": self.member, "games": self.games, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "survived": self.survived, "points": self.points,
                "game_points": round(self.game_points, 2), "time_points": round(self.time_points, 2),
                "penalty_points": round(self.penalty_points, 2), "wins_by_side": dict(self.wins_by_side),
                "wins_by_role": dict(self.wins_by_role), "games_by_role": dict(self.games_by_role)}


def tallies(records: Iterable[GameRecord], table: ScoringTable = DEFAULT) -> dict[str, Tally]:
    """Member name -> sums over ``records`` (guests are not counted)."""
    out: dict[str, Tally] = {}
    for record in records:
        points = {p.seat: p for p in score(record, table)}
        for seat in record.seats:
            if seat.member is None:
                continue
            t = out.setdefault(seat.member, Tally(seat.member))
            t.games += 1
            t.games_by_role[seat.role] += 1
            result = result_of(record, seat)
            if result == "win":
                t.wins += 1
                t.wins_by_side[seat.side] += 1
                t.wins_by_role[seat.role] += 1
            elif result == "lose":
                t.losses += 1
            else:
                t.draws += 1
            if seat.death is None:
                t.survived += 1
            p = points[seat.seat]
            t.game_points += p.game
            t.time_points += p.time
            t.penalty_points += p.penalty
    return out


def standings(records: Iterable[GameRecord], table: ScoringTable = DEFAULT,
              levels: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """The ranking over ``records``: points, then wins, then fewer games, then the name; JSON-able rows with the
    rank (equal points and wins share a rank) and, given ``levels`` (member -> level), each member's level."""
    rows = sorted(tallies(records, table).values(), key=lambda t: (-t.points, -t.wins, t.games, t.member))
    out: list[dict[str, Any]] = []
    for i, t in enumerate(rows):
        row = {k: v for k, v in t.as_dict().items() if not k.endswith("_by_side") and not k.endswith("_by_role")}
        prev = out[-1] if out else None
        row["rank"] = prev["rank"] if prev and (prev["points"], prev["wins"]) == (row["points"], row["wins"]) \
            else i + 1
        if levels is not None:
            row["level"] = levels.get(t.member, 1)
        out.append(row)
    return out


def member_level(records: Iterable[GameRecord], member: str, table: ScoringTable = DEFAULT,
                 floor: int = 1) -> tuple[int, float]:
    """(level, accumulated points) of ``member`` over all of their ``records``."""
    t = tallies(records, table).get(member)
    points = t.points if t is not None else 0.0
    return level_for(points, table, floor), points
