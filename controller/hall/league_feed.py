"""What a club's hall hands to the league: each club record it took, and the evening's standings, under the
hall's own topics ``tianhei/<club>/hall/league/…``. The club's broker bridges exactly these to the league's broker
(``league/<club>/…``, controller/league/bridge.py), so the league never talks to a table and a table never
waits for the league.

The bridge's own queue (QoS 1, a session that outlives the link) carries a record through an outage of the link.
It cannot carry one through a broker killed before it saved its queue, so the league says what it has: a retained
receipt (``league/<club>/receipt``, bridged back as ``…/hall/league/receipt``) listing the club's recent games.
:class:`Ledger` keeps every record the receipt does not list yet and sends it again, at growing intervals (30 s,
doubling up to 10 min; soon after each reconnection), for up to :data:`RESEND_S`. The league takes each game once
however often it comes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from controller.hall import checks, schema, topics

#: How long the hall goes on offering a record the league has not confirmed: three days.
RESEND_S = 3 * 24 * 3600.0
FIRST_S = 30.0
MAX_S = 600.0
#: After a (re)connection, unconfirmed records go again this soon (the retained receipt comes first if there is one).
CONNECT_GRACE_S = 3.0
KINDS = ("record", "standings")
RECEIPT = "receipt"


class _Records(Protocol):
    def records_since(self, at: float) -> list[tuple[str, float, str, dict[str, Any]]]: ...


def topic(club: str, kind: str) -> str:
    """``tianhei/<club>/hall/league/<kind>``: the hall writes it (its ACL allows ``hall/#``), the bridge reads it."""
    if kind not in (*KINDS, RECEIPT):
        raise ValueError(f"unknown league message kind {kind!r}; one of {', '.join(KINDS)}, {RECEIPT}")
    return f"{topics.PREFIX}/{topics.check_name('club', club)}/hall/league/{kind}"


def record_message(club: str, room: str, at: float, evening: str, record: dict[str, Any]) -> dict[str, Any]:
    """One game for the league: the club's record as the hall took it, with where and when it was written."""
    return {"club": club, "room": room, "at": at, "evening": evening, "record": record}


@dataclass
class _Pending:
    body: dict[str, Any]
    due: float
    delay: float


class Ledger:
    """The records the league has not confirmed, and when each goes again."""

    def __init__(self, club: str) -> None:
        self.club = topics.check_name("club", club)
        self.pending: dict[str, _Pending] = {}
        #: The uids in the league's latest receipt.
        self.confirmed: set[str] = set()
        self.sent = 0
        self.resent = 0
        self._sent_uids: set[str] = set()
        #: The first wait for a receipt (then doubling up to :data:`MAX_S`); the demo shortens it.
        self.first_s = FIRST_S

    def add(self, room: str, at: float, evening: str, record: dict[str, Any], now: float, *,
            due: float | None = None) -> None:
        uid = str(record["uid"])
        if uid in self.confirmed or uid in self.pending or at < now - RESEND_S:
            return
        self.pending[uid] = _Pending(record_message(self.club, room, at, evening, record),
                                     now if due is None else due, self.first_s)

    def load(self, store: _Records, now: float) -> None:
        """The recent records from the hall's file (after a restart, or on connecting): those not confirmed go
        again shortly, unless the receipt comes first."""
        for room, at, evening, body in store.records_since(now - RESEND_S):
            if isinstance(body, dict) and isinstance(body.get("uid"), str):  # (a hand-edited row is not offered)
                self.add(room, at, evening, body, now, due=now + CONNECT_GRACE_S)

    def connected(self, now: float) -> None:
        """The link to the broker is new: what it had queued may be gone, so everything unconfirmed goes soon."""
        for p in self.pending.values():
            p.due = min(p.due, now + CONNECT_GRACE_S)
            p.delay = self.first_s

    def receipt(self, payload: bytes) -> int:
        """The league's receipt: the uids it has of this club's recent games. Returns how many it confirmed."""
        uids = schema.league_receipt(checks.parse(payload))
        self.confirmed = uids
        done = [u for u in self.pending if u in uids]
        for u in done:
            del self.pending[u]
        return len(done)

    def due(self, now: float) -> list[tuple[str, dict[str, Any]]]:
        """What to publish now; each goes again after its (doubling) delay unless a receipt lists it first."""
        out = []
        for uid, p in list(self.pending.items()):
            if float(p.body["at"]) < now - RESEND_S:
                del self.pending[uid]  # the league never said it had it: given up (logged by the caller)
                continue
            if p.due <= now:
                self.resent += uid in self._sent_uids
                self.sent += 1
                self._sent_uids.add(uid)
                out.append((topic(self.club, "record"), p.body))
                p.due = now + p.delay
                p.delay = min(MAX_S, p.delay * 2)
        return out
