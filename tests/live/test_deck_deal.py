"""The deal uses the deck named in the config (``[game] deck``): each player taps a card of that deck, the
director reads the roles from it (C1), and a card from another deck is refused on its seat."""

import asyncio
import shutil
from pathlib import Path

import pytest

from controller.config import load
from controller.config.decks import load_deck
from controller.live import LiveOptions, deck_roles, run_live
from controller.screens import views as v


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def test_the_example_deck_maps_every_card_to_its_role_in_the_readers_spelling():
    roles = deck_roles("example-12")
    assert len(roles) == 12 and sorted(roles.values()).count("killer") == 3
    assert all(uid == uid.upper() for uid in roles)


def test_players_tap_the_configured_decks_cards_and_the_director_deals_from_them(tmp_path):
    (tmp_path / "decks").mkdir()
    shutil.copy(Path("decks/example-12.toml"), tmp_path / "decks")
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text('[table]\nhardware = "sim"\n[game]\nplayers = 12\ndeck = "example-12"\n'
                   f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    config = load(cfg)
    cards = [c.uid for c in load_deck("example-12").cards]
    outcome = {}

    async def deal():
        started = asyncio.Event()
        seen = []

        def watch(director):
            seen.append(director)
            started.set()

        task = asyncio.create_task(run_live(config, LiveOptions(window=False, on_started=watch)))
        await asyncio.wait_for(started.wait(), timeout=30)
        director = seen[0]
        table = director.table
        table.tap(1, "04DEADBEEF0001")  # a card from another deck
        outcome["foreign"] = director.ui[1].notice
        for seat, uid in enumerate(cards, start=1):
            table.tap(seat, uid.lower())  # readers may spell the UID in lower case
        outcome["roles"] = director.state.roles if director.state else None
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(deal())
    assert outcome["foreign"] == v.CardProblem(v.CardProblemKind.UNKNOWN)
    deck = {c.uid: c.role for c in load_deck("example-12").cards}
    assert outcome["roles"] == tuple(deck[uid] for uid in cards)
