"""Before the game: seats check in with OK, the judge sees the deck to lay out, the game starts (V2.1, C5)."""

from controller.director.clock import VirtualScheduler
from controller.director.lobby import Lobby
from controller.ports import Button, RemoteKey
from controller.rules.variant import load_variant
from controller.sim.table import SimTable


def lobby(judge=True, seats=12):
    clock = VirtualScheduler()
    table = SimTable(seats, clock.now)
    started: list[int] = []
    lob = Lobby(table, clock, load_variant("standard-2.0"), {}, started.append, judge=judge, settle_s=20)
    lob.start()
    return clock, table, lob, started


def test_twelve_seats_check_in_and_the_judge_sees_three_killers_three_police_six_civilians():
    _clock, table, lob, started = lobby()
    for seat in range(1, 13):
        table.click(seat, Button.OK)
    assert lob.deck() == "3 killer, 3 police, 6 civilian"
    table.remote_key(RemoteKey.CENTER)
    assert started == [12]


def test_pressing_ok_again_leaves_and_a_gap_in_the_seats_is_refused():
    _clock, table, lob, started = lobby()
    for seat in range(1, 10):
        table.click(seat, Button.OK)
    table.click(5, Button.OK)  # seat 5 leaves
    assert lob.ready() == "players sit in seats 1..8"
    table.remote_key(RemoteKey.CENTER)
    assert started == []


def test_the_judge_sets_the_count_instead():
    _clock, table, lob, started = lobby()
    for _ in range(10):
        table.remote_key(RemoteKey.RIGHT)
    assert lob.players() == 10 and lob.deck() == "2 killer, 2 police, 6 civilian"
    table.remote_key(RemoteKey.CENTER)
    assert started == [10]


def test_too_few_players_for_the_variant_is_said_on_the_remote():
    _clock, table, lob, started = lobby()
    for seat in range(1, 6):
        table.click(seat, Button.OK)
    assert "no row for 5 players" in lob.deck()
    table.remote_key(RemoteKey.CENTER)
    assert started == []


def test_without_a_judge_the_game_starts_once_check_ins_settle():
    clock, table, _lob, started = lobby(judge=False)
    for seat in range(1, 9):
        clock.call_at(seat, lambda seat=seat: table.click(seat, Button.OK))
    clock.run(max_time=20.0)
    assert started == []  # seat 8 joined at 8 s: the 20 s settle ends at 28 s
    clock.run()
    assert started == [8] and clock.now() == 28.0
