"""``records export --csv DIR``: games, seats and members as three CSV files a spreadsheet opens.

UTF-8 with a byte-order mark, so a spreadsheet shows Chinese names right; one row per game, per seat of a game,
per member; points from the club's scoring table (pure, scoring.py).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from controller.club.scoring import ScoringTable, score
from controller.club.service import Club
from controller.club.standings import tallies

GAME_COLUMNS = ("game", "table", "journal_game", "started", "room", "variant", "players", "minutes",
                "winner", "reason", "deaths", "penalties", "ejections", "surrenders", "first_victim", "options")
SEAT_COLUMNS = ("game", "seat", "member", "role", "side", "result", "death", "cause", "penalties", "game_points",
                "time_points", "penalty_points", "points")
MEMBER_COLUMNS = ("member", "card", "level", "games", "wins", "losses", "draws", "survived", "game_points",
                  "time_points", "penalty_points", "points")


def export_csv(club: Club, out: Path, scoring: ScoringTable | None = None) -> list[Path]:
    scoring = scoring or club.scoring
    out.mkdir(parents=True, exist_ok=True)
    games = club.store.games()
    paths = [out / "games.csv", out / "seats.csv", out / "members.csv"]
    from controller.club.scoring import result_of

    with paths[0].open("w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f)
        w.writerow(GAME_COLUMNS)
        for g in games:
            w.writerow((g.id, g.table, g.journal_game, g.started or "", g.room, g.variant, g.players,
                        round(g.minutes, 1), g.winner, g.reason, " ".join(f"{s}:{c}" for s, c in g.deaths),
                        " ".join(f"{s}:{t}" for s, t in g.penalties), " ".join(map(str, g.ejections)),
                        " ".join(map(str, g.surrenders)), g.first_victim or "",
                        json.dumps(dict(g.options), ensure_ascii=False, sort_keys=True)))
    with paths[1].open("w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f)
        w.writerow(SEAT_COLUMNS)
        for g in games:
            points = {p.seat: p for p in score(g, scoring)}
            for s in g.seats:
                p = points[s.seat]
                w.writerow((g.id, s.seat, s.member or "", s.role, s.side, result_of(g, s), s.death or "",
                            s.cause or "", s.penalties, p.game, p.time, p.penalty, p.total))
    sums = tallies(games, scoring)
    with paths[2].open("w", newline="", encoding="utf-8-sig") as f:
        w = csv.writer(f)
        w.writerow(MEMBER_COLUMNS)
        for m in club.store.members():
            t = sums.get(m.name)
            row = t.as_dict() if t else {}
            w.writerow((m.name, m.card or "", club.level(m), *(row.get(k, 0) for k in MEMBER_COLUMNS[3:])))
    return paths
