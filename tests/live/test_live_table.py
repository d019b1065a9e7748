"""The table on the real clock (asyncio), as ``tianhei table`` runs it: adapters chosen by the config, the
director on the loop, pygame's voice on SDL's dummy audio driver. Runs for a moment of real time only."""

import asyncio

import pytest

from controller.config import load
from controller.live import LiveOptions, run_live


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def started_table(config):
    """Run the table as ``tianhei table`` does until the director has dealt, then switch it off; the director."""
    seen = []

    async def briefly():
        started = asyncio.Event()

        def watch(director):
            seen.append(director)
            started.set()

        task = asyncio.create_task(run_live(config, LiveOptions(autoplay="uninformed", window=False,
                                                                on_started=watch)))
        await asyncio.wait_for(started.wait(), timeout=30)
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(briefly())
    return seen[0]


def test_the_simulated_table_starts_on_the_real_clock_and_the_bots_play(tmp_path):
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\n[game]\nplayers = 8\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    director = started_table(load(cfg))
    assert director.stage == "deal" and all(seat.frames for seat in director.table.seats.values())
    # The deal was journalled before anything was shown.
    from controller.director.journal import SqliteJournal

    replay = SqliteJournal(tmp_path / "j.sqlite").replay()
    assert replay is not None and replay.events[0].type == "game_created"


def test_the_config_timers_reach_the_table(tmp_path):
    """[timers] in tianhei.toml: every key changes what the table does (none is read and then ignored)."""
    from controller.live import game_config, timings

    cfg = tmp_path / "tianhei.toml"
    cfg.write_text("[timers]\ndeal_s = 7\nnight_action_s = 20\nlast_words_s = 40\nspeech_s = 90\n"
                   "defence_s = 45\nvote_window_s = 1.5\nwarning_s = 10\n")
    config = load(cfg)
    t = timings(config)
    assert (t.reveal_s, t.night_action_s, t.last_words_s, t.speech_s, t.defence_s) == (7, 20, 40, 90, 45)
    assert 10 in t.warnings_s
    assert game_config(config).opt("vote.window_s") == 1.5  # V2.6


def test_the_directors_other_waits_can_be_set_and_a_typo_is_named(tmp_path):
    from controller.config import ConfigError
    from controller.live import timings

    cfg = tmp_path / "tianhei.toml"
    cfg.write_text("[timers]\nanswer_s = 6\nrecognition_s = 12\ntally_s = 3\n")
    t = timings(load(cfg))
    assert (t.answer_s, t.recognition_s, t.tally_s) == (6, 12, 3)
    cfg.write_text("[timers]\nanwser_s = 6\n")
    with pytest.raises(ConfigError, match="answer_s"):
        load(cfg)


def test_dual_card_5_0_runs_on_the_physical_seats_with_two_card_places_each(tmp_path):
    """D2 at the real-clock table: 8 physical seats behind 16 card places (controller/director/places.py)."""
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[game]\nvariant = "dual-card-5.0"\nplayers = 8\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    director = started_table(load(cfg))
    assert len(director.table.seats) == 16 and len(director.table.physical.seats) == 8


def test_v2_11_the_tables_journal_gives_the_next_game_the_first_night_victims_of_the_last_games(tmp_path):
    """Seat 9 was killed on the first night of the last two games at this table (after a game whose first night
    killed nobody): with "at most two games in a row", the killers may not pick seat 9 tonight."""
    from controller.director.journal import SqliteJournal, first_victims
    from controller.live import game_config
    from controller.rules.engine import new_game, pending
    from tests.rules.table import Game

    journal = SqliteJournal(tmp_path / "j.sqlite")

    def a_game_whose_first_night_kills(seat):
        g = Game("standard-2.0", "K K K P P P C C C C C C")
        if seat is None:
            g.night()  # the killers let their time run out (C5)
        else:
            g.night(kill=seat)
        journal.new_game()
        journal.record_input(None, g.events)

    for seat in (3, 9, None, 9, 9):
        a_game_whose_first_night_kills(seat)
    assert first_victims(journal, 12) == (9, 9)
    assert first_victims(journal, 8) == ()  # seat 9 is not at an 8-player table: no run of repeats there

    cfg = tmp_path / "tianhei.toml"
    cfg.write_text('[game]\nvariant = "standard-2.0"\nplayers = 12\noptions = { "first_victim.max_repeat" = 2 }\n')
    config = game_config(load(cfg), None, journal)
    assert config.history == (9, 9)
    state, _ = new_game(config, seed=1)
    p = pending(state)
    assert p is not None and p.step == "kill" and 9 not in p.choices


def test_one_person_plays_seat_3_with_cards_while_bots_tap_theirs(tmp_path, monkeypatch):
    """tianhei table --seat 3 --cards --board: the window (SDL's dummy driver) and its board panel; the bots lay
    their cards on their readers one after another, seat 3's card waits in the window's tray for its person."""
    from controller import live
    from controller.board.sim import SimBoard
    from controller.ports import CardEvent

    monkeypatch.setattr(live, "has_display", lambda: True)
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\n[game]\nplayers = 8\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    seen = []

    async def until_seat_4_tapped():
        started = asyncio.Event()

        def watch(director):
            seen.append(director)
            started.set()

        opts = LiveOptions(autoplay="uninformed", seat=3, cards=True, board=True, seed=7, on_started=watch)
        task = asyncio.create_task(run_live(load(cfg), opts))
        await asyncio.wait_for(started.wait(), timeout=30)
        table = seen[0].table

        async def tapped(seat):
            # run_live plays on the real asyncio loop (no virtual clock to advance): yield to it in short turns
            # until the bot's tap is in; wait_for below bounds the wait.
            while not any(isinstance(e, CardEvent) and e.seat == seat for e in table.inputs):
                await asyncio.sleep(0.05)

        await asyncio.wait_for(tapped(4), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return table

    table = asyncio.run(until_seat_4_tapped())
    director = seen[0]
    taps = [e.seat for e in table.inputs if isinstance(e, CardEvent) and e.present]
    assert taps == [1, 2, 4]  # in turn round the table, seat 3 left to its person
    assert director.stage == "deal" and isinstance(director.board, SimBoard)
    assert director.board.last == {"gesture": "deal"}
