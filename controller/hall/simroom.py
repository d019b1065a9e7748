"""A simulated table in a room of the club: the real director with bots on the virtual clock, its games back to
back, publishing through the same feed and publisher as a real table. ``tianhei club-demo`` and the benchmark
run several of these against one broker.

``speed`` is table seconds per wall second (``math.inf``: each game as fast as the machine plays it). Between
games the room takes in whoever the hall sent (``hall/rooms/R/sent``) and plays the variant the hall asked for.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.club.record import CLUB_END_NOTE, CLUB_NOTE
from controller.club.store import now_iso
from controller.club.words import SIDES_NOTE, side_words
from controller.director.timing import Timings
from controller.hall.feed import TableFeed
from controller.ports import Publisher
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sessions.session import Session


@dataclass
class PlayedGame:
    game: str
    variant: str
    players: int
    winner: str
    names: list[str]
    result: dict[str, Any]
    record: dict[str, Any] | None = None


@dataclass
class SimulatedRoom:
    room: str
    publisher: Publisher
    next_game_id: Callable[[], str]
    names: list[str]
    variant: str
    seats: int = 16
    seed: int = 1
    speed: float = math.inf
    min_players: int = 6
    between_s: float = 1.0
    #: Who the hall sent and the variant it asked for (``MqttPublisher.sent``), read before each game.
    plan: Callable[[], tuple[list[str], str]] = lambda: ([], "")
    played: list[PlayedGame] = field(default_factory=list)
    #: The room's kind for the club's scoring (an ``entry`` room's games score as entry games).
    kind: str = "standard"
    feed: TableFeed | None = None
    taken: set[str] = field(default_factory=set)
    #: The club's notes of the game being played (a simulated table keeps no journal): who sits where, its start.
    checkin: dict[str, Any] = field(default_factory=dict)
    session: Session | None = None
    #: Member name -> card UID, for the members whose cards the club knows (the check-in note carries them).
    cards: Mapping[str, str] = field(default_factory=dict)

    async def evening(self, games: int, stop: asyncio.Event | None = None) -> list[PlayedGame]:
        """Play ``games`` games (waiting first, while fewer than six people are in the room)."""
        self.feed = TableFeed(self.publisher, self.next_game_id, names=self.names,
                              rate=self.speed if math.isfinite(self.speed) else 1e6, table=f"room-{self.room}",
                              room=self.kind, notes=self._notes)
        self.feed.idle()
        while len(self.played) < games and not (stop and stop.is_set()):
            self._take_in()
            if len(self.names) < self.min_players:
                await asyncio.sleep(0.2)
                continue
            await self._play_one()
            await asyncio.sleep(self.between_s)
        return self.played

    def _notes(self) -> list[Mapping[str, Any]]:
        """The game's club notes as a club table's journal holds them at the end: the check-in, the end's clock."""
        assert self.session is not None
        return [{CLUB_NOTE: self.checkin}, {CLUB_END_NOTE: {"clock": self.session.clock.now(), "ended": now_iso()}}]

    def _take_in(self) -> None:
        members, variant = self.plan()
        for m in members:
            if m not in self.names and m not in self.taken and len(self.names) < self.seats:
                self.names.append(m)
                self.taken.add(m)
        if variant:
            self.variant = variant

    async def _play_one(self) -> None:
        assert self.feed is not None
        variant = load_variant(self.variant)
        rng = random.Random(f"{self.room}:{self.seed}:{len(self.played)}")
        names = list(self.names)
        rng.shuffle(names)  # a new seating every game
        config = configure(variant, len(names), {})
        session = Session(config, rng.randrange(1 << 30), "heuristic", timings=Timings())
        self.feed.names = names
        self.feed.attach(session.director)
        self.session = session
        clock = session.clock
        # what a club table notes in its journal at the deal (controller/club/recorder.py): members by seat
        self.checkin = {"uid": f"{self.room}:{self.feed.game}", "table": f"room-{self.room}", "room": self.kind,
                        "started": now_iso(), "clock": clock.now(),
                        "members": {str(seat): name for seat, name in enumerate(names, 1)}}
        cards = {str(seat): self.cards[name] for seat, name in enumerate(names, 1) if name in self.cards}
        if cards:
            self.checkin["cards"] = cards
        if side_words(variant):  # as a club table's check-in does: the record names the winners in them
            self.checkin[SIDES_NOTE] = side_words(variant)
        session.start()
        if math.isfinite(self.speed):
            tick = 0.1
            while session.director.stage != "over":
                started = time.monotonic()
                session.run(max_time=clock.now() + tick * self.speed)
                await asyncio.sleep(max(0.0, tick - (time.monotonic() - started)))
        else:
            while session.director.stage != "over":  # as fast as it goes, letting the loop breathe
                session.run(max_time=clock.now() + 60.0)
                await asyncio.sleep(0)
        state = session.director.state
        assert state is not None
        self.played.append(PlayedGame(self.feed.game, self.variant, len(names), state.winner or "draw", names,
                                      self.feed.result(), self.feed.record()))
