"""The table's side of the hall: with ``[mqtt] room`` in its config, a table publishes (feed.py) through the
outbox and the MQTT adapter (mqtt.py). ``controller/live.py`` calls :func:`open_link` and, once the director
exists, :meth:`HallLink.attach`; the director itself knows nothing of it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from controller.config import Config
from controller.hall.feed import TableFeed
from controller.hall.mqtt import MqttPublisher
from controller.hall.outbox import Outbox

log = logging.getLogger(__name__)


class HallLink:
    def __init__(self, config: Config) -> None:
        from controller.hall.app import broker_address
        from controller.hall.topics import username

        room = config.mqtt.room
        assert room is not None
        self.outbox = Outbox(config.mqtt.outbox)
        self.publisher = MqttPublisher(self.outbox, broker_address(config, username(room)), config.mqtt.club, room)
        self.publisher.on_sent.append(self._sent)
        # the club's names for this table and its room kind, as the club's records of its games carry them
        self.feed = TableFeed(self.publisher, lambda: self.outbox.next_game(room), table=config.club.table,
                              room=config.club.room)
        self.stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.publisher.run(self.stop))

    def attach(self, director: Any) -> None:
        self.feed.attach(director)

    def _sent(self, members: list[str], variant: str) -> None:
        if members:
            log.info("the hall sent to this room: %s%s", ", ".join(members),
                     f" (next game: {variant})" if variant else "")

    async def close(self, drain_s: float = 2.0) -> None:
        """Give the sender a moment to empty the outbox (what is left goes at the next start), then stop."""
        end = time.monotonic() + drain_s
        while self.outbox.counts()["unsent"] and self.publisher.connected and time.monotonic() < end:
            await asyncio.sleep(0.05)
        self.stop.set()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        self.outbox.close()


def open_link(config: Config) -> HallLink | None:
    """The table's link to the hall, or None when ``[mqtt] room`` is not set (a table on its own)."""
    if config.mqtt.room is None:
        return None
    return HallLink(config)
