"""A league on loopback: the league's certificates (made once with openssl), a league Mosquitto with its TLS
listener, and club records as the halls send them on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from controller.club.record import GameRecord, SeatRecord
from controller.league.bridge import LEAGUE_USER, LeagueMosquitto
from controller.league.certs import ClubCert, make_all

CLUBS = ["red", "blue"]


@pytest.fixture(scope="session")
def certs(tmp_path_factory) -> tuple[Path, dict[str, ClubCert]]:
    root = tmp_path_factory.mktemp("league-certs")
    return root, make_all(root, CLUBS, ["127.0.0.1"])


@pytest.fixture
def league_broker(tmp_path, certs) -> Iterator[LeagueMosquitto]:
    broker = LeagueMosquitto(tmp_path / "league", CLUBS, certs[0])
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def league_client(broker: LeagueMosquitto, **kw) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", broker.port, username=LEAGUE_USER,
                          password=broker.files.passwords[LEAGUE_USER], timeout=5, **kw)


def club_tls_client(broker: LeagueMosquitto, ca: Path, cert: Path | None, key: Path | None, **kw) -> aiomqtt.Client:
    """What a club's bridge is at the league broker: a TLS client with the club's certificate."""
    tls = aiomqtt.TLSParameters(ca_certs=str(ca), certfile=str(cert) if cert else None,
                                keyfile=str(key) if key else None)
    return aiomqtt.Client("127.0.0.1", broker.tls_port, tls_params=tls, timeout=5, **kw)


async def collect(c: aiomqtt.Client, into: list) -> None:
    async for m in c.messages:
        into.append((str(m.topic), bytes(m.payload)))


def record(uid: str, winner: str, seats: list[tuple[str | None, str, str, str | None]], minutes: float = 30.0) -> dict:
    """A club record as the hall takes it: seats of (member or None, role, side, card or None)."""
    return GameRecord(
        uid=uid, table="t", journal_game=1, variant="standard-2.0", options={}, players=len(seats), room="standard",
        started=None, length_s=minutes * 60, winner=winner, reason="r",
        seats=tuple(SeatRecord(n, role, side, member, card=card)
                    for n, (member, role, side, card) in enumerate(seats, 1))).as_dict()


def message(club: str, body: dict, at: float = 1_764_000_000.0, room: str = "1") -> bytes:
    """A league record message as the hall writes it (controller/hall/league_feed.py)."""
    return json.dumps({"club": club, "room": room, "at": at, "evening": "2025-11-24", "record": body}).encode()


def run(coro) -> object:
    return asyncio.run(coro)
