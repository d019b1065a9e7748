"""What the hall (and any other reader) asks of the club, as JSON-able dicts.

    from controller.club.api import evening_standings, game_record
    evening_standings("var/club.sqlite")          # {"evening": "2026-12-01", "games": 6, "standings": [...]}
    game_record("var/club.sqlite", 3)             # the whole record of game 3, with each seat's points

Both take a path or an open :class:`~controller.club.store.ClubStore`, and a scoring table (default: the shipped
one; pass the club's own from ``load_club_settings``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.club.scoring import DEFAULT, ScoringTable, score
from controller.club.standings import standings
from controller.club.store import ClubStore, open_store


def _store(club: str | Path | ClubStore) -> tuple[ClubStore, bool]:
    return (club, False) if isinstance(club, ClubStore) else (open_store(club), True)


def evening_standings(club: str | Path | ClubStore, evening: str | None = None,
                      scoring: ScoringTable = DEFAULT) -> dict[str, Any]:
    """The evening's standings (default: the evening of the latest recorded game): rank, member, level,
    games, wins, points (game, time, penalty). Guests are not ranked."""
    from controller.club.service import Club

    store, mine = _store(club)
    try:
        evening = evening or store.latest_evening()
        games = store.games(evening=evening) if evening else []
        levels = Club(store, scoring=scoring).levels()
        return {"evening": evening, "games": len(games), "standings": standings(games, scoring, levels)}
    finally:
        if mine:
            store.close()


def game_record(club: str | Path | ClubStore, game_id: int, scoring: ScoringTable = DEFAULT) -> dict[str, Any]:
    """One game's record as a dict, each seat with its points (``seats[i]["points"]``)."""
    store, mine = _store(club)
    try:
        record = store.game(game_id)
        out = record.as_dict()
        points = {p.seat: p.as_dict() for p in score(record, scoring)}
        for seat in out["seats"]:
            seat["points"] = points[seat["seat"]]
        return out
    finally:
        if mine:
            store.close()
