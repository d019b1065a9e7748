"""The league service: takes what the clubs' bridges deliver to the league broker (each game once, by club and
uid), knows one person per member card across clubs, and ranks the league with the club's own pure scoring and
standings (controller/club/scoring.py, standings.py) over every club's records.

``receive`` is the whole of the logic and is synchronous (tests call it with messages); ``run_mqtt`` is the broker
side: a persistent session on the league broker's loopback listener, subscribed to every club at QoS 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from controller.club.record import GameRecord
from controller.club.scoring import DEFAULT, ScoringTable
from controller.club.standings import standings
from controller.hall import topics
from controller.hall.league_feed import RECEIPT
from controller.hall.mqtt import CLIENT_LOG, BrokerAddress, first_of, seen
from controller.league.bridge import BRIDGE_STATE, PREFIX
from controller.league.store import LeagueStore, card_key, member_key

log = logging.getLogger(__name__)
KINDS = ("record", "standings", BRIDGE_STATE)
#: A club's receipt lists its games of the last four days (the hall offers a record for three).
RECEIPT_S = 4 * 24 * 3600.0


@dataclass
class LeagueCounts:
    taken: int = 0
    copies: int = 0
    rejected: int = 0


def parse(topic: str) -> tuple[str, str] | None:
    """(club, kind) of a league topic ``league/<club>/<kind>``, or None."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != PREFIX or parts[2] not in KINDS:
        return None
    try:
        topics.check_name("club", parts[1])
    except topics.TopicError:
        return None
    return parts[1], parts[2]


def week_start(now: float) -> float:
    """Monday 00:00 (local time) of the week ``now`` is in: "the week's games" start there."""
    day = datetime.datetime.fromtimestamp(now).date()
    monday = day - datetime.timedelta(days=day.weekday())
    return datetime.datetime.combine(monday, datetime.time()).timestamp()


class LeagueService:
    def __init__(self, store: LeagueStore, *, scoring: ScoringTable = DEFAULT,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        #: The league's scoring table: the clubs' own format and functions ([club.scoring] of the league's toml).
        self.scoring = scoring
        self.clock = clock
        self.counts = LeagueCounts()
        self.connected = False
        self.listeners: list[Callable[[], None]] = []
        #: clubs whose receipt is owed (a game came in, new or a copy)
        self.owed: set[str] = set()
        self._wake = asyncio.Event()

    # ---- messages from the clubs' bridges ----------------------------------------------------------------------
    def receive(self, topic: str, payload: bytes) -> str:
        """Take one message: ``taken``, ``copy`` (that club's game is in already) or ``rejected`` (one line)."""
        where = parse(topic)
        try:
            if where is None:
                raise ValueError("not a league topic (league/<club>/record|standings|bridge)")
            club, kind = where
            if kind == BRIDGE_STATE:
                state = {b"1": "up", b"0": "down"}.get(payload.strip())
                if state is None:
                    raise ValueError(f"bridge state {payload[:10]!r} is not 0 or 1")
                self.store.set_bridge(club, state, self.clock())
                self._changed()
                return "taken"
            msg = json.loads(payload)
            if not isinstance(msg, dict):
                raise ValueError("not a JSON object")
            if kind == "standings":
                rows = msg["standings"]
                if not isinstance(rows, list):
                    raise ValueError("standings is not a list")
                self.store.set_club_standings(club, str(msg["evening"]), rows, self.clock())
                self._changed()
                return "taken"
            record = GameRecord.from_dict(msg["record"])  # the club's record, whole, or nothing of it is taken
            room, at, evening = str(msg["room"]), float(msg["at"]), str(msg["evening"])
        except (ValueError, KeyError, TypeError) as exc:
            self.counts.rejected += 1
            log.warning("league: message on %s dropped: %s", topic, exc)
            return "rejected"
        self.owed.add(club)
        self._wake.set()
        with self.store.transaction():
            if not self.store.add_game(club, record.uid, room, at, evening, msg["record"], self.clock()):
                self.counts.copies += 1
                return "copy"
            for seat in record.seats:
                if seat.member is not None:
                    self.store.identify(club, seat.member, seat.card)
        self.counts.taken += 1
        self._changed()
        return "taken"

    def receipt(self, club: str) -> dict[str, Any]:
        """What the league has of the club's recent games (the club's hall sends again what is not listed)."""
        return {"uids": [g["uid"] for g in self.store.games(self.clock() - RECEIPT_S, club)]}

    # ---- the league's view -------------------------------------------------------------------------------------
    def labels(self) -> dict[int, str]:
        """Person -> the name the league shows: their first name, with ``#id`` where two people share it."""
        people = self.store.people()
        names = Counter(p.name for p in people)
        return {p.id: p.name if names[p.name] == 1 else f"{p.name} #{p.id}" for p in people}

    def records(self, since: float | None = None) -> list[GameRecord]:
        """The clubs' records, each member seat named as the league's person (one per card across clubs)."""
        keys, labels = self.store.key_map(), self.labels()
        out = []
        for g in self.store.games(since):
            record = GameRecord.from_dict(g["record"])
            seats = []
            for s in record.seats:
                if s.member is not None:
                    person = keys.get(card_key(s.card)) if s.card else None
                    person = person or keys.get(member_key(g["club"], s.member))
                    s = replace(s, member=labels.get(person, s.member) if person else s.member)
                seats.append(s)
            out.append(replace(record, seats=tuple(seats)))
        return out

    def standings(self, since: float | None = None) -> list[dict[str, Any]]:
        return standings(self.records(since), self.scoring)

    def snapshot(self) -> dict[str, Any]:
        now = self.clock()
        week = week_start(now)
        games = self.store.games()
        per_club = Counter(g["club"] for g in games)
        labels = self.labels()
        people_games: Counter[str] = Counter()
        for r in self.records():
            for s in r.seats:
                if s.member is not None:
                    people_games[s.member] += 1
        clubs = []
        for club, (bridge, since) in self.store.clubs().items():
            mine = self.store.club_standings(club)
            clubs.append({"club": club, "bridge": bridge, "since": since, "games": per_club.get(club, 0),
                          "evening": mine[0] if mine else None, "standings": mine[1] if mine else []})
        return {"now": now, "week_from": week, "clubs": clubs,
                "members": [{"id": p.id, "name": labels[p.id], "clubs": p.clubs, "cards": len(p.cards),
                             "games": people_games.get(labels[p.id], 0)} for p in self.store.people()],
                "standings": self.standings(), "week_standings": self.standings(week),
                "week": [{"club": g["club"], "room": g["room"], "at": g["at"], "uid": g["uid"],
                          "variant": g["record"].get("variant"), "players": g["record"].get("players"),
                          "winner": g["record"].get("winner")} for g in games if g["at"] >= week][::-1],
                "connected": self.connected}

    def _changed(self) -> None:
        for cb in list(self.listeners):
            cb()

    # ---- the broker --------------------------------------------------------------------------------------------
    async def run_mqtt(self, broker: BrokerAddress, stop: asyncio.Event) -> None:
        """Subscribe to every club (persistent session, QoS 1), reconnecting for as long as it takes."""
        import aiomqtt

        pause = 0.2
        warned = False
        while not stop.is_set():
            client = aiomqtt.Client(broker.host, broker.port, username=broker.username, password=broker.password,
                                    identifier="tianhei-league", clean_session=False, keepalive=5, timeout=5.0,
                                    logger=CLIENT_LOG)
            try:
                async with client:
                    self.connected, warned, pause = True, False, 0.2
                    for kind in KINDS:
                        await client.subscribe(f"{PREFIX}/+/{kind}", qos=1)
                    self.owed |= set(self.store.clubs())  # the receipts again (retained; a killed broker lost them)
                    self._wake.set()
                    await first_of(stop, self._take(client), self._receipts(client, stop))
            except aiomqtt.MqttError as exc:
                seen(client)
                if not warned:
                    log.warning("league: broker %s:%s unreachable (%s); retrying until it answers", broker.host,
                                broker.port, exc)
                    warned = True
                self.connected = False
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), pause)
                pause = min(2.0, pause * 2)
        self.connected = False

    async def _receipts(self, client: Any, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(0.2)  # in batches
            await self._wake.wait()
            self._wake.clear()
            owed, self.owed = sorted(self.owed), set()
            try:
                for club in owed:
                    await client.publish(f"{PREFIX}/{club}/{RECEIPT}", json.dumps(self.receipt(club)), qos=1,
                                         retain=True)
            except BaseException:
                self.owed |= set(owed)
                raise

    async def _take(self, client: Any) -> None:
        async for message in client.messages:
            self.receive(str(message.topic), bytes(message.payload))
