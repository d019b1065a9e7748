"""The hall service: takes every room's messages (each once), keeps the rooms' state, the results and the
standings, the waiting list and the proposals, says when a room's game ends, and sends receipts back.

``receive`` is the whole of the logic and is synchronous (tests call it with messages); ``run_mqtt`` is the
broker side: a persistent session subscribed to every room at QoS 1, receipts and room lists published back.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.club.scoring import DEFAULT, ScoringTable
from controller.club.standings import standings
from controller.hall import checks, league_feed, schema, topics
from controller.hall.announce import Announcer, game_over_text
from controller.hall.mqtt import CLIENT_LOG, BrokerAddress, LinkStats, first_of, keep_linked, seen
from controller.hall.quarantine import Quarantined
from controller.hall.store import HallStore
from controller.hall.waiting import Proposal, Room, next_variant, propose

log = logging.getLogger(__name__)

#: A club's evening runs from noon to noon the next day (local time): a game after midnight is still tonight's.
EVENING_STARTS_HOUR = 12


@dataclass(frozen=True, slots=True)
class RoomConfig:
    """A room of the club (``[hall] rooms``): its id (the topic segment, "3"), seats and kind."""

    id: str
    seats: int = 16
    kind: str = "standard"


@dataclass
class HallCounts:
    taken: int = 0
    copies: int = 0
    rejected: int = 0
    late_status: int = 0
    #: Seconds from a result's writing at its table to its taking here, one per result.
    result_delays: list[float] = field(default_factory=list)


def evening_of(at: float) -> str:
    t = datetime.datetime.fromtimestamp(at) - datetime.timedelta(hours=EVENING_STARTS_HOUR)
    return t.date().isoformat()


class HallError(ValueError):
    """The organiser asked for something that cannot be (the message says why)."""


class HallService:
    def __init__(self, store: HallStore, club: str, rooms: Sequence[RoomConfig], *,
                 announcer: Announcer | None = None, auto_send: bool = False, default_variant: str = "standard-2.0",
                 clock: Callable[[], float] = time.time, scoring: ScoringTable = DEFAULT) -> None:
        self.store = store
        #: The club's scoring table ([club.scoring]): the hall ranks the evening as the club's records do.
        self.scoring = scoring
        self.club = topics.check_name("club", club)
        self.rooms = {r.id: r for r in rooms}
        for r in rooms:
            topics.check_name("room", r.id)
        self.announcer = announcer
        self.auto_send = auto_send
        self.default_variant = default_variant
        self.clock = clock
        self.counts = HallCounts()
        self.link = LinkStats()
        self.connected = False
        self.listeners: list[Callable[[], None]] = []
        #: receipts and room lists to publish: topic -> body (retained, the latest wins)
        self.outgoing: dict[str, dict[str, Any]] = {}
        #: (room, epoch) whose receipt changed since it was last sent (worked out when the batch goes: receipts()).
        self.owed: set[tuple[str, str]] = set()
        self._wake = asyncio.Event()
        self.banners: list[dict[str, Any]] = []
        self.events: dict[str, int] = {}
        #: the records for the league (through the broker's bridge) until its receipt lists them
        #: (controller/hall/league_feed.py)
        self.league = league_feed.Ledger(self.club)
        self.league.load(store, clock())

    # ---- messages from the rooms -------------------------------------------------------------------------------
    def receive(self, topic: str, payload: bytes) -> str:
        """Take one message: ``taken``, ``copy`` (its id was taken before) or ``rejected``: refused by the schema
        (controller/hall/schema.py) or by a fault of ours met while taking it; either way one line in the log, the
        message in the quarantine, and its id acknowledged so its table stops sending it. Raises only when the
        hall's own store fails (the link then starts again: controller/hall/mqtt.py keep_linked)."""
        where = topics.parse(topic)
        ours = where is not None and where[0] == self.club
        sender = f"room {where[1]}" if where is not None and ours else "an unknown sender"
        msg: Any = None
        try:
            if where is None or not ours:
                raise checks.Refused("topic", f"not a room topic of club {self.club!r}")
            msg = checks.parse(payload)
            data = schema.table_message(msg, where[1], where[2])
        except checks.Refused as exc:
            return self._refuse(topic, sender, exc, payload, where[1] if where and ours else None,
                                schema.message_id(msg, payload))
        try:
            return self._take_message(where[1], where[2], data)
        except Exception as exc:  # a fault of ours met by this message: the next one is taken all the same
            return self._refuse(topic, sender, checks.Refused("(handling)", f"{type(exc).__name__}: {exc}"),
                                payload, where[1], schema.message_id(msg), fault=True)

    def retake(self, q: Quarantined) -> tuple[str, str]:
        """Take a quarantined message again (``tianhei hall quarantine retake``), after an upgrade whose door
        would accept it: checked by today's schema; what passes is applied exactly once (a result or a record by
        its game id: one already stored is not stored again) and leaves the quarantine; what fails stays, with
        today's reason. Returns (``taken`` | ``had`` | ``refused``, what to tell). Its id was acknowledged when it
        was refused, so the table does not send it again; nothing is announced aloud for a game long over."""
        where = topics.parse(q.topic)
        payload = q.payload.encode("utf-8")
        try:
            if where is None or where[0] != self.club:
                raise checks.Refused("topic", f"not a room topic of club {self.club!r}")
            data = schema.table_message(checks.parse(payload), where[1], where[2])
        except checks.Refused as exc:
            with self.store.transaction():
                self.store.refused_again(q.digest, exc.field, exc.why)
            return "refused", f"{exc.field}: {exc.why}"
        room, kind, body = where[1], where[2], data["body"]
        game = str(body.get("uid" if kind == "record" else "game", ""))
        with self.store.transaction():
            had = kind in ("result", "record") and self.store.holds(kind, game)
            if not had:
                self._apply(room, kind, data["epoch"], data["seq"], data.get("at", self.clock()), body)
            self.store.take_out(q.digest)
        if not had:
            self.counts.taken += 1
            self._changed()
        what = f"room {room}'s {kind}" + (f" of game {game}" if game else "")
        return ("had", f"{what} was stored already: left as it is") if had else ("taken", f"{what} taken")

    def _take_message(self, room: str, kind: str, msg: dict[str, Any]) -> str:
        epoch, seq, body = msg["epoch"], msg["seq"], msg["body"]
        at = msg.get("at", self.clock())
        announce = False
        with self.store.transaction():
            if not self.store.take(room, epoch, seq, self.clock()):
                self.counts.copies += 1
                outcome = "copy"
            else:
                self.counts.taken += 1
                outcome = "taken"
                announce = self._apply(room, kind, epoch, seq, at, body)
        self.owed.add((room, epoch))
        if announce:
            self._announce(room, str(body.get("game", "")))
        if outcome == "taken":
            if self.auto_send:
                self._auto_send()
            self._changed()
        self._wake.set()
        return outcome

    def _refuse(self, topic: str, sender: str, exc: checks.Refused, payload: bytes, room: str | None,
                msg_id: tuple[str, int] | None, *, fault: bool = False) -> str:
        """One line naming the sender and the field, the message kept in the quarantine, and its id taken (when
        it has a usable one) so the receipt covers it."""
        self.counts.rejected += 1
        (log.error if fault else log.warning)("hall: refused a message from %s on %s: %s", sender, topic[:120], exc)
        with self.store.transaction():
            self.store.keep_refused(self.clock(), sender, topic, exc.field, exc.why, payload)
            if room is not None and msg_id is not None:
                self.store.take(room, msg_id[0], msg_id[1], self.clock())
        if room is not None and msg_id is not None:
            self.owed.add((room, msg_id[0]))
            self._wake.set()
        return "rejected"

    def receipts(self) -> dict[str, dict[str, Any]]:
        """What goes out next: the room lists and a receipt for each room heard from since the last batch."""
        for room, epoch in sorted(self.owed):
            upto, top, missing = self.store.receipt(room, epoch)
            self.outgoing[topics.hall_topic(self.club, room, "ack")] = {"epoch": epoch, "seq": upto, "top": top,
                                                                        "missing": missing}
        self.owed.clear()
        return self.outgoing

    def _apply(self, room: str, kind: str, epoch: str, seq: int, at: float, body: dict[str, Any]) -> bool:
        if kind == "event":  # the hall shows only how many; the events themselves are for whoever replays a game
            self.events[room] = self.events.get(room, 0) + 1
            return False
        info = self.store.room(room)
        if kind == "status":
            order = f"{epoch}:{seq:012d}"
            if info["status_seq"][:len(epoch)] == epoch and info["status_seq"] > order:
                self.counts.late_status += 1  # a resent old status: the room has moved on
                return False
            fields: dict[str, Any] = {"status": dict(body), "status_seq": order, "at": at}
            old = info["status"]
            if body.get("state") in ("checkin", "playing") and body.get("game") != old.get("game"):
                fields["sent"] = []  # those sent are in the new game now
                fields["next_variant"] = ""
                self._queue_sent(room, [], "")
            if body.get("names"):
                fields["players"] = [n for n in body["names"] if not str(n).startswith("#")] or body["names"]
            self.store.update_room(room, **fields)
        elif kind == "result":
            game = str(body.get("game", ""))
            if game and self.store.add_result(game, room, evening_of(at), at, body, self.clock()):
                self.counts.result_delays.append(max(0.0, self.clock() - at))
                return self.store.announce_once(game, room, self.clock())
        elif kind == "record" and self.store.add_record(str(body["uid"]), room, evening_of(at), at, body):
            self.league.add(room, at, evening_of(at), body, self.clock())
            self._queue_standings(evening_of(at))
        return False

    def _queue_standings(self, evening: str) -> None:
        """The evening's standings for the league (retained: the latest wins)."""
        self.outgoing[league_feed.topic(self.club, "standings")] = {
            "club": self.club, "evening": evening, "standings": self.standings(evening)}

    def _announce(self, room: str, game: str) -> None:
        self.banners = [b for b in self.banners if b["room"] != room][-4:]
        self.banners.append({"room": room, "game": game, "at": self.clock(),
                             "zh": game_over_text(room, "zh"), "en": game_over_text(room, "en")})
        if self.announcer is not None:
            self.announcer.game_over(room)

    # ---- the waiting list ----------------------------------------------------------------------------------------
    def add_waiting(self, name: str, how: str = "page") -> None:
        name = " ".join(name.split())
        if not name or len(name) > 40:
            raise HallError("a name is 1 to 40 characters")
        if any(name in self.store.room(r)["sent"] for r in self.room_ids()):
            raise HallError(f"{name} was already sent to a room")
        if not self.store.add_waiting(name, self.clock(), how):
            raise HallError(f"{name} is already waiting")
        if self.auto_send:
            self._auto_send()
        self._changed()

    def remove_waiting(self, name: str) -> None:
        if not self.store.remove_waiting(name):
            raise HallError(f"{name} is not on the waiting list")
        self._changed()

    def room_ids(self) -> list[str]:
        return sorted(set(self.rooms) | set(self.store.rooms()), key=lambda r: (len(r), r))

    def room_views(self) -> list[Room]:
        out = []
        for rid in self.room_ids():
            cfg = self.rooms.get(rid, RoomConfig(rid))
            info = self.store.room(rid)
            status = info["status"]
            out.append(Room(rid, cfg.seats, cfg.kind, str(status.get("state", "idle")), tuple(info["players"]),
                            tuple(info["sent"]), str(status.get("variant", "")), info["next_variant"]))
        return out

    def proposals(self) -> list[Proposal]:
        return propose([n for n, _ in self.store.waiting()], self.room_views())

    def send(self, key: str) -> Proposal:
        """Carry out a proposal (the organiser's "send" on the page): members leave the list for the room."""
        found = next((p for p in self.proposals() if p.key() == key), None)
        if found is None:
            raise HallError("that proposal is no longer open (the list changed); look again")
        self._carry_out(found)
        self._changed()
        return found

    def _carry_out(self, p: Proposal) -> None:
        with self.store.transaction():
            info = self.store.room(p.room)
            sent = [*info["sent"], *(m for m in p.members if m not in info["sent"])]
            for m in p.members:
                self.store.remove_waiting(m)
            nxt = p.variant or info["next_variant"]
            if p.kind == "open_entry":
                self.store.update_room(p.room, players=[])
            self.store.update_room(p.room, sent=sent, next_variant=nxt)
        view = next(r for r in self.room_views() if r.id == p.room)
        self._queue_sent(p.room, sent, next_variant(view, self.default_variant) if nxt else "")

    def _auto_send(self) -> None:
        for _ in range(10):
            open_ = self.proposals()
            if not open_:
                return
            self._carry_out(open_[0])

    def _queue_sent(self, room: str, members: list[str], variant: str) -> None:
        self.outgoing[topics.hall_topic(self.club, room, "sent")] = {"members": members, "variant": variant}
        self._wake.set()

    # ---- what the page shows -----------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        now = self.clock()
        evening = evening_of(now)
        results = checks.readable(self.store.results(evening), schema.stored_result, "hall: a stored result")
        rooms = []
        for view in self.room_views():
            info = self.store.room(view.id)
            last = next((r for r in reversed(results) if r["room"] == view.id), None)
            rooms.append({"id": view.id, "kind": view.kind, "seats": view.seats,
                          "status": (checks.readable([info["status"]], schema.status_body, "hall: a stored status")
                                     or [{}])[0], "at": checks.finite(info["at"]), "sent": info["sent"], "next_variant": info["next_variant"],
                          "players": info["players"], "events": self.events.get(view.id, 0),
                          "last": {k: last.get(k) for k in ("winner", "reason", "days", "game", "winners", "variant",
                                                            "variant_words", "winner_words")}
                          if last else None})
        return {"club": self.club, "now": now, "evening": evening, "rooms": rooms,
                "waiting": [{"name": n, "since": s} for n, s in self.store.waiting()],
                "proposals": [{"key": p.key(), "kind": p.kind, "room": p.room, "members": list(p.members),
                               "variant": p.variant} for p in self.proposals()],
                "standings": self.standings(evening),
                "results": [{k: r.get(k) for k in ("room", "game", "winner", "reason", "days", "variant", "at",
                                                   "variant_words", "winner_words")}
                            for r in results[-8:]][::-1],
                "banners": [b for b in self.banners if now - b["at"] < 120],
                "connected": self.connected}

    def standings(self, evening: str) -> list[dict[str, Any]]:
        """The evening's standings from the club records the tables sent, by the club's own pure scoring and
        ranking (``controller/club/standings.py``) and the club's scoring table; guests are not ranked. (Levels
        need every game a member ever played, which the club database has and the hall does not: not shown.)
        A stored record that does not fit the schema (kept before the hall checked them) is left out."""
        return standings(checks.readable(self.store.records(evening), schema.record_body, "hall: a stored record"),
                         self.scoring)

    def _changed(self) -> None:
        for cb in list(self.listeners):
            cb()

    # ---- the broker ----------------------------------------------------------------------------------------------
    async def run_mqtt(self, broker: BrokerAddress, stop: asyncio.Event) -> None:
        """Subscribe to every room (persistent session, QoS 1) and publish receipts and room lists, reconnecting
        for as long as it takes, and starting again after any fault (controller/hall/mqtt.py keep_linked)."""
        await keep_linked(lambda: self._connection(broker, stop), stop, who="hall",
                          down=lambda why, fault: self._link(False, why, quiet=fault))
        self._link(False, "stopped")

    async def _connection(self, broker: BrokerAddress, stop: asyncio.Event) -> None:
        import aiomqtt

        client = aiomqtt.Client(broker.host, broker.port, username=broker.username, password=broker.password,
                                identifier=f"tianhei-{self.club}-hall", clean_session=False, keepalive=5,
                                timeout=5.0, logger=CLIENT_LOG, tls_params=broker.tls_params())
        try:
            async with client:
                for t in topics.room_subscriptions(self.club):
                    await client.subscribe(t, qos=1)
                self._link(True)  # linked once the rooms' messages reach it
                for view in self.room_views():  # the room lists again (retained; idempotent)
                    self._queue_sent(view.id, list(view.sent), view.next_variant)
                # what the league has not confirmed goes again soon: a broker killed while its bridge was
                # down lost the bridge's queue with it (the league takes each game once)
                await client.subscribe(league_feed.topic(self.club, league_feed.RECEIPT), qos=1)
                self.league.connected(self.clock())
                self._queue_standings(evening_of(self.clock()))
                await first_of(stop, self._take(client), self._publish(client, stop), self._to_league(client, stop))
        finally:
            seen(client)

    async def _take(self, client: Any) -> None:
        receipt = league_feed.topic(self.club, league_feed.RECEIPT)
        async for message in client.messages:
            if str(message.topic) == receipt:
                try:
                    self.league.receipt(bytes(message.payload))
                except Exception as exc:  # refused by the schema, or a fault: this receipt only
                    log.warning("hall: the league's receipt refused (%s)", exc)
                continue
            self.receive(str(message.topic), bytes(message.payload))

    async def _to_league(self, client: Any, stop: asyncio.Event) -> None:
        """Records for the league, as they come due (once, then again until the league's receipt lists them)."""
        while not stop.is_set():
            for topic, body in self.league.due(self.clock()):
                await client.publish(topic, json.dumps(body, ensure_ascii=False), qos=1, retain=False)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)

    async def _publish(self, client: Any, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(0.1)  # receipts go out in batches
            await self._wake.wait()
            self._wake.clear()
            out, self.outgoing = self.receipts(), {}
            # what is acknowledged is on the disk first (synced in a thread: messages keep being taken meanwhile)
            await asyncio.to_thread(self.store.sync)
            try:
                for topic, body in out.items():
                    await client.publish(topic, json.dumps(body, ensure_ascii=False), qos=1, retain=True)
            except BaseException:  # not sent (the broker went, or we stop): sent again on the next connection
                for topic, body in out.items():
                    self.outgoing.setdefault(topic, body)
                raise

    def _link(self, up: bool, why: str = "", *, quiet: bool = False) -> None:
        """The link is up or down (``why``); ``quiet``: the fault that took it down was logged already."""
        if up:
            self.link.connects += 1
        elif not self.connected and self.link.connects == 0 and not self.link.errors and why != "stopped" \
                and not quiet:
            self.link.errors.append(why)
            log.warning("hall: cannot reach the broker (%s); retrying until it answers", why)
        elif self.connected:
            self.link.outages += 1
            if why != "stopped" and not quiet:
                log.warning("hall: broker lost (%s); reconnecting", why)
        if self.connected != up:
            self.connected = up
            self._changed()
