"""The :class:`~controller.ports.Publisher` port's MQTT adapter: an SQLite outbox in front of aiomqtt.

``publish`` only writes the outbox (a local SQLite insert) and wakes the sender; the sender is one task on the
table's own event loop that keeps a persistent session (``clean_session=False``, the same client id every time)
with the broker, sends what is due in order at QoS 1, and reconnects with a growing pause when the broker is
gone. The hall's receipts (``ack``) come back on the same connection. So the game plays on whatever the network
does, and what it publishes arrives once the broker is back, in order, each message once at the hall.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.hall import topics
from controller.hall.outbox import Outbox
from controller.web import safejson

log = logging.getLogger(__name__)
#: paho's own chatter ("There are 11 pending publish calls", "failed to receive on socket" when the broker goes) is
#: normal here: the sender keeps a window in flight, and a lost broker is reported once by the adapter.
CLIENT_LOG = logging.getLogger("controller.hall.client")
CLIENT_LOG.setLevel(logging.CRITICAL)


class _ClosedSocket(logging.Filter):
    """aiomqtt asks the loop to watch its socket from paho's callback; when the broker has just gone, the socket
    may be closed by then and asyncio logs a traceback (EBADF in add_writer) for what is only the lost link."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (isinstance(exc, OSError) and exc.errno == errno.EBADF and "add_writer" in record.getMessage())


logging.getLogger("asyncio").addFilter(_ClosedSocket())


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the broker is and who we are there (``[mqtt]`` in tianhei.toml). With ``cafile`` the link is TLS and
    the broker's certificate must be signed by that CA and name ``host`` (the club broker's listener on the
    club's Wi-Fi, controller/hall/broker.py): a password is never sent to a broker that cannot prove itself."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    cafile: str | None = None

    def tls_params(self) -> Any:
        """aiomqtt's TLS parameters (certificate and host name checked), or None for plain MQTT."""
        if self.cafile is None:
            return None
        import ssl

        import aiomqtt

        return aiomqtt.TLSParameters(ca_certs=self.cafile, cert_reqs=ssl.CERT_REQUIRED,
                                     tls_version=ssl.PROTOCOL_TLS_CLIENT)


@dataclass
class LinkStats:
    """What the sender saw: the benchmark and ``tianhei hall`` print these."""

    connects: int = 0
    outages: int = 0
    published: int = 0
    resent: int = 0
    down_since: float | None = None
    down_s: float = 0.0
    errors: list[str] = field(default_factory=list)


def seen(client: object) -> None:
    """Take note of how the connection ended, so asyncio does not log "Future exception was never retrieved"
    for aiomqtt's record of it (the adapter has already said the broker went away)."""
    ended = getattr(client, "_disconnected", None)
    if isinstance(ended, asyncio.Future) and ended.done() and not ended.cancelled():
        ended.exception()


async def first_of(stop: asyncio.Event, *jobs: Coroutine[Any, Any, None]) -> None:
    """Run the jobs of one connection together until one ends or ``stop`` is set; the others are cancelled. A job
    that failed (the broker went away) raises here, so the connection is made again; the message stream (the
    first job) ending by itself counts as the broker going away too."""
    import aiomqtt

    tasks = [asyncio.create_task(j) for j in jobs]
    stopper = asyncio.create_task(stop.wait())
    try:
        done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in [*tasks, stopper]:
            t.cancel()
        for t in [*tasks, stopper]:
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await t
    if stop.is_set():
        return
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            raise t.exception()  # type: ignore[misc]
    if tasks[0] in done:  # the message stream ended: the connection is gone
        raise aiomqtt.MqttError("the broker closed the connection")


#: After a fault of ours in a broker link (not the broker going away), the first wait before it starts again; it
#: doubles up to :data:`FAULT_PAUSE_MAX` while the fault keeps coming back.
FAULT_PAUSE = 1.0
FAULT_PAUSE_MAX = 30.0
#: A connection that lasted this long was a good one: the next reconnection waits the shortest pause again.
GOOD_CONNECTION_S = 5.0


async def keep_linked(connection: Callable[[], Coroutine[Any, Any, None]], stop: asyncio.Event, *, who: str,
                      down: Callable[[str, bool], None], clock: Callable[[], float] = time.monotonic) -> None:
    """Run ``connection()`` (one whole connection to the broker) again and again until ``stop``: after the broker
    went (``aiomqtt.MqttError``) within 0.2 s doubling to 2 s, and after any other exception (a fault of ours, in
    the link's own code) with one line in the log naming it, within 1 s doubling to 30 s. ``down(why, fault)`` is
    called each time, so whoever shows ``connected`` says the truth (``fault``: this function has logged it).
    Only cancelling the task ends it otherwise."""
    import aiomqtt

    pause, fault_pause = 0.2, FAULT_PAUSE
    while not stop.is_set():
        began = clock()
        try:
            await connection()
            continue  # it returns when stop is set
        except aiomqtt.MqttError as exc:
            down(str(exc), False)
            wait = pause = 0.2 if clock() - began >= GOOD_CONNECTION_S else min(2.0, pause * 2)
        except Exception as exc:
            down(f"{type(exc).__name__}: {exc}", True)
            wait = fault_pause
            log.error("%s: the broker link stopped on a fault (%s: %s); it starts again in %g s", who,
                      type(exc).__name__, exc, wait)
            fault_pause = min(FAULT_PAUSE_MAX, fault_pause * 2)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)


class MqttPublisher:
    """A table's publisher: ``publish(kind, body)`` -> the outbox -> the broker, under ``tianhei/<club>/<room>/``."""

    def __init__(self, outbox: Outbox, broker: BrokerAddress, club: str, room: str, *,
                 batch: int = 50, clock: Callable[[], float] = time.time) -> None:
        self.outbox = outbox
        self.broker = broker
        self.club = topics.check_name("club", club)
        self.room = topics.check_name("room", room)
        self.batch = batch
        self.clock = clock
        self.stats = LinkStats()
        self.connected = False
        self._wake = asyncio.Event()
        self._sent_once: set[int] = set()
        #: Who the hall sent to this room for its next game, and the variant it should play ("" = as planned).
        self.sent: tuple[list[str], str] = ([], "")
        self.on_sent: list[Callable[[list[str], str], None]] = []

    # ---- the port ---------------------------------------------------------------------------------------------
    def publish(self, kind: str, body: Mapping[str, object]) -> None:
        """Queue one message (never waits for the network); retained if its kind is (``status``)."""
        self.outbox.put(topics.room_topic(self.club, self.room, kind), kind, body, retain=kind in topics.RETAINED,
                        durable=kind in ("result", "record"))
        self._wake.set()

    # ---- the sender -------------------------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Send until ``stop`` is set (or the task is cancelled), reconnecting for as long as it takes."""
        import aiomqtt  # only the tables that publish pay for it (Pi Zero start-up)

        stop = stop or asyncio.Event()
        pause = 0.2
        while not stop.is_set():
            client = aiomqtt.Client(self.broker.host, self.broker.port, username=self.broker.username,
                                    password=self.broker.password, identifier=f"tianhei-{self.club}-{self.room}",
                                    clean_session=False, keepalive=5, timeout=5.0, max_inflight_messages=100,
                                    logger=CLIENT_LOG, tls_params=self.broker.tls_params())
            try:
                async with client:
                    self._up()
                    pause = 0.2
                    await client.subscribe(topics.hall_topic(self.club, self.room, "+"), qos=1)
                    await first_of(stop, self._receipts(client), self._send(client, stop))
            except aiomqtt.MqttError as exc:
                seen(client)
                self._down(str(exc))
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), pause)
                pause = min(2.0, pause * 2)
        self._down("stopped")

    async def _send(self, client: object, stop: asyncio.Event) -> None:
        while not stop.is_set():
            due = self.outbox.due(self.batch)
            if not due:
                self._wake.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 1.0)  # 1 s: resends come due on their own
                continue
            await asyncio.gather(*(client.publish(m.topic, m.envelope(self.outbox.epoch, self.room),  # type: ignore[attr-defined]
                                                  qos=1, retain=m.retain) for m in due))
            self.outbox.mark_sent([m.seq for m in due])
            for m in due:
                if m.seq in self._sent_once:
                    self.stats.resent += 1
                self._sent_once.add(m.seq)
            self.stats.published += len(due)

    async def _receipts(self, client: object) -> None:
        """The hall's messages for this room: receipts (``ack``) and who it sent here (``sent``)."""
        async for message in client.messages:  # type: ignore[attr-defined]
            what = str(message.topic).rsplit("/", 1)[-1]
            try:
                data = safejson.loads(bytes(message.payload))
                if what == "ack":
                    top = data.get("top")
                    self.outbox.ack(str(data["epoch"]), int(data["seq"]), int(top) if top is not None else None,
                                    [int(m) for m in data.get("missing", ())])
                elif what == "sent":
                    self.sent = ([str(m) for m in data["members"]], str(data.get("variant") or ""))
                    for cb in self.on_sent:
                        cb(*self.sent)
            except Exception as exc:  # not understood, or a fault met by it: this message only, the link goes on
                log.warning("hall message on %s not understood (%s: %s)", message.topic, type(exc).__name__, exc)

    def _up(self) -> None:
        self.connected = True
        self.stats.connects += 1
        if self.stats.down_since is not None:
            self.stats.down_s += self.clock() - self.stats.down_since
            self.stats.down_since = None

    def _down(self, why: str) -> None:
        if self.connected or (self.stats.connects == 0 and self.stats.down_since is None):
            self.stats.outages += int(self.connected)
            self.stats.down_since = self.clock()
            if why != "stopped":
                log.warning("broker %s:%s unreachable (%s); the table plays on, messages wait in the outbox",
                            self.broker.host, self.broker.port, why)
        self.connected = False
