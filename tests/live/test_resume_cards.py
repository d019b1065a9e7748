"""A game dealt with the simulated table's cards (``tianhei table --cards``) and resumed after a power cut: the
bots do not lay their cards on the readers again. The deal is in the journal (``Replay.cards``); found at a club
table, every seat flashed its role once more and the transcript told the deal a second time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import controller.sim.play as play
from controller.config import load
from controller.director.journal import SqliteJournal
from controller.live import LiveOptions, run_live
from controller.ports import CardEvent
from controller.sim.play import untapped
from tests.director.helpers import session


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


@pytest.fixture
def given_to_the_bots(monkeypatch: pytest.MonkeyPatch) -> list[dict[int, tuple[str, ...]]]:
    """The cards the live table hands its bots to tap, tapped at once (no real seconds between them)."""
    given: list[dict[int, tuple[str, ...]]] = []
    real = play.tap_in_turn

    async def quick(table: Any, hands: dict[int, tuple[str, ...]], people: set[int], *_: Any) -> None:
        given.append(dict(hands))
        await real(table, hands, people, 0.0, 0.001)

    monkeypatch.setattr(play, "tap_in_turn", quick)
    return given


def config_for(tmp_path: Path, journal: Path) -> Any:
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\njudge = "none"\n[game]\nvariant = "standard-2.0"\nplayers = 12\n'
                   f'[journal]\npath = "{journal}"\n')
    return load(cfg)


def run_briefly(config: Any, linger_s: float = 0.3) -> Any:
    """``tianhei table --cards`` with bots, switched off ``linger_s`` of real time after it dealt or resumed."""
    seen: list[Any] = []

    async def briefly() -> None:
        started = asyncio.Event()
        opts = LiveOptions(autoplay="heuristic", window=False, cards=True, seed=77,
                           on_started=lambda d: (seen.append(d), started.set()))
        task = asyncio.create_task(run_live(config, opts))
        await asyncio.wait_for(started.wait(), timeout=30)
        await asyncio.sleep(linger_s)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(briefly())
    return seen[0]


def test_a_game_resumed_after_its_deal_has_no_card_tapped_again(tmp_path: Path, given_to_the_bots: list) -> None:
    journal = tmp_path / "j.sqlite"
    s = session("standard-2.0", 12, 77, "heuristic", journal_path=journal, cards=True)
    s.start()
    s.run(max_time=100)  # dealt with cards, then the power goes in the first day
    assert s.director.stage == "play"
    assert s.journal is not None
    s.journal.close()
    replay = SqliteJournal(journal).replay()
    assert replay is not None and replay.cards is not None and len(replay.cards) == 12
    director = run_briefly(config_for(tmp_path, journal))
    assert director.stage == "play" and director.deck == replay.deck
    assert given_to_the_bots in ([], [{}])  # nothing left to tap
    assert not any(isinstance(e, CardEvent) for e in director.table.inputs)


def test_a_game_cut_during_its_deal_has_every_card_tapped_on_resume(tmp_path: Path, given_to_the_bots: list) -> None:
    """Before the deal is whole nothing of it is in the journal (the deal is one commit): every card again."""
    journal = tmp_path / "j.sqlite"
    config = config_for(tmp_path, journal)
    first = run_briefly(config, linger_s=0.0)  # switched off as the deal opens
    assert first.stage == "deal"
    given_to_the_bots.clear()
    again = run_briefly(config)
    assert again.stage in ("deal", "play")
    assert len(given_to_the_bots) == 1 and sum(len(c) for c in given_to_the_bots[0].values()) == 12


def test_untapped_leaves_out_the_journals_cards_whoever_tapped_them() -> None:
    hands = {1: ("a",), 2: ("b", "c"), 3: ("d",)}
    assert untapped(hands, None) == hands
    assert untapped(hands, {1: ("a",), 4: ("c",)}) == {2: ("b",), 3: ("d",)}  # D2: a place taps its seat's card
    assert untapped(hands, {1: ("a",), 2: ("b", "c"), 3: ("d",)}) == {}
