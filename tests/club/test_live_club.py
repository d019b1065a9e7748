"""The live table (``tianhei table --checkin``) with a club: a member checks in with their card, the game is
dealt, and who sits where is noted in the game's journal records; a game that ended while the table was down is
recorded at the next start."""

from __future__ import annotations

import asyncio

import pytest

from controller import live
from controller.club.record import club_note
from controller.club.store import ClubStore
from controller.config import load
from controller.director.journal import SqliteJournal
from controller.live import LiveOptions, run_live
from controller.ports import Button, RemoteKey
from tests.club.helpers import journal_game


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def test_ming_checks_in_with_his_card_and_the_journal_notes_where_he_sits(tmp_path, monkeypatch):
    journal_game(tmp_path / "j.sqlite", seed=1).journal.close()  # a game that ended before this start
    store = ClubStore(tmp_path / "club.sqlite")
    store.add_member("Ming", "c1ab0001")
    store.close()
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\n[game]\nplayers = 8\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                   f'[timers]\ndeal_s = 0.5\n[club]\ntable = "room-2"\n')
    opened = []
    real_open = live.open_table

    def open_table(config, players, clock):
        table = real_open(config, players, clock)
        opened.append(table)
        return table

    monkeypatch.setattr(live, "open_table", open_table)
    seen = []

    async def evening():
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def checkin():
            table = opened[0]
            table.tap(3, "C1AB0001")  # Ming sits at seat 3
            for seat in (1, 2, 4, 5, 6, 7, 8):
                table.press(seat, Button.OK)
            table.remote_key(RemoteKey.CENTER)

        def watch(director):
            seen.append(director)
            started.set()  # dealt (digitally): the check-in note is in the journal

        loop.call_later(0.3, checkin)
        task = asyncio.create_task(run_live(load(cfg), LiveOptions(autoplay="uninformed", window=False,
                                                                   checkin=True, on_started=watch)))
        await asyncio.wait_for(started.wait(), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(evening())
    journal = SqliteJournal(tmp_path / "j.sqlite")
    note = club_note(journal.replay(2).notes)
    assert note["members"] == {"3": "Ming"} and note["table"] == "room-2"
    store = ClubStore(tmp_path / "club.sqlite")  # beside the journal, as [club] path was not given
    assert [g.journal_game for g in store.games()] == [1]  # the game that ended before the start, once
