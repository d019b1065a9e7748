"""Print a table journal's game as JSON (standard library only: it runs in the VM with Debian's python3, and
on the host for the uncut reference game). Read-only: the table may be writing to the journal meanwhile.

    python3 journal_dump.py JOURNAL [GAME]    ->  {"games": [...], "game": G, "records": [[kind, data], ...],
                                                   "counts": {...}, "integrity": "ok", "ended": bool}
"""

import json
import sqlite3
import sys


def main():
    path = sys.argv[1]
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    games = [g for (g,) in db.execute("SELECT DISTINCT game FROM records ORDER BY game")]
    game = int(sys.argv[2]) if len(sys.argv) > 2 else (games[0] if games else 0)
    rows = db.execute("SELECT kind, data FROM records WHERE game = ? ORDER BY seq", (game,)).fetchall()
    counts = {}
    for kind, _ in rows:
        counts[kind] = counts.get(kind, 0) + 1
    ended = any(kind == "event" and json.loads(data).get("type") == "game_ended" for kind, data in rows)
    integrity = db.execute("PRAGMA quick_check").fetchone()[0]
    print(json.dumps({"games": games, "game": game, "records": [[k, d] for k, d in rows], "counts": counts,
                      "integrity": integrity, "ended": ended}))


if __name__ == "__main__":
    main()
