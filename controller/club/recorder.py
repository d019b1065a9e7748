"""From the journal to the club database: every finished game recorded exactly once.

The journal is the source. The table writes a check-in note into the game's journal records when the game is
dealt (who sits where, the room, the start) and an end note when it ends (its length on the table's clock);
:func:`record_finished` then records every finished game of the journal that the club does not have yet. It is
called when a game ends and again at every start (the catch-up), so a table killed at any moment (before,
during or after the club's transaction) records the game on its next start, and never twice (the game's uid is
UNIQUE in the club database). :func:`rebuild` writes a game's record again from the journal.
"""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from controller.club.record import (
    CLUB_END_NOTE,
    CLUB_NOTE,
    CLUB_RESUMED_NOTE,
    CLUB_TICK_NOTE,
    GameRecord,
    build_record,
)
from controller.club.store import ClubError, ClubStore, now_iso
from controller.club.words import SIDES_NOTE, side_words
from controller.director.journal import SqliteJournal
from controller.rules.variant import Variant

#: Called with (point, journal game) at each point of recording a game: a test hook for crashes.
CrashPoint = Callable[[str, int], None]

#: Tests set this to the name of a point in the recording (see :func:`env_crash_point`) to have the process
#: killed there with SIGKILL, as ``kill -9`` would.
CRASH_ENV = "TIANHEI_CLUB_CRASH_AT"


def env_crash_point() -> CrashPoint | None:
    """A crash point that kills this process (SIGKILL) at the point named by TIANHEI_CLUB_CRASH_AT, one of
    "before", "game written, seats not yet", "seats written, not committed", "after", optionally with the
    journal game: "seats written, not committed@3"."""
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return None
    name, _, game = wanted.partition("@")

    def crash(point: str, journal_game: int) -> None:
        if point == name and (not game or int(game) == journal_game):
            os.kill(os.getpid(), signal.SIGKILL)

    return crash


def checkin_note(journal: SqliteJournal, members: Mapping[int, str | None], *, table: str, room: str,
                 clock: float, cards: Mapping[int, str | None] | None = None,
                 variant: Variant | None = None) -> dict[str, Any]:
    """Write who sits where into the current game's journal records (call it once the game is dealt), with each
    member's card UID where the club knows it (a league tells one person by card across clubs), and the
    ``variant``'s words for its sides: the journal keeps no ``[words]``, and a hall or a league that has no copy
    of a club's own variant file shows its winners by these (controller/club/words.py)."""
    note: dict[str, Any] = {"uid": uuid.uuid4().hex, "table": table, "room": room, "started": now_iso(),
                            "clock": clock,
                            "members": {str(seat): name for seat, name in sorted(members.items()) if name}}
    if cards:
        note["cards"] = {str(seat): card for seat, card in sorted(cards.items()) if card and members.get(seat)}
    sides = side_words(variant) if variant is not None else {}
    if sides:
        note[SIDES_NOTE] = sides
    journal.note({CLUB_NOTE: note})
    return note


def tick_note(journal: SqliteJournal, *, clock: float) -> None:
    """The table's clock while the game runs (once a minute): what a stop would lose of the game's length."""
    journal.note({CLUB_TICK_NOTE: {"clock": clock}})


def resumed_note(journal: SqliteJournal, *, clock: float) -> None:
    """The game goes on after a stop, on a table clock that started again."""
    journal.note({CLUB_RESUMED_NOTE: {"clock": clock}})


def end_note(journal: SqliteJournal, *, clock: float) -> None:
    """The game's end on the table's clock (its length for time points)."""
    journal.note({CLUB_END_NOTE: {"clock": clock, "ended": now_iso()}})


def finished_records(journal: SqliteJournal, table: str, room: str = "standard") -> list[GameRecord]:
    """The record of every finished game in the journal, oldest first."""
    out = []
    for game in journal.games():
        replay = journal.replay(game)
        if replay is None or not replay.finished:
            continue
        record = build_record(replay.events, replay.notes, table=table, journal_game=game, room=room)
        if record is not None:
            out.append(record)
    return out


def record_finished(store: ClubStore, journal: SqliteJournal, table: str, room: str = "standard", *,
                    crash_point: CrashPoint | None = None) -> list[GameRecord]:
    """Record every finished game of ``journal`` that the club does not have; returns those recorded now."""
    recorded = []
    for record in finished_records(journal, table, room):
        if store.has_game(record.uid):
            continue
        game = record.journal_game
        if crash_point is not None:
            crash_point("before", game)
        gid = store.add_game(record, crash_point=_at_game(crash_point, game))
        if crash_point is not None:
            crash_point("after", game)
        if gid is not None:
            recorded.append(store.game(gid))
    return recorded


def _at_game(crash_point: CrashPoint | None, game: int) -> Callable[[str], None] | None:
    return None if crash_point is None else lambda point: crash_point(point, game)


def rebuild(store: ClubStore, journal: SqliteJournal, journal_game: int, table: str,
            room: str = "standard") -> GameRecord:
    """Write game ``journal_game``'s record again from the journal (replacing the club's copy, same id)."""
    replay = journal.replay(journal_game)
    if replay is None:
        raise ClubError(f"{journal.path}: no game {journal_game} in this journal (games: "
                        f"{', '.join(map(str, journal.games())) or 'none'})")
    record = build_record(replay.events, replay.notes, table=table, journal_game=journal_game, room=room)
    if record is None:
        raise ClubError(f"{journal.path}: game {journal_game} is not finished; only a finished game has a record")
    gid = store.add_game(record, replace=True)
    assert gid is not None
    return store.game(gid)
