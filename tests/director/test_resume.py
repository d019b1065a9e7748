"""A power cut at any moment: the game is resumed from its journal by a new table and ends exactly as the
uninterrupted game would have; every screen is redrawn. A journal that is not ours is set aside, never lost."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.screens import views as v
from controller.sessions.session import Session
from tests.director.helpers import play, session

SETUPS = [
    ("standard-2.0", 12, {}, False),
    ("standard-2.0", 10, {"tie": "revote", "first_night": "recognition"}, True),
    ("v3.0", 11, {}, False),
    ("classic-1.0", 9, {}, True),
    ("v7.0", 14, {}, False),
    ("dual-card-6.0", 9, {}, True),  # two cards a seat, tapped at the deal; the first identity chosen
    ("dual-card-5.0", 8, {}, True),  # two card places a seat: a vote called again must not give a second hand
    ("werewolf-12", 12, {}, False),  # W3: every step called every night, the calls of dead roles too
]


def outcome(s: Session) -> dict[str, Any]:
    st_ = s.director.state
    assert st_ is not None and st_.over
    return {"winner": st_.winner, "days": st_.day, "nights": st_.night,
            "alive": {seat: (st_.role_of(seat), seat in st_.alive) for seat in s.director.ui}}


def uninterrupted(tmp: Path, setup: tuple[Any, ...], seed: int) -> dict[str, Any]:
    variant, players, options, cards = setup
    s = session(variant, players, seed, "heuristic", options, journal_path=tmp / "whole.sqlite", cards=cards)
    play(s)
    return outcome(s)


def with_power_cuts(tmp: Path, setup: tuple[Any, ...], seed: int, cuts: list[float]) -> dict[str, Any]:
    """Run the game, cutting the power after each of ``cuts`` virtual seconds of a table's life."""
    variant, players, options, cards = setup
    path = tmp / f"cut-{seed}-{'-'.join(f'{c:g}' for c in cuts)}.sqlite"
    for n, cut in enumerate([*cuts, None]):
        s = session(variant, players, seed, "heuristic", options, journal_path=path, cards=cards)
        assert s.journal_note is None
        s.start()
        if n > 0 and s.director.stage != "deal":
            s.clock.run(max_time=s.clock.now() + 0.001)
            assert all(ui.drawn is not None for ui in s.director.ui.values()), "a screen was not redrawn"
            physical = getattr(s, "physical", None) or s.table  # D2: the seats behind the card places
            assert all(seat.frames > 0 for seat in physical.seats.values())
        s.run(max_time=cut)
        if cut is None:
            return outcome(s)
        if s.director.stage == "over":
            return outcome(s)
        # the power goes: nothing is closed, nothing is flushed beyond what the journal already made durable
    raise AssertionError("unreachable")


@pytest.mark.parametrize("setup", SETUPS, ids=lambda x: x[0])
def test_a_game_cut_every_so_often_ends_as_the_uninterrupted_one(tmp_path, setup):
    whole = uninterrupted(tmp_path, setup, 4)
    for cut in (3.0, 40.0, 95.0, 170.0, 333.0):
        assert with_power_cuts(tmp_path, setup, 4, [cut]) == whole, f"cut at {cut}s"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 500),
       cuts=st.lists(st.floats(0.5, 400.0, allow_nan=False), min_size=1, max_size=3))
def test_power_cuts_at_random_moments_change_nothing(tmp_path, setup, seed, cuts):
    assert with_power_cuts(tmp_path, setup, seed, cuts) == uninterrupted(tmp_path, setup, seed)


def test_a_resumed_table_says_it_was_restored_and_redraws_the_window(tmp_path):
    path = tmp_path / "j.sqlite"
    s1 = session("standard-2.0", 8, 2, "heuristic", journal_path=path)
    s1.start()
    s1.run(max_time=60)  # mid-game with either voice pack (the neural one ends this game before 100 s)
    w1 = s1.director.window
    left = None if w1 is None else w1.deadline - s1.clock.now()
    s2 = session("standard-2.0", 8, 2, None, journal_path=path)
    s2.start()
    s2.clock.run(until=lambda: s2.director.window is not None)
    assert "game.restored" in s2.voice.prompts_said()
    for seat, ui in s2.director.ui.items():
        assert ui.drawn == s1.director.ui[seat].drawn or not isinstance(ui.drawn, v.Paused)
    if w1 is not None and w1.kind not in ("vote",):
        w2 = s2.director.window
        assert w2.key == w1.key
        # the timer goes on from what was left at the last checkpoint (at most checkpoint_s more)
        assert left is not None and left <= w2.deadline - s2.clock.now() <= left + s2.timings.checkpoint_s


def test_a_damaged_journal_is_set_aside_and_reported(tmp_path):
    path = tmp_path / "evening.sqlite"
    path.write_bytes(b"this was never a database" * 100)
    s = session("standard-2.0", 8, 1, "heuristic", journal_path=path)
    assert s.journal_note is not None and "set aside as evening.sqlite.unreadable-" in s.journal_note
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("evening.sqlite.unreadable-")]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this was never")
    assert play(s)["winner"] in ("killers", "good", "draw")  # a fresh journal was started


def test_another_programs_database_is_set_aside_and_reported(tmp_path):
    path = tmp_path / "evening.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (id INTEGER, name TEXT)")
    db.execute("INSERT INTO photos VALUES (1, 'holiday')")
    db.commit()
    db.close()
    s = session("standard-2.0", 8, 1, "heuristic", journal_path=path)
    assert s.journal_note is not None and "not a Tianhei journal" in s.journal_note
    aside = next(p for p in tmp_path.iterdir() if p.name.startswith("evening.sqlite.unreadable-")
                 and not p.name.endswith(("-wal", "-shm")))
    assert sqlite3.connect(aside).execute("SELECT name FROM photos").fetchone() == ("holiday",)


def test_the_cli_reports_a_set_aside_journal(tmp_path, capsys):
    from controller.cli import main

    path = tmp_path / "j.sqlite"
    path.write_bytes(b"\0garbage" * 64)
    assert main(["run", "--players", "8", "--seed", "3", "--journal", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    assert "set aside as j.sqlite.unreadable-" in out


def test_a_vote_cut_by_a_power_failure_goes_on_from_the_call_that_took_the_last_hand(tmp_path):
    """V2.5 calls every candidate once: after the cut the table does not call again the candidates whose calls
    were made in full; it calls again the one that took the last hand (its window may have been cut short)."""
    path = tmp_path / "j.sqlite"
    s = session("standard-2.0", 12, 6, "heuristic", journal_path=path)
    s.start()

    def moved_on_after_hands() -> bool:
        w, st_ = s.director.window, s.director.state
        if w is None or w.kind != "vote" or st_ is None or not st_.picks or w.call is None:
            return False
        return w.call[0] != [t for t in st_.picks.values() if t is not None][-1]

    s.clock.run(until=moved_on_after_hands, max_time=3600)
    st_ = s.director.state
    assert st_ is not None
    order = [c for c in st_.waiting.choices if c is not None]
    last = [t for t in st_.picks.values() if t is not None][-1]
    called_before = order[:order.index(last)]
    assert called_before  # seed 6: the hands went to the third candidate called (6, 7, then 8)
    # the power goes; a new table resumes from the journal
    r = session("standard-2.0", 12, 6, "heuristic", journal_path=path)
    r.start()
    r.clock.run(until=lambda: r.director.window is not None and r.director.window.call is not None,
                max_time=r.clock.now() + 60)
    calls = [p for p in r.voice.prompts_said() if p.startswith("seat.")]
    assert calls[0] == f"seat.{last}"
    assert not any(f"seat.{c}" == p for c in called_before for p in calls)


def test_a_press_a_seat_node_kept_from_before_the_restart_does_not_land_in_the_resumed_window(tmp_path):
    """The table restarted (a crash, the watchdog) while the seat nodes kept their power: a node hands over the
    presses still queued in it as soon as the new table polls it, made on the screen of before. The resumed
    game takes presses made from its start on, so that old OK does not confirm whatever the cursor points at."""
    from controller.ports import Button, ButtonEvent

    path = tmp_path / "j.sqlite"
    s1 = session("standard-2.0", 8, 2, "heuristic", journal_path=path)
    s1.start()
    s1.clock.run(until=lambda: s1.director.window is not None and s1.director.window.kind == "night")
    s2 = session("standard-2.0", 8, 2, None, journal_path=path)
    resumed = s2.clock.now()
    s2.start()
    s2.clock.run(until=lambda: s2.director.window is not None)
    w = s2.director.window
    assert w.kind == "night"
    killer = w.seats[0]
    picks = dict(s2.director.state.picks)
    old = resumed - 1.0  # made while the table was down, a second before it resumed the game
    s2.director.handle(ButtonEvent(killer, Button.OK, True, old))
    s2.director.handle(ButtonEvent(killer, Button.OK, False, old))
    assert s2.director.state.picks == picks and s2.director.window is w, "a press from before the restart was taken"
    now = s2.clock.now()
    s2.director.handle(ButtonEvent(killer, Button.OK, True, now))  # a press made now is the player's
    s2.director.handle(ButtonEvent(killer, Button.OK, False, now))
    assert s2.director.state.picks != picks or s2.director.window is not w


def test_a_werewolf_board_resumed_from_its_journal_still_speaks_its_files_words(tmp_path):
    """A journal keeps the variant's rules, not its [words]: the table that resumes the game takes them from the
    file again (W boards: the roles' calls, the ending in the board's words)."""
    path = tmp_path / "cut.sqlite"
    first = session("werewolf-12", 12, 4, "heuristic", {}, journal_path=path)
    first.start()
    first.run(max_time=40.0)  # the power goes in the first night
    again = session("werewolf-12", 12, 4, "heuristic", {}, journal_path=path)
    assert again.saved is not None and again.director.config.variant.words["calls"]
    again.start()
    again.run()
    said = again.voice.prompts_said()
    assert "role.werewolf.wake" in said and any(p.startswith("ending.werewolf_12.") for p in said)
