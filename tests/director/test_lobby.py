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


# ---- the setup page: the judge chooses the variant and its options on the remote --------------------------------
def setup_lobby():
    from controller.rules.variant import builtin_ids

    clock = VirtualScheduler()
    table = SimTable(12, clock.now)
    started: list[int] = []
    variants = [load_variant(i) for i in builtin_ids() if i in ("classic-1.0", "standard-2.0", "v3.0")]
    lob = Lobby(table, clock, load_variant("standard-2.0"), {}, started.append, lang="en", variants=variants)
    lob.start()
    return table, lob, started


def move_to(table, lob, name):
    while lob.setup_rows()[lob.row][0] != name:
        table.remote_key(RemoteKey.DOWN)


def test_the_judge_sets_the_tie_procedure_and_the_vote_window_then_seats_check_in_and_the_game_starts():
    table, lob, started = setup_lobby()
    table.remote_key(RemoteKey.MENU)  # to the setup page
    assert lob.page == "setup" and lob.setup_rows()[0] == ("variant", "standard-2.0")
    move_to(table, lob, "tie")
    table.remote_key(RemoteKey.RIGHT)  # V2.7: club -> revote
    assert lob.options["tie"] == "revote"
    move_to(table, lob, "vote.window_s")
    table.remote_key(RemoteKey.RIGHT)
    table.remote_key(RemoteKey.RIGHT)  # V2.6: 2 s -> 3 s
    assert lob.options["vote.window_s"] == 3.0
    shown = table.remote.image
    table.remote_key(RemoteKey.MENU)  # back to the check-in page
    assert lob.page == "checkin" and table.remote.image.tobytes() != shown.tobytes()
    for seat in range(1, 13):
        table.click(seat, Button.OK)
    assert lob.deck() == "3 killer, 3 police, 6 civilian"
    table.remote_key(RemoteKey.CENTER)
    assert started == [12] and lob.variant.id == "standard-2.0"
    assert lob.options == {"tie": "revote", "vote.window_s": 3.0}


def test_choosing_another_variant_resets_its_options_and_changes_the_deck():
    table, lob, started = setup_lobby()
    table.remote_key(RemoteKey.MENU)
    move_to(table, lob, "tie")
    table.remote_key(RemoteKey.RIGHT)
    move_to(table, lob, "variant")
    table.remote_key(RemoteKey.RIGHT)  # standard-2.0 -> v3.0
    assert lob.variant.id == "v3.0" and lob.options == {}
    assert lob.setup_rows()[1:] == [(k, d) for k, d in load_variant("v3.0").options.items()]
    table.remote_key(RemoteKey.LEFT)
    table.remote_key(RemoteKey.LEFT)  # and round to classic-1.0
    assert lob.variant.id == "classic-1.0"
    lob.count = 10
    assert "killer" in lob.deck() and "police" not in lob.deck()  # V1.1: no police in the entry game
    table.remote_key(RemoteKey.CENTER)
    assert started == [10]


def test_a_switch_flips_and_a_number_stays_within_its_bounds():
    table, lob, _started = setup_lobby()
    table.remote_key(RemoteKey.MENU)
    move_to(table, lob, "defence.suspects")
    table.remote_key(RemoteKey.RIGHT)
    assert lob.options["defence.suspects"] is True
    move_to(table, lob, "vote.window_s")
    for _ in range(10):
        table.remote_key(RemoteKey.LEFT)
    assert lob.options["vote.window_s"] == 0.1  # the option's minimum (V2.6)
    move_to(table, lob, "lastwords.quota")
    table.remote_key(RemoteKey.LEFT)
    assert lob.options["lastwords.quota"] == 0
