"""A real Mosquitto on a loopback port with its own config, passwords and ACL, and the helpers the hall tests
share: a publisher that only records (no network), and a hall service on a store in memory; a club's own variant
file, and the hall's door for what a table published."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import controller.variants
from controller.club.scoring import DEFAULT, ScoringTable
from controller.hall import schema
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


def through_the_door(messages: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """Every message a table published, held to the hall's door as it would come (raises ``Refused``)."""
    for kind, body in messages:
        schema.table_message({"epoch": "e", "seq": 1, "room": "1", "kind": kind, "at": 1.0, "body": body}, "1", kind)


def club_variant(where: Path, name: str = "Moon wolves 12") -> Path:
    """A club's own werewolf board: werewolf-12's rules under the club's id and name (月夜狼人 12人, ``name`` in
    English), with its own words for the sides (村民 / 月狼)."""
    text = (Path(controller.variants.__file__).parent / "werewolf-12.toml").read_text(encoding="utf-8")
    for old, new in (('id = "werewolf-12"', 'id = "club-moon-12"'),
                     ('name_zh = "狼人杀 12人（预女猎白）"', 'name_zh = "月夜狼人 12人"'),
                     ('name = "Werewolf 12 (seer, witch, hunter, idiot)"', f'name = "{name}"'),
                     ('good = ["好人", "Good side"]', 'good = ["村民", "Villagers"]'),
                     ('killers = ["狼人", "Werewolves"]', 'killers = ["月狼", "Moon wolves"]')):
        assert old in text, old
        text = text.replace(old, new, 1)
    path = where / "club-moon-12.toml"
    path.write_text(text, encoding="utf-8")
    return path


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
