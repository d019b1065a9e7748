"""A real Mosquitto on a loopback port with its own config, passwords and ACL, and the helpers the hall tests
share: a publisher that only records (no network), and a hall service on a store in memory."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from controller.club.scoring import DEFAULT, ScoringTable
from controller.hall.broker import Mosquitto
from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack

CLUB = "test"
ROOMS = ["1", "2", "3"]


@pytest.fixture
def mosquitto(tmp_path) -> Iterator[Mosquitto]:
    broker = Mosquitto(tmp_path / "broker", CLUB, ROOMS)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


class Recorder:
    """A Publisher that writes down what it was given (the feed's tests need no broker)."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []

    def publish(self, kind: str, body: Any) -> None:
        self.messages.append((kind, dict(body)))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [b for k, b in self.messages if k == kind]


class Clock:
    def __init__(self, t: float = 1_764_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def hall(rooms: list[RoomConfig] | None = None, *, auto_send: bool = False, clock: Callable[[], float] | None = None,
         languages: tuple[str, ...] = ("zh-CN", "en"), scoring: ScoringTable = DEFAULT) -> HallService:
    from controller.hall.announce import Announcer

    voices = [NullVoice(clock or time.monotonic, load_voice_pack(lang)) for lang in languages]
    return HallService(HallStore(":memory:"), CLUB, rooms or [RoomConfig(r) for r in ROOMS],
                       announcer=Announcer(voices), auto_send=auto_send, clock=clock or time.time, scoring=scoring)


async def until(cond: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait for something a real broker delivers (bounded; the tests' only waits are on loopback I/O)."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out waiting on the broker"
        await asyncio.sleep(0.02)
