"""A finished game as the club keeps it, derived purely from the game's journal events and the club's
check-in note (who sat where, and the version's words for its sides: controller/club/words.py).

The journal is the source (DESIGN): :func:`build_record` is a pure function of what the journal holds, so a
record can always be rebuilt from it, and recording the same game twice gives the same record.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from controller.club.words import pair, record_words
from controller.rules.engine import fold
from controller.rules.events import Event, GameCreated, GameEnded, Penalised, to_json
from controller.rules.night import first_victim

#: The key a club check-in note carries in the journal (``journal.note({CLUB_NOTE: {...}})``).
CLUB_NOTE = "club"
#: The key of the note written when the game has ended (its length on the table's clock).
CLUB_END_NOTE = "club_end"
#: A note of the table's clock, written every minute while a game runs, and one when a game resumes after a stop:
#: the table's clock starts again from nothing after a restart, so a game's length is the sum of its segments.
CLUB_TICK_NOTE = "club_tick"
CLUB_RESUMED_NOTE = "club_resumed"


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    role: str
    side: str
    #: The member's name, or None for a guest.
    member: str | None = None
    #: 1 for the game's first death, 2 for the second, ...; None: alive at the end.
    death: int | None = None
    cause: str | None = None
    penalties: int = 0
    #: The member's card UID (normalised), where the table knew it: who the member is beyond this club (a league
    #: counts one person by card across clubs). None: a guest, or a member without a card.
    card: str | None = None


@dataclass(frozen=True)
class GameRecord:
    """Everything the club keeps of one game; JSON-able through :meth:`as_dict` (the hall publishes it)."""

    uid: str
    table: str
    journal_game: int
    variant: str
    options: Mapping[str, Any]
    players: int
    room: str
    started: str | None
    #: The game's length on the table's clock, in seconds (None: the journal does not say).
    length_s: float | None
    winner: str
    reason: str
    seats: tuple[SeatRecord, ...]
    #: (seat, cause) in the order the players died (V2.3's order): killed, executed, ejected, surrendered, ...
    deaths: tuple[tuple[int, str], ...] = ()
    #: (seat, penalty points after it) in order (V2.11 §5.4).
    penalties: tuple[tuple[int, int], ...] = ()
    ejections: tuple[int, ...] = ()
    surrenders: tuple[int, ...] = ()
    #: V2.11: the seat the killers killed on the first kill night (None: nobody died that night).
    first_victim: int | None = None
    #: The version's name and its name for the side that won, (zh, en), as the game had them (controller/club/
    #: words.py): a hall or a league shows a club's own variant by these. ``()``: none (a record kept before).
    variant_words: tuple[str, ...] = ()
    winner_words: tuple[str, ...] = ()
    id: int | None = field(default=None, compare=False)

    @property
    def minutes(self) -> float:
        return (self.length_s or 0.0) / 60.0

    def seat(self, n: int) -> SeatRecord:
        return self.seats[n - 1]

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["deaths"] = [{"seat": s, "cause": c} for s, c in self.deaths]
        out["penalties"] = [{"seat": s, "total": t} for s, t in self.penalties]
        out["ejections"] = list(self.ejections)
        out["surrenders"] = list(self.surrenders)
        out["options"] = dict(self.options)
        out["seats"] = [asdict(s) for s in self.seats]
        for key in ("variant_words", "winner_words"):  # none: left out, as a record kept before has them
            if out[key]:
                out[key] = list(out[key])
            else:
                del out[key]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], id: int | None = None) -> GameRecord:
        return cls(
            uid=str(data["uid"]), table=str(data["table"]), journal_game=int(data["journal_game"]),
            variant=str(data["variant"]), options=dict(data.get("options", {})), players=int(data["players"]),
            room=str(data.get("room", "standard")), started=data.get("started"), length_s=data.get("length_s"),
            winner=str(data["winner"]), reason=str(data.get("reason", "")),
            seats=tuple(SeatRecord(**s) for s in data["seats"]),
            deaths=tuple((int(d["seat"]), str(d["cause"])) for d in data.get("deaths", ())),
            penalties=tuple((int(p["seat"]), int(p["total"])) for p in data.get("penalties", ())),
            ejections=tuple(data.get("ejections", ())), surrenders=tuple(data.get("surrenders", ())),
            first_victim=data.get("first_victim"), variant_words=pair(data.get("variant_words")) or (),
            winner_words=pair(data.get("winner_words")) or (), id=id)


def club_note(notes: Sequence[Mapping[str, Any]], key: str = CLUB_NOTE) -> Mapping[str, Any]:
    """The game's last club note of that kind (a resumed game may carry the check-in twice; the last one wins)."""
    found: Mapping[str, Any] = {}
    for note in notes:
        value = note.get(key)
        if isinstance(value, Mapping):
            found = value
    return found


def game_length(notes: Sequence[Mapping[str, Any]]) -> float | None:
    """Seconds the game was played, on the table's clock, from the club's notes in journal order: from the
    check-in to the end, where each stop (a restart) counts up to the last tick before it (at most a minute
    lost); None without a check-in and an end."""
    total, start, last, ended = 0.0, None, None, False
    for note in notes:
        for key, value in note.items():
            if not isinstance(value, Mapping) or not isinstance(value.get("clock"), int | float):
                continue
            clock = float(value["clock"])
            if key == CLUB_NOTE:
                total, start, last = 0.0, clock, clock
            elif start is None:
                continue
            elif key == CLUB_TICK_NOTE:
                last = clock
            elif key == CLUB_RESUMED_NOTE:
                total += max(0.0, (last if last is not None else start) - start)
                start = last = clock
            elif key == CLUB_END_NOTE:
                total += max(0.0, clock - start)
                ended = True
                break
        if ended:
            break
    return round(total, 3) if ended else None


def game_uid(table: str, journal_game: int, events: Sequence[Event], note: Mapping[str, Any]) -> str:
    """The game's identity for "recorded exactly once": the id the check-in note gave it, or (a game played
    without the club) a digest of the table, the game number and its set-up and deal, which no other game
    shares."""
    if note.get("uid"):
        return str(note["uid"])
    head = json.dumps([table, journal_game, *(to_json(e) for e in events[:2])], sort_keys=True, default=str)
    return "j-" + hashlib.sha256(head.encode()).hexdigest()[:24]


def build_record(events: Sequence[Event], notes: Sequence[Mapping[str, Any]], *, table: str,
                 journal_game: int, room: str = "standard") -> GameRecord | None:
    """The record of a finished game (None while it is not finished). Pure: the same events and notes give
    the same record, whenever and however often it is built."""
    if not events or not isinstance(events[0], GameCreated) or not any(isinstance(e, GameEnded) for e in events):
        return None
    state = fold(events)
    note = club_note(notes)
    created = events[0]
    members: Mapping[str, Any] = note.get("members", {}) or {}
    cards: Mapping[str, Any] = note.get("cards", {}) or {}
    both = state.config.variant.live == "both"  # D2: two card places a physical seat; members sit at seats
    order = {seat: (i + 1, cause) for i, (seat, cause) in enumerate(state.dead)}
    penalties = tuple((e.seat, e.total) for e in events if isinstance(e, Penalised))
    seats = []
    for n in range(1, state.players + 1):
        physical = (n + 1) // 2 if both else n
        death = order.get(n)
        member = members.get(str(physical))
        card = cards.get(str(physical)) if member else None
        seats.append(SeatRecord(seat=n, role=state.role_of(n), side=state.side_of(n),
                                member=str(member) if member else None,
                                death=death[0] if death else None, cause=death[1] if death else None,
                                penalties=int(state.penalties.get(n, 0)), card=str(card) if card else None))
    started = note.get("started")
    length = game_length(notes)
    winner = state.winner or "draw"
    variant_words, winner_words = record_words(state.config.variant, winner, note)
    return GameRecord(
        uid=game_uid(table, journal_game, events, note), table=str(note.get("table", table)),
        journal_game=journal_game, variant=state.config.variant.id, options=dict(created.options),
        players=state.players, room=str(note.get("room", room)), started=str(started) if started else None,
        length_s=length,
        winner=winner, reason=state.end_reason, seats=tuple(seats), deaths=tuple(state.dead),
        penalties=penalties, ejections=tuple(s for s, c in state.dead if c == "ejected"),
        surrenders=tuple(s for s, c in state.dead if c == "surrendered"), first_victim=first_victim(events),
        variant_words=variant_words, winner_words=winner_words)
