"""Seed 000 「遊戲方式」 as rules: six waiting members open a room for the entry game; a room with free seats is filled
from the list; an entry room that reaches 11 players moves up to the standard game."""

from hypothesis import given
from hypothesis import strategies as st

from controller.hall.waiting import (
    ENTRY_VARIANT,
    STANDARD_VARIANT,
    Proposal,
    Room,
    next_variant,
    propose,
)

WAITING = [f"m{i}" for i in range(20)]


def test_six_members_waiting_open_an_empty_room_for_the_entry_game():
    rooms = [Room("3", seats=12, kind="entry")]
    assert propose(WAITING[:5], rooms) == []  # five are not enough
    assert propose(WAITING[:6], rooms) == [Proposal("open_entry", "3", tuple(WAITING[:6]), ENTRY_VARIANT)]


def test_a_room_with_free_seats_is_filled_from_the_list_first_come_first_served():
    rooms = [Room("1", seats=14, state="playing", players=tuple(f"p{i}" for i in range(12)), variant=STANDARD_VARIANT)]
    assert propose(WAITING[:3], rooms) == [Proposal("fill", "1", ("m0", "m1"))]


def test_a_room_between_games_is_filled_before_one_still_playing():
    between = Room("2", seats=10, state="ended", players=("a", "b", "c", "d", "e", "f", "g", "h"))
    playing = Room("1", seats=10, state="playing", players=("i", "j", "k", "l", "m", "n", "o", "p"))
    got = propose(WAITING[:3], [playing, between])
    assert got == [Proposal("fill", "2", ("m0", "m1")), Proposal("fill", "1", ("m2",))]


def test_an_entry_room_that_reaches_eleven_plays_the_standard_game_next():
    ten = Room("2", seats=12, kind="entry", state="ended", players=tuple(f"p{i}" for i in range(10)),
               variant=ENTRY_VARIANT)
    assert [p.kind for p in propose([], [ten])] == []
    eleven = Room("2", seats=12, kind="entry", state="ended", players=tuple(f"p{i}" for i in range(10)),
                  sent=("m0",), variant=ENTRY_VARIANT)
    assert propose([], [eleven]) == [Proposal("upgrade", "2", (), STANDARD_VARIANT)]
    decided = Room("2", seats=12, kind="entry", players=eleven.players, sent=eleven.sent, next_variant=STANDARD_VARIANT)
    assert propose([], [decided]) == []  # once moved up, not proposed again
    assert next_variant(decided, "x") == STANDARD_VARIANT


def test_eleven_waiting_for_an_empty_room_start_with_the_standard_game():
    got = propose(WAITING[:11], [Room("3", seats=12, kind="entry")])
    assert got == [Proposal("open_entry", "3", tuple(WAITING[:11]), STANDARD_VARIANT)]


def test_the_training_room_and_the_recruit_camp_are_left_to_the_organiser():
    rooms = [Room("t", seats=12, kind="training"), Room("r", seats=12, kind="recruit", players=("a",))]
    assert propose(WAITING[:8], rooms) == []


def test_someone_already_sent_to_a_room_is_not_proposed_again():
    rooms = [Room("1", seats=14, players=("a",) * 1, sent=("m0",))]
    assert all("m0" not in p.members for p in propose(WAITING[:3], rooms))


@given(waiting=st.lists(st.sampled_from(WAITING), max_size=20),
       rooms=st.lists(st.tuples(st.integers(6, 20), st.integers(0, 20), st.sampled_from(["standard", "entry",
                                                                                           "training"]),
                                st.sampled_from(["idle", "playing", "ended"])), max_size=4))
def test_nobody_is_proposed_twice_and_no_room_gets_more_people_than_seats(waiting, rooms):
    views = [Room(str(i), seats=seats, kind=kind, state=state, players=tuple(f"p{i}-{j}" for j in range(min(n, seats))))
             for i, (seats, n, kind, state) in enumerate(rooms)]
    got = propose(waiting, views)
    members = [m for p in got for m in p.members]
    assert len(members) == len(set(members)) and set(members) <= set(waiting)
    for room in views:
        added = sum(len(p.members) for p in got if p.room == room.id)
        assert room.people + added <= room.seats
        if any(p.kind == "open_entry" and p.room == room.id for p in got):
            assert room.people == 0 and room.state != "playing" and added >= 6
    for p in got:
        if p.kind == "open_entry":
            assert len(set(waiting)) >= 6
