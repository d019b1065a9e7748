"""The club as a table sees it: one object over the club database and the club's settings.

What the table asks of the club: who a member card belongs to and whether this room admits them (V2.13), the
V2.11 first-victim history of this table's recent games (by person, from the records), the check-in and end
notes in the journal, recording the games that ended, the evening's standings and the last game's points.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from controller.club import recorder, rooms
from controller.club.record import GameRecord
from controller.club.scoring import DEFAULT, ScoringTable, SeatPoints, score
from controller.club.standings import member_level, standings
from controller.club.store import ClubStore, Member, open_store
from controller.director.journal import SqliteJournal
from controller.rules.options import OPTIONS
from controller.rules.variant import Variant

#: How often the table's clock is noted in the journal while a game runs (what a restart may lose of its length).
TICK_S = 60.0


@dataclass(frozen=True)
class CardCheck:
    """A member card read at check-in: whose it is, their level, and why this room refuses them (None: it
    admits them)."""

    member: Member
    level: int
    refusal: str | None = None
    words: tuple[str, str] | None = None


class Club:
    def __init__(self, store: ClubStore, *, table: str = "table-1", room: str = "standard",
                 scoring: ScoringTable = DEFAULT, recruit_max_level: int = rooms.RECRUIT_MAX_LEVEL) -> None:
        if room not in rooms.ROOM_KINDS:
            raise ValueError(f"room kind {room!r} is not one of: {', '.join(rooms.ROOM_KINDS)}")
        self.store = store
        self.table = table
        self.room = room
        self.scoring = scoring
        self.recruit_max_level = recruit_max_level

    @classmethod
    def open(cls, path: str, **kwargs: Any) -> Club:
        return cls(open_store(path), **kwargs)

    def close(self) -> None:
        self.store.close()

    # ---- members ------------------------------------------------------------------------------------------
    def level(self, member: Member) -> int:
        return member_level(self.store.games(member=member.name), member.name, self.scoring,
                            member.base_level)[0]

    def levels(self) -> dict[str, int]:
        return {m.name: self.level(m) for m in self.store.members()}

    def card(self, uid: str) -> CardCheck | None:
        """The member whose card ``uid`` is (None: not a member card), with this room's verdict."""
        member = self.store.member_by_card(uid)
        if member is None:
            return None
        level = self.level(member)
        top = self.recruit_max_level
        return CardCheck(member, level, rooms.refusal(self.room, member.name, level, top),
                         rooms.refusal_words(self.room, level, top))

    # ---- the journal --------------------------------------------------------------------------------------
    def checkin(self, journal: SqliteJournal, members: Mapping[int, str | None], clock: float,
                variant: Variant | None = None) -> None:
        """The check-in note: who sits where, their cards, and ``variant``'s words for its sides (the game's
        record keeps them, so its winners are named as the version names them after the file is gone)."""
        cards = {}
        for seat, name in members.items():
            member = self.store.member(name) if name else None
            if member is not None and member.card:
                cards[seat] = member.card
        recorder.checkin_note(journal, members, table=self.table, room=self.room, clock=clock, cards=cards,
                              variant=variant)

    def follow(self, journal: SqliteJournal, scheduler: Any, *, resumed: bool,
               over: Callable[[], bool]) -> None:
        """While the game runs, note the table's clock once a minute (and now, if it resumed after a stop), so
        its length survives a restart (record.game_length)."""
        if resumed:
            recorder.resumed_note(journal, clock=scheduler.now())

        def tick() -> None:
            if over():
                return
            recorder.tick_note(journal, clock=scheduler.now())
            scheduler.call_at(scheduler.now() + TICK_S, tick)

        scheduler.call_at(scheduler.now() + TICK_S, tick)

    def game_over(self, journal: SqliteJournal, clock: float,
                  crash_point: recorder.CrashPoint | None = None) -> list[GameRecord]:
        """The game ended: its end note, then every finished game not yet recorded."""
        recorder.end_note(journal, clock=clock)
        return self.catch_up(journal, crash_point)

    def catch_up(self, journal: SqliteJournal, crash_point: recorder.CrashPoint | None = None) -> list[GameRecord]:
        return recorder.record_finished(self.store, journal, self.table, self.room, crash_point=crash_point)

    def history(self, seat_members: Mapping[int, str | None], players: int) -> tuple[int, ...]:
        """V2.11: the first-night victims of this table's latest games, oldest first, as seats of the game
        about to start. A member is followed by who they are (the seat they sit at now); a guest, whom the table
        cannot tell apart, by seat. Going back, the run stops at a game whose first kill night killed nobody, or
        whose victim is not at this table now (either breaks a run of repeats)."""
        most = int(OPTIONS["first_victim.max_repeat"].maximum or 0)
        seat_of = {name: seat for seat, name in seat_members.items() if name}
        out: list[int] = []
        for record in self.store.games(table=self.table, newest_first=True, limit=most):
            victim = record.first_victim
            if victim is None or victim > record.players:
                break
            name = record.seat(victim).member
            seat = seat_of.get(name) if name else (victim if victim <= players and not seat_members.get(victim)
                                                   else None)
            if seat is None:
                break
            out.append(seat)
        return tuple(reversed(out))

    # ---- between games ------------------------------------------------------------------------------------
    def evening_standings(self, evening: str | None = None) -> list[dict[str, Any]]:
        evening = evening or self.store.latest_evening()
        if evening is None:
            return []
        return standings(self.store.games(evening=evening), self.scoring, self.levels())

    def last_game_lines(self) -> tuple[Any, ...]:
        """The judge's remote between games: the last game's result, then each seat's member and points."""
        from controller.screens import views as v
        from controller.screens.strings import Lang, own_word, ui, winner_name

        record, points = self.last_points()
        if record is None:
            return ()
        # The words kept with the record first: a club's own board names its sides, and its file may be gone.
        said = {lang: ui("draw", lang) if record.winner == "draw" else (
            own_word(record.winner_words, lang) or winner_name(record.winner, lang, record.variant)) for lang in Lang}
        head = v.L10n(f"上局：{said[Lang.ZH]}", f"Last game: {said[Lang.EN]}")
        return (head, *(f"{p.seat} {p.member or '-'} {p.total:+g}" for p in points))

    def last_points(self) -> tuple[GameRecord | None, tuple[SeatPoints, ...]]:
        games = self.store.games(table=self.table, newest_first=True, limit=1)
        if not games:
            return None, ()
        return games[0], score(games[0], self.scoring)


def club_path(config: Any) -> str:
    """Where the config's club database is: [club] path, or club.sqlite beside the journal; "" for no club."""
    from pathlib import Path

    path = config.club.path
    return str(Path(config.journal.path).with_name("club.sqlite")) if path is None else str(path)


def club_from_config(config: Any) -> Club | None:
    """The club a table's configuration names ([club]); None when ``path`` is "" (no club)."""
    from controller.club.scoring import parse_scoring

    section = config.club
    path = club_path(config)
    if not path:
        return None
    scoring, _ = parse_scoring(section.scoring, section.levels)  # config check has reported its problems
    return Club.open(path, table=section.table, room=section.room, scoring=scoring,
                     recruit_max_level=section.recruit_max_level)
