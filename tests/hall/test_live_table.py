"""The live table (``tianhei table`` / ``tianhei serve``) with ``[mqtt] room`` set publishes to the hall through its
outbox, from outside the director: here a simulated table on the real clock and a hall on a loopback Mosquitto."""

from __future__ import annotations

import asyncio

import pytest

from controller.config import load
from controller.hall.mqtt import BrokerAddress
from controller.hall.service import HallService, RoomConfig
from controller.hall.store import HallStore
from controller.live import LiveOptions, run_live
from tests.hall.conftest import CLUB, until


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def test_a_live_table_in_room_2_tells_the_hall_it_is_playing(mosquitto, tmp_path):
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\n[game]\nvariant = "classic-1.0"\nplayers = 8\n'
                   f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                   f'[mqtt]\nport = {mosquitto.port}\nclub = "{CLUB}"\nroom = "2"\n'
                   f'password_file = "{mosquitto.files.secret_file("room-2")}"\noutbox = "{tmp_path / "o.sqlite"}"\n')
    config = load(cfg)

    async def go():
        stop = asyncio.Event()
        hall = HallService(HallStore(":memory:"), CLUB, [RoomConfig("2")])
        hall_task = asyncio.create_task(hall.run_mqtt(
            BrokerAddress("127.0.0.1", mosquitto.port, "hall", mosquitto.files.passwords["hall"]), stop))
        table = asyncio.create_task(run_live(config, LiveOptions(window=False, autoplay="heuristic")))

        def room():
            return next((r for r in hall.snapshot()["rooms"] if r["id"] == "2"), {"status": {}})

        await until(lambda: room()["status"].get("variant") == "classic-1.0", 30)
        status = room()["status"]
        table.cancel()
        await asyncio.gather(table, return_exceptions=True)
        stop.set()
        await hall_task
        return status

    status = asyncio.run(go())
    assert status["state"] in ("checkin", "playing") and status["players"] == 8 and status["game"].startswith("2-")
    assert "roles" not in status
