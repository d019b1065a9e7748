"""The league service: takes what the clubs' bridges deliver to the league broker (each game once, by club and
uid), knows one person per member card across clubs, and ranks the league with the club's own pure scoring and
standings (controller/club/scoring.py, standings.py) over every club's records.

``receive`` is the whole of the logic and is synchronous (tests call it with messages); ``run_mqtt`` is the broker
side: a persistent session on the league broker's loopback listener, subscribed to every club at QoS 1.
"""

from __future__ import annotations

import asyncio
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
from controller.hall import checks, schema, topics
from controller.hall.league_feed import RECEIPT
from controller.hall.mqtt import CLIENT_LOG, BrokerAddress, first_of, keep_linked, seen
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


def _uid(msg: Any) -> str | None:
    """The game id of a refused record message, when it has a usable one (the receipt then lists it)."""
    record = msg.get("record") if isinstance(msg, dict) else None
    uid = record.get("uid") if isinstance(record, dict) else None
    return str(uid) if isinstance(uid, str | int) and not isinstance(uid, bool) and len(str(uid)) <= 80 else None


def _stored_game(row: Any, where: str) -> dict[str, Any]:
    """A game row as the store gives it back, held to the record's schema (a row kept before the league checked
    its input, or edited by hand, is left out of every page instead of failing it)."""
    checks.at_time(row["at"], f"{where}at")
    schema.record_body(row["record"], f"{where}record")
    return dict(row)


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
        """Take one message: ``taken``, ``copy`` (that club's game is in already) or ``rejected``: refused by the
        schema (controller/hall/schema.py) or by a fault of ours met while taking it; either way one line in the
        log naming the club and the field, the message in the quarantine, and a refused game's id in the club's
        next receipt, so its hall stops offering it. Raises only when the league's own store fails (the link then
        starts again: controller/hall/mqtt.py keep_linked)."""
        where = parse(topic)
        sender = f"club {where[0]}" if where is not None else "an unknown sender"
        msg: Any = None
        try:
            if where is None:
                raise checks.Refused("topic", "not a league topic (league/<club>/record|standings|bridge)")
            club, kind = where
            if kind == BRIDGE_STATE:
                state = {b"1": "up", b"0": "down"}.get(payload.strip())
                if state is None:
                    raise checks.Refused("message", f"bridge state {payload[:10]!r} is not 0 or 1")
                checked: Any = state
            else:
                msg = checks.parse(payload)
                checked = (schema.league_standings(msg, club, now=self.clock()) if kind == "standings"
                           else schema.league_record(msg, club, now=self.clock()))
        except checks.Refused as exc:
            return self._refuse(topic, sender, exc, payload, where[0] if where else None, _uid(msg))
        try:
            return self._take(club, kind, checked)
        except Exception as exc:  # a fault of ours met by this message: the next one is taken all the same
            return self._refuse(topic, sender, checks.Refused("(handling)", f"{type(exc).__name__}: {exc}"),
                                payload, club, _uid(msg), fault=True)

    def _take(self, club: str, kind: str, checked: Any) -> str:
        if kind == BRIDGE_STATE:
            self.store.set_bridge(club, checked, self.clock())
            self._changed()
            return "taken"
        if kind == "standings":
            evening, rows = checked
            self.store.set_club_standings(club, evening, rows, self.clock())
            self._changed()
            return "taken"
        msg, record = checked
        self.owed.add(club)
        self._wake.set()
        with self.store.transaction():
            if not self.store.add_game(club, record.uid, msg["room"], msg["at"], msg["evening"], msg["record"],
                                       self.clock()):
                self.counts.copies += 1
                return "copy"
            for seat in record.seats:
                if seat.member is not None:
                    self.store.identify(club, seat.member, seat.card)
        self.counts.taken += 1
        self._changed()
        return "taken"

    def _refuse(self, topic: str, sender: str, exc: checks.Refused, payload: bytes, club: str | None,
                uid: str | None, *, fault: bool = False) -> str:
        self.counts.rejected += 1
        (log.error if fault else log.warning)("league: refused a message from %s on %s: %s", sender, topic[:120],
                                              exc)
        self.store.keep_refused(self.clock(), sender, topic, exc.field, exc.why, payload, uid)
        if club is not None and uid is not None:
            self.owed.add(club)  # the receipt lists it: refused is an answer, the hall stops sending it
            self._wake.set()
        return "rejected"

    def receipt(self, club: str) -> dict[str, Any]:
        """What the league has of the club's recent games, and the ids of those it refused (the club's hall
        sends again what is not listed)."""
        since = self.clock() - RECEIPT_S
        taken = [g["uid"] for g in self.store.games(since, club)]
        return {"uids": taken + [u for u in self.store.quarantined_uids(f"club {club}", since) if u not in taken]}

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
        for g in self.games(since):
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

    def games(self, since: float | None = None) -> list[dict[str, Any]]:
        """The stored games that can be shown (:func:`_stored_game`), oldest first."""
        return checks.readable(self.store.games(since), _stored_game, "league: a stored game")

    def club_standings(self, club: str) -> tuple[str, list[dict[str, Any]]] | None:
        """The club's latest evening's standings, rows that cannot be shown left out; an evening after tomorrow
        (a row kept before the league checked its input) is not the latest."""
        tomorrow = datetime.date.fromtimestamp(min(self.clock(), checks.LATEST_AT) + 86400).isoformat()
        found = self.store.club_standings(club, until=tomorrow)
        if found is None:
            return None
        return found[0], checks.readable(found[1], schema.standing_row, f"league: a standings row of {club}")

    def standings(self, since: float | None = None) -> list[dict[str, Any]]:
        return standings(self.records(since), self.scoring)

    def snapshot(self) -> dict[str, Any]:
        now = self.clock()
        week = week_start(now)
        games = self.games()
        per_club = Counter(g["club"] for g in games)
        labels = self.labels()
        people_games: Counter[str] = Counter()
        for r in self.records():
            for s in r.seats:
                if s.member is not None:
                    people_games[s.member] += 1
        clubs = []
        for club, (bridge, since) in self.store.clubs().items():
            mine = self.club_standings(club)
            clubs.append({"club": club, "bridge": bridge, "since": since, "games": per_club.get(club, 0),
                          "evening": mine[0] if mine else None, "standings": mine[1] if mine else []})
        return {"now": now, "week_from": week, "clubs": clubs,
                "members": [{"id": p.id, "name": labels[p.id], "clubs": p.clubs, "cards": len(p.cards),
                             "games": people_games.get(labels[p.id], 0)} for p in self.store.people()],
                "standings": self.standings(), "week_standings": self.standings(week),
                "week": [{"club": g["club"], "room": g["room"], "at": g["at"], "uid": g["uid"],
                          "variant": g["record"].get("variant"), "players": g["record"].get("players"),
                          "winner": g["record"].get("winner"),
                          **{k: g["record"][k] for k in ("variant_words", "winner_words") if k in g["record"]}}
                         for g in games if g["at"] >= week][::-1],
                "connected": self.connected}

    def _changed(self) -> None:
        for cb in list(self.listeners):
            cb()

    # ---- the broker --------------------------------------------------------------------------------------------
    async def run_mqtt(self, broker: BrokerAddress, stop: asyncio.Event) -> None:
        """Subscribe to every club (persistent session, QoS 1), reconnecting for as long as it takes, and starting
        again after any fault (controller/hall/mqtt.py keep_linked); ``connected`` is true only while linked."""
        warned = False

        def down(why: str, fault: bool) -> None:
            nonlocal warned
            if not warned and not fault:
                log.warning("league: broker %s:%s unreachable (%s); retrying until it answers", broker.host,
                            broker.port, why)
                warned = True
            self._linked(False)

        async def connection() -> None:
            nonlocal warned
            import aiomqtt

            client = aiomqtt.Client(broker.host, broker.port, username=broker.username, password=broker.password,
                                    identifier="tianhei-league", clean_session=False, keepalive=5, timeout=5.0,
                                    logger=CLIENT_LOG)
            try:
                async with client:
                    for kind in KINDS:
                        await client.subscribe(f"{PREFIX}/+/{kind}", qos=1)
                    warned = False
                    self._linked(True)  # linked once the clubs' messages reach it
                    self.owed |= set(self.store.clubs())  # the receipts again (retained; a killed broker lost them)
                    self._wake.set()
                    await first_of(stop, self._messages(client), self._receipts(client, stop))
            finally:
                seen(client)
                self._linked(False)

        await keep_linked(connection, stop, who="league", down=down)
        self._linked(False)

    def _linked(self, up: bool) -> None:
        """``connected`` changes (the page's listeners hear it)."""
        if self.connected != up:
            self.connected = up
            self._changed()

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

    async def _messages(self, client: Any) -> None:
        async for message in client.messages:
            self.receive(str(message.topic), bytes(message.payload))
