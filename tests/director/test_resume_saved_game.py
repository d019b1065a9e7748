"""A saved game is resumed only as itself. After a power cut the table may be started with another variant,
player count, seed, deck, an edited variant file or other hardware: it names what differs and the judge chooses
to go on with the saved game under its own settings or to close it (kept, marked abandoned) and start anew."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.director.identity import GameIdentity
from controller.director.journal import SqliteJournal
from controller.director.saved import SavedGameDiffers
from controller.rules.events import to_json
from tests.director.helpers import game_config, session

ROOT = Path(__file__).parents[2]
RUN = "import sys\nfrom controller.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def half_played(path: Path, *args: str) -> None:
    """``tianhei run`` until the power goes 150 s into the game."""
    assert main(["run", "--journal", str(path), "--stop-after", "150", "--json", *args]) == 0


def test_tianhei_run_refuses_another_game_and_names_what_differs(tmp_path, capsys):
    path = tmp_path / "evening.sqlite"
    half_played(path, "--players", "12", "--seed", "4")
    capsys.readouterr()
    assert main(["run", "--journal", str(path), "--players", "10", "--seed", "5", "--option", "tie=revote"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert "players 12 (asked 10)" in err and "seed 4 (asked 5)" in err and "option tie = " in err
    assert "--resume-saved" in err and "--abandon-saved" in err and "marked abandoned" in err
    assert SqliteJournal(path).replay().closed is None  # nothing was changed  # type: ignore[union-attr]


def test_going_on_with_the_saved_game_plays_it_under_its_own_settings(tmp_path, capsys):
    path = tmp_path / "evening.sqlite"
    half_played(path, "--players", "12", "--seed", "4")
    whole = tmp_path / "whole.sqlite"
    assert main(["run", "--journal", str(whole), "--players", "12", "--seed", "4", "--json"]) == 0
    capsys.readouterr()
    assert main(["run", "--journal", str(path), "--players", "10", "--seed", "5", "--variant", "v3.0",
                 "--resume-saved"]) == 0
    err = capsys.readouterr().err  # said in the table's language (tianhei run's default: zh)
    assert "从日志继续未完成的对局" in err and "按它自己的设置继续" in err
    resumed, uninterrupted = SqliteJournal(path).replay(), SqliteJournal(whole).replay()
    assert resumed is not None and uninterrupted is not None and resumed.finished
    assert [to_json(e) for e in resumed.events] == [to_json(e) for e in uninterrupted.events]


def test_closing_the_saved_game_keeps_it_marked_abandoned_and_starts_the_new_one(tmp_path, capsys):
    path = tmp_path / "evening.sqlite"
    half_played(path, "--players", "12", "--seed", "4")
    assert main(["run", "--journal", str(path), "--players", "10", "--abandon-saved", "--json"]) == 0
    j = SqliteJournal(path)
    assert j.games() == [1, 2]
    old, new = j.replay(1), j.replay(2)
    assert old is not None and old.closed == "abandoned" and old.events  # kept, every record of it
    assert new is not None and new.finished and new.identity is not None and new.identity.players == 10
    # the next start finds nothing unfinished: it deals game 3 without asking
    assert main(["run", "--journal", str(path), "--players", "8", "--json"]) == 0


def test_an_edited_variant_file_is_another_game(tmp_path, capsys):
    club = tmp_path / "club.toml"
    club.write_text((ROOT / "controller/variants/standard-2.0.toml").read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "evening.sqlite"
    half_played(path, "--variant", str(club), "--players", "12")
    text = club.read_text(encoding="utf-8")
    club.write_text(text.replace('name = "', 'name = "Club ', 1), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", "--journal", str(path), "--variant", str(club), "--players", "12"]) == 2
    assert "was changed since the game began" in capsys.readouterr().err


def test_the_same_game_asked_again_is_resumed_without_a_question(tmp_path, capsys):
    path = tmp_path / "evening.sqlite"
    half_played(path, "--players", "9", "--seed", "2", "--cards")
    assert main(["run", "--journal", str(path), "--players", "9", "--seed", "2", "--cards", "--json"]) == 0
    assert SqliteJournal(path).replay().finished  # type: ignore[union-attr]


def test_what_differs_is_said_field_by_field():
    a = GameIdentity.of(game_config("standard-2.0", 12), 1, None, "sim")
    assert a.differences(a) == []
    b = GameIdentity.of(game_config("standard-2.0", 12, {"tie": "revote"}), 1, {"04a1": "killer"}, "compact-8")
    said = a.differences(b)
    assert said[0].startswith("option tie = ") and "deck: a digital deal (asked a card deck" in said[1]
    assert said[2] == "hardware sim (asked compact-8)"
    c = GameIdentity.of(game_config("standard-2.0", 12, roles={"killer": 2, "police": 2}), 1, None, "sim")
    assert [d for d in a.differences(c) if d.startswith("roles ")]
    # at check-in the number of players is the seats' to say: only the rest is compared
    d = GameIdentity.of(game_config("standard-2.0", 9), 1, None, "sim")
    assert a.differences(d, ignore=("players",)) == []
    assert GameIdentity.from_json(b.to_json()) == b


def test_a_session_refuses_without_a_choice(tmp_path):
    path = tmp_path / "evening.sqlite"
    s = session("standard-2.0", 12, 1, "heuristic", journal_path=path)
    s.start()
    s.run(max_time=100)
    with pytest.raises(SavedGameDiffers) as err:
        session("v4.0", 12, 1, "heuristic", journal_path=path)
    assert "variant standard-2.0 (asked v4.0)" in str(err.value)


def test_a_kill_9_after_a_commit_then_tianhei_run_resumes_to_the_same_game(tmp_path):
    """A real process killed (os._exit: nothing closed, nothing flushed) right after its k-th commit; the
    command line resumes it; the journal then holds the uninterrupted game's events."""
    whole = tmp_path / "whole.sqlite"
    assert main(["run", "--journal", str(whole), "--players", "12", "--seed", "7", "--json"]) == 0
    expected = [to_json(e) for e in SqliteJournal(whole).replay().events]  # type: ignore[union-attr]
    kill = (
        "import os, sys\n"
        "from controller.director import journal\n"
        "k, n = int(sys.argv[1]), [0]\n"
        "write = journal.SqliteJournal._write\n"
        "def dying(self, rows, checkpoint=False):\n"
        "    write(self, rows, checkpoint)\n"
        "    n[0] += 1\n"
        "    if n[0] == k:\n"
        "        os._exit(9)\n"
        "journal.SqliteJournal._write = dying\n"
        "from controller.cli import main\n"
        "main(sys.argv[2:])\n")
    for k in (1, 61):  # the set-up itself, and mid-game
        path = tmp_path / f"killed-{k}.sqlite"
        args = ["run", "--journal", str(path), "--players", "12", "--seed", "7", "--json"]
        died = subprocess.run([sys.executable, "-c", kill, str(k), *args], cwd=ROOT, timeout=120,
                              capture_output=True)
        assert died.returncode == 9, died.stderr
        assert Path(f"{path}-wal").exists()  # killed: the WAL was not folded in by a clean close
        again = subprocess.run([sys.executable, "-c", RUN, *args], cwd=ROOT, timeout=120,
                               capture_output=True, text=True)
        assert again.returncode == 0, again.stderr
        assert [to_json(e) for e in SqliteJournal(path).replay().events] == expected, f"killed after {k}"  # type: ignore[union-attr]


def test_the_live_table_asks_the_judge_on_the_remote_and_waits(tmp_path, monkeypatch):
    """tianhei table (and the service) with a saved game that differs: no crash, no restart loop; the remote
    lists what differs; the judge closes it and the new game is dealt."""
    from controller.config import load
    from controller.live import LiveOptions, run_live
    from controller.ports import RemoteKey
    from controller.sim.table import SimTable

    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    path = tmp_path / "j.sqlite"
    s = session("standard-2.0", 8, 1, "heuristic", journal_path=path)
    s.start()
    s.run(max_time=100)
    assert s.journal is not None
    s.journal.close()
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\n[game]\nplayers = 9\n[journal]\npath = "{path}"\n')
    tables: list[SimTable] = []
    real_init = SimTable.__init__

    def remember(self, *a, **k):
        real_init(self, *a, **k)
        tables.append(self)

    monkeypatch.setattr(SimTable, "__init__", remember)
    seen = []

    async def evening():
        started = asyncio.Event()
        task = asyncio.create_task(run_live(load(cfg), LiveOptions(window=False, on_started=lambda d: (
            seen.append(d), started.set()))))
        # run_live is the real table on the real asyncio loop (what this test is about), so there is no virtual
        # clock to advance: yield to the loop in short turns, bounded (2 s), until the remote shows the question.
        for _ in range(200):
            await asyncio.sleep(0.01)
            if tables and tables[0].remote is not None and tables[0].remote.frames:
                break
        assert not task.done() and not started.is_set()  # waiting for the judge
        tables[0].remote_key(RemoteKey.DOWN)  # "close it, start new"
        tables[0].remote_key(RemoteKey.CENTER)
        await asyncio.wait_for(started.wait(), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(evening())
    assert seen[0].config.players == 9
    j = SqliteJournal(path)
    assert j.replay(1).closed == "abandoned" and j.replay(2).identity.players == 9  # type: ignore[union-attr]


def test_the_remote_lists_the_saved_game_what_differs_and_the_two_ways(tmp_path):
    from controller.director.saved import ABANDON, RESUME, find_saved
    from controller.director.saved_choice import SavedGameChoice
    from controller.ports import RemoteKey, RemoteKeyEvent
    from controller.sim.table import SimTable

    path = tmp_path / "j.sqlite"
    s = session("standard-2.0", 12, 1, "heuristic", journal_path=path)
    s.start()
    s.run(max_time=100)
    saved = find_saved(SqliteJournal(path), GameIdentity.of(game_config("standard-2.0", 10), 1, None, "sim"))
    assert saved is not None and not saved.matches
    chosen: list[str] = []
    table = SimTable(12, lambda: 0.0)
    choice = SavedGameChoice(table, saved, chosen.append, lang="en")
    choice.start()
    items = choice.items()
    assert items[0].startswith("standard-2.0, 12 players") and "players 12 (asked 10)" in items
    assert table.remote is not None and table.remote.frames == 1
    table.remote_key(RemoteKey.CENTER)
    assert chosen == [RESUME]
    chosen.clear()
    choice = SavedGameChoice(table, saved, chosen.append)
    choice.start()
    for key in (RemoteKey.DOWN, RemoteKey.CENTER):
        choice.handle(RemoteKeyEvent(key, True, 0.0))
    assert chosen == [ABANDON]


def test_the_service_resumes_a_game_chosen_at_check_in_without_a_question(tmp_path, monkeypatch):
    """tianhei serve: the players, the variant and its options were chosen at check-in and the seed drawn
    afresh, so a saved 9-player v3.0 game is resumed as it is, though the configuration says 12 players of
    standard-2.0 and this start drew another seed."""
    from controller.config import load
    from controller.live import LiveOptions, run_live

    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    path = tmp_path / "j.sqlite"
    s = session("v3.0", 10, 77, "heuristic", journal_path=path)
    s.start()
    s.run(max_time=100)
    assert s.journal is not None
    cut = len(s.director.events)
    s.journal.close()
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\njudge = "none"\n[journal]\npath = "{path}"\n')
    seen = []

    async def restart():
        started = asyncio.Event()
        opts = LiveOptions(window=False, seed=12345, chosen_at_checkin=True, seed_drawn=True,
                           on_started=lambda d: (seen.append(d), started.set()))
        task = asyncio.create_task(run_live(load(cfg), opts))
        await asyncio.wait_for(started.wait(), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(restart())
    d = seen[0]
    assert d.config.variant.id == "v3.0" and d.config.players == 10 and d.seed == 77
    assert len(d.events) >= cut and d.stage in ("play", "over")
