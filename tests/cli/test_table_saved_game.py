"""``tianhei table`` after a power cut: without ``--seed`` it takes a fresh seed, but a seed nobody asked for is
only for a new game. The journal's unfinished game is resumed as it is (no question, no refusal) and its own
seed is printed; a seed the user did ask for that differs is a difference like any other."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import controller.cli.table as table_cli
from controller.cli import main
from controller.director.journal import SqliteJournal
from controller.live import LiveOptions
from controller.live import run_live as real_run_live
from tests.director.helpers import session


@pytest.fixture(autouse=True)
def a_desktop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Any]:
    """A desktop (so the live table runs), without drawing a window or making a sound; the run stops once the
    game is dealt or resumed, as if the window were closed there. Returns the directors seen."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(table_cli, "has_display", lambda: True)
    monkeypatch.chdir(tmp_path)
    seen: list[Any] = []

    async def until_started(config: Any, opts: LiveOptions) -> Any:
        started = asyncio.Event()
        opts.window = False
        opts.on_started = lambda d: (seen.append(d), started.set())
        task = asyncio.create_task(real_run_live(config, opts))
        await asyncio.wait_for(started.wait(), timeout=30)  # a table that asked the judge would wait: it fails
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen[-1]

    monkeypatch.setattr(table_cli, "run_live", until_started)
    return seen


def power_cut(tmp_path: Path, seed: int, **kw: Any) -> tuple[Path, int]:
    """A 12-player standard game played 100 s into its journal, then the power goes; the table's config."""
    journal = tmp_path / "j.sqlite"
    s = session("standard-2.0", 12, seed, "heuristic", journal_path=journal, **kw)
    s.start()
    s.run(max_time=100)
    assert s.journal is not None
    cut = len(s.director.events)
    s.journal.close()
    (tmp_path / "tianhei.toml").write_text(f'[table]\nhardware = "sim"\njudge = "none"\n[game]\n'
                                           f'variant = "standard-2.0"\nplayers = 12\n[journal]\npath = "{journal}"\n')
    return journal, cut


def test_a_fresh_seed_does_not_stop_the_saved_game_from_being_resumed(tmp_path, capsys, a_desktop):
    _, cut = power_cut(tmp_path, 77)
    assert main(["table", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    d = a_desktop[0]
    assert d.seed == 77 and len(d.events) >= cut
    assert "Seed 77 (replay this game with --seed 77)" in out  # the saved game's seed, not the fresh one
    assert out.count("Seed ") == 1


def test_the_saved_game_dealt_with_cards_is_resumed_with_its_own_deck(tmp_path, capsys, a_desktop):
    journal, cut = power_cut(tmp_path, 77, cards=True)
    deck = SqliteJournal(journal).replay().deck  # type: ignore[union-attr]
    assert main(["table", "--lang", "en", "--cards"]) == 0
    d = a_desktop[0]
    assert d.seed == 77 and len(d.events) >= cut and d.deck == deck


def test_a_seed_asked_for_that_differs_is_named_and_the_flag_chooses(tmp_path, capsys, a_desktop):
    journal, _ = power_cut(tmp_path, 77)
    assert main(["table", "--lang", "en", "--seed", "5", "--abandon-saved"]) == 0
    out = capsys.readouterr().out
    assert a_desktop[0].seed == 5 and "Seed 5 " in out and "Seed 77" not in out
    assert SqliteJournal(journal).replay(1).closed == "abandoned"  # type: ignore[union-attr]


def _window_key(monkeypatch: pytest.MonkeyPatch, name: str) -> list[str]:
    """The person at the simulator's window presses ``name`` once the question is drawn; the window titles seen."""
    import pygame

    from controller.sim.emulator import Emulator

    titles: list[str] = []
    step = Emulator.step

    def pressed_once(self: Emulator) -> bool:
        if not titles:
            titles.append(self.title)
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name)))
        return step(self)

    monkeypatch.setattr(Emulator, "step", pressed_once)
    return titles


def _with_the_window(monkeypatch: pytest.MonkeyPatch, seen: list[Any]) -> None:
    """The live table with its window (the question's; the game's own is closed once the game starts)."""

    async def with_the_window(config: Any, opts: LiveOptions) -> Any:
        started = asyncio.Event()
        opts.on_started = lambda d: (seen.append(d), started.set())
        opts.window = True
        task = asyncio.create_task(real_run_live(config, opts))
        await asyncio.wait_for(started.wait(), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return seen[-1]

    monkeypatch.setattr(table_cli, "run_live", with_the_window)
    monkeypatch.setattr("controller.live.has_display", lambda: True)


@pytest.mark.parametrize(("key", "seed"), [("a", 5), ("r", 77)])
def test_the_person_at_the_window_sees_the_question_and_answers_it_with_a_key(tmp_path, capsys, monkeypatch,
                                                                              a_desktop, key, seed):
    """``./dev table --seat 3 --seed 5`` after an interrupted game once opened no window and waited with one
    English line on stderr: the question and every way out are printed, and the window answers it."""
    journal, _ = power_cut(tmp_path, 77)
    titles = _window_key(monkeypatch, key)
    _with_the_window(monkeypatch, a_desktop)
    assert main(["table", "--lang", "en", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "The journal holds an unfinished game" in out
    assert "in the window: R goes on with it, A closes it" in out
    assert "--resume-saved / --abandon-saved" in out
    assert titles, "no window was opened for the question"
    assert a_desktop[-1].seed == seed
    closed = SqliteJournal(journal).replay(1).closed  # type: ignore[union-attr]
    assert (closed == "abandoned") == (key == "a")


def test_the_question_is_asked_in_the_tables_language(tmp_path, capsys, monkeypatch, a_desktop):
    power_cut(tmp_path, 77)
    _window_key(monkeypatch, "a")
    _with_the_window(monkeypatch, a_desktop)
    assert main(["table", "--lang", "zh", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "日志里有一局未完成的游戏" in out and "在窗口里按 R 继续它" in out
