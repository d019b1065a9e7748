"""What a table tells the hall, worked out from outside the director (the club is built around the table).

The feed is handed to the director as its public board (a tee in front of the real big screen, if any), so it
sees exactly the facts the room may see (``controller/board/public.py``), and it follows ``director.events``
through :meth:`Event.public_view`: a secret event is never published, an event with a public part only that part
(004 §5.6, C4). It publishes through the :class:`~controller.ports.Publisher` port:

* ``status`` (retained) when the room's state changes: check-in, playing (variant, day, phase, who speaks and the
  seconds left), ended;
* ``event``: the public view of each event, numbered within the game (an undo says which number play went back
  to);
* ``result`` and ``record`` once, when the game ends: only then may sides and roles be told (C4).

The record is the club's own (``controller/club/record.py``): the dict the club database stores, built by the club's
pure :func:`~controller.club.record.build_record` from the game's journal, so the hall ranks the evening with the
club's scoring and a hall and a ``records`` command never disagree about a game.
"""

from __future__ import annotations

import bisect
import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller.club.record import GameRecord, build_record
from controller.club.words import words_pair
from controller.ports import Board, Publisher
from controller.rules.events import Event, GameCreated, to_json
from controller.rules.variant import Variant
from controller.screens.strings import own_words

#: Fields of the board's facts that are not the room's state (they change every second, or are told at the end).
_TICKING = ("seconds", "roles", "winner")


def variant_words(variant: Variant) -> list[str]:
    """The version's name, [zh, en], as its file gives it: the hall shows a club's own variant by these words (it
    never opens a variant file a message named), a built-in one by its own table. A variant file does not limit
    its name's length, the hall's door does: a longer name is cut, not refused with the room's status."""
    return words_pair((variant.name_zh, variant.name))


def seat_names(names: Sequence[str] | None, players: int) -> list[str]:
    """The players' names by seat; a seat without one is called by its number."""
    given = list(names or ())
    return [given[i] if i < len(given) and given[i] else f"#{i + 1}" for i in range(players)]


def public_event(event: Event) -> dict[str, Any] | None:
    """The JSON of an event's public view, or None when the room may know nothing of it.

    The set-up is told without its ``seed``: a digital deal is shuffled by that seed, so whoever had it could deal
    the cards again and know every role (``GameCreated.public_view`` keeps it). Its variant data is named, not
    copied (it is the variant file, and a kilobyte a game)."""
    view = event.public_view()
    if view is None:
        return None
    if isinstance(view, GameCreated):
        variant_id = view.variant.get("id") if isinstance(view.variant, dict) else None
        view = dataclasses.replace(view, variant={"id": variant_id}, seed=None)
    return to_json(view)


def club_record(director: Any, *, table: str, room: str,
                notes: Sequence[Mapping[str, Any]] = ()) -> GameRecord | None:
    """The club's record of ``director``'s finished game (None: not finished), by the club's pure function.

    From the table's journal when it keeps one: its events and the club's notes (who sat where, the game's
    length), which the club writes before the feed is told of the end (``controller/live.py``), so this is the
    record the club database holds. A table without a journal (a simulated room) gives its ``notes`` itself."""
    journal = getattr(director, "journal", None)
    replay = journal.replay() if journal is not None else None
    if journal is not None and replay is not None and replay.finished:
        return build_record(replay.events, replay.notes, table=table, journal_game=journal.game, room=room)
    return build_record(director.events, notes, table=table, journal_game=0, room=room)


class TableFeed:
    """One table's feed. ``rate`` is table seconds per wall second (1 at a real table; more when a simulated
    table plays fast), so a page can run a speech's countdown on its own between two messages.

    ``table`` and ``room`` are the club's names for this table and its room kind (``[club] table``, ``room``), as
    its records carry them; ``notes`` gives the club's notes of the game when the table keeps no journal."""

    def __init__(self, publisher: Publisher, game_id: Callable[[], str], *, names: Sequence[str] | None = None,
                 rate: float = 1.0, wall: Callable[[], float] = time.time, inner: Board | None = None,
                 table: str = "table-1", room: str = "standard",
                 notes: Callable[[], Sequence[Mapping[str, Any]]] = tuple) -> None:
        self.publisher = publisher
        self.table = table
        self.room = room
        self.notes = notes
        self.new_game_id = game_id
        self.names = list(names or ())
        self.rate = rate
        self.wall = wall
        self.inner = inner
        self.director: Any = None
        self.game = ""
        self.sent_events = 0
        #: Where each public event published for this game stands in the director's events.
        self.public_at: list[int] = []
        self.last_status: dict[str, object] | None = None
        self.projected: tuple[float, float] | None = None  # (seconds, wall time) of the last published countdown
        self.ended = False
        self.started_wall = 0.0

    # ---- before a game ----------------------------------------------------------------------------------------
    def idle(self) -> None:
        self._status({"state": "idle"})

    def checkin(self, names: Sequence[str] = ()) -> None:
        self._status({"state": "checkin", "names": list(names)})

    # ---- following a director -----------------------------------------------------------------------------------
    def attach(self, director: Any) -> None:
        """Follow ``director`` (call before it starts or resumes): its board is this feed from now on."""
        self.director = director
        self.game = self.new_game_id()
        self.sent_events = 0
        self.public_at = []
        self.ended = False
        self.last_status = None
        self.started_wall = self.wall()
        self.inner = self.inner if self.inner is not None else director.board
        director.board = self
        director.listeners.append(lambda d, _w: self._flush())
        director.on_over.append(lambda d: self._over())

    def show(self, public: Mapping[str, object]) -> None:
        """The :class:`~controller.ports.Board` port: the room's facts changed."""
        if self.inner is not None:
            self.inner.show(public)
        self._flush()
        if self.director is None or self.ended or public.get("gesture") == "over":
            return  # the end is told by _over, once
        state = self.director.state
        body: dict[str, object] = {k: v for k, v in public.items() if k not in _TICKING}
        body.update(game=self.game, state="checkin" if public.get("gesture") == "deal" else "playing",
                    variant=self.director.config.variant.id, variant_words=variant_words(self.director.config.variant),
                    players=self.director.config.players,
                    names=seat_names(self.names, self.director.config.players),
                    phase=state.phase if state is not None and state.roles else "deal")
        seconds = public.get("seconds")
        if isinstance(seconds, int | float):
            now = self.wall()
            drift = 0.0
            if self.projected is not None:
                drift = abs(self.projected[0] - (now - self.projected[1]) * self.rate - seconds)
            if body != self.last_status or drift > 2 * self.rate + 1:
                body.update(seconds=seconds, rate=self.rate)
                self.projected = (float(seconds), now)
                self._status(body)
            return
        self.projected = None
        if body != self.last_status:
            self._status(body)

    # ---- the end --------------------------------------------------------------------------------------------------
    def _over(self) -> None:
        self._flush()
        if self.ended:
            return
        self.ended = True
        d = self.director
        s = d.state
        if s is None or not s.over:
            self._status({"state": "ended", "game": self.game, "winner": None, "reason": "aborted"})
            return
        result = self.result()
        self.publisher.publish("result", result)
        record = self.record()
        if record is not None:
            self.publisher.publish("record", record)
        self._status({"state": "ended", "game": self.game, "winner": result["winner"], "reason": result["reason"],
                      "variant": result["variant"], "names": result["names"], "day": s.day, "night": s.night,
                      **{k: result[k] for k in ("variant_words", "winner_words") if k in result}})

    def result(self) -> dict[str, Any]:
        """The public result (C4: told at the end): who won, why, and each seat's player, side and fate."""
        d = self.director
        s = d.state
        names = seat_names(self.names, s.players)
        winner = s.winner or "draw"
        seats = [{"seat": n, "name": names[n - 1], "side": s.side_of(n), "alive": n in s.alive}
                 for n in range(1, s.players + 1)]
        own = own_words(d.config.variant, "sides", winner)
        return {"game": self.game, "variant": d.config.variant.id, "variant_words": variant_words(d.config.variant),
                **({"winner_words": words_pair(own)} if len(own) == 2 else {}),
                "players": s.players, "winner": winner,
                "reason": s.end_reason, "days": s.day, "nights": s.night, "names": names,
                "winners": [x["name"] for x in seats if winner != "draw" and x["side"] == winner],
                "seats": seats, "minutes": round((self.wall() - self.started_wall) * self.rate / 60, 1)}

    def record(self) -> dict[str, Any] | None:
        """The game's record for the club, as the club database stores it (``GameRecord.as_dict``); roles and
        deaths are in it, so it is told only at the end (C4). None while the game is not finished."""
        record = club_record(self.director, table=self.table, room=self.room, notes=self.notes())
        return record.as_dict() if record is not None else None

    # ---- events ---------------------------------------------------------------------------------------------------
    def _flush(self) -> None:
        """Publish the public view of each new event, numbered by this feed's own count of public events: the
        table's event number counts the night's secret events too, and its gaps would tell how many acted (a
        dead seat that was police). An undo says how many public events still stand, and only when some went."""
        d = self.director
        if d is None:
            return
        events = d.events
        if len(events) < self.sent_events:  # the judge undid an input: play went back
            self.sent_events = len(events)
            standing = bisect.bisect_left(self.public_at, len(events))
            if standing < len(self.public_at):
                del self.public_at[standing:]
                self.publisher.publish("event", {"game": self.game, "undo_to": standing})
        for n in range(self.sent_events, len(events)):
            view = public_event(events[n])
            if view is not None:
                self.publisher.publish("event", {"game": self.game, "n": len(self.public_at), "event": view})
                self.public_at.append(n)
        self.sent_events = len(events)

    def _status(self, body: dict[str, object]) -> None:
        body = dict(body, game=body.get("game", self.game))
        self.last_status = self._without_clock(body)
        self.publisher.publish("status", body)

    @staticmethod
    def _without_clock(body: Mapping[str, object] | None) -> dict[str, object] | None:
        if body is None:
            return None
        return {k: v for k, v in body.items() if k not in ("seconds", "rate")}
