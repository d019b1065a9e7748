"""Check-in with member cards (V2.13): a member taps their card on their seat and the seat shows their name,
or presses OK to play as a guest; the recruit camp refuses a member of level 2 or more, saying why; a member
card tapped during the deal is "a member card, not a role card", and nothing changes."""

from __future__ import annotations

from controller.club.cards import NOTICE_S, MemberCardGuard
from controller.club.service import Club
from controller.club.store import ClubStore
from controller.director.clock import VirtualScheduler
from controller.director.director import Director
from controller.director.lobby import Lobby, MemberCard
from controller.ports import Button, RemoteKey
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.screens import views as v
from controller.screens.render import render
from controller.sessions.session import sim_hands
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack


def shows(seat, view) -> bool:
    return seat.image.tobytes() == render(view, "en").tobytes()


def a_club(tmp_path, room="standard") -> Club:
    club = Club(ClubStore(tmp_path / "club.sqlite"), room=room)
    club.store.add_member("Ming", "c1ab0001")
    club.store.add_member("Qing", "c1ab000a", level=3)
    return club


def checkin(club: Club, seats=12):
    clock = VirtualScheduler()
    table = SimTable(seats, clock.now)
    started: list[int] = []

    def member_card(uid):
        check = club.card(uid)
        return None if check is None else MemberCard(check.member.name, check.words)

    lobby = Lobby(table, clock, load_variant("standard-2.0"), {}, started.append, lang="en",
                  member_card=member_card)
    lobby.start()
    return table, lobby, started


def test_seat_3_taps_mings_member_card_and_the_seat_shows_his_name(tmp_path):
    table, lobby, started = checkin(a_club(tmp_path))
    table.tap(3, "C1:AB:00:01")
    assert lobby.members == {3: "Ming"} and 3 in lobby.joined
    assert shows(table.seats[3], v.Message("Ming", v.L10n("3号 已签到", "Seat 3: checked in")))
    for seat in (1, 2, 4, 5, 6, 7, 8):  # the others play as guests
        table.click(seat, Button.OK)
    table.remote_key(RemoteKey.CENTER)
    assert started == [8]


def test_ming_moves_to_seat_5_and_seat_3_is_free_again(tmp_path):
    table, lobby, _ = checkin(a_club(tmp_path))
    table.tap(3, "c1ab0001")
    table.tap(5, "c1ab0001")
    assert lobby.members == {5: "Ming"} and lobby.joined == {5}


def test_the_recruit_camp_refuses_a_level_3_members_card_with_the_reason(tmp_path):
    """Seed 000: 「新兵營（僅限2級以下會員進入）」; 以下 includes the number (RULES.md V2.13 says "below 2")."""
    club = a_club(tmp_path, room="recruit")
    table, lobby, _ = checkin(club)
    table.tap(2, "c1ab000a")
    assert lobby.members == {} and 2 not in lobby.joined
    assert shows(table.seats[2], v.Message(v.L10n("不能签到", "Not admitted"),
                                           v.L10n("新兵营限2级以下", "Level 3: recruits up to level 2")))
    assert club.card("c1ab000a").refusal == \
        "Qing is level 3: the recruit camp is for members of level 2 and below (V2.13)"
    table.tap(2, "c1ab0001")  # Ming, level 1, is welcome
    assert lobby.members == {2: "Ming"}
    club.store.add_member("Lei", "c1ab0003", level=2)
    table.tap(4, "c1ab0003")  # 「僅限2級以下」: level 2 is still a recruit (seed 000)
    assert lobby.members == {2: "Ming", 4: "Lei"}


def test_a_card_that_is_no_member_card_is_said_and_ok_joins_as_a_guest(tmp_path):
    table, lobby, _ = checkin(a_club(tmp_path))
    table.tap(4, "04a10001")  # a role card
    assert 4 not in lobby.joined
    assert shows(table.seats[4], v.Message(v.L10n("不是会员卡", "Not a member card"),
                                           v.L10n("按OK作访客加入", "OK: join as a guest")))
    table.click(4, Button.OK)
    assert 4 in lobby.joined and lobby.members == {}


def test_a_member_card_tapped_during_the_deal_is_a_member_card_not_a_role_card_and_nothing_changes(tmp_path):
    club = a_club(tmp_path)
    clock = VirtualScheduler()
    config = configure(load_variant("standard-2.0"), 8, {})
    deck, hands = sim_hands(config, seed=4)
    physical = SimTable(8, clock.now)
    table = MemberCardGuard(physical, lambda uid: club.store.member_by_card(uid) is not None, clock, "en")
    voice = NullVoice(clock.now, load_voice_pack("en"))
    director = Director(table, voice, clock, config, seed=4, deck=deck, lang="en")
    director.start()
    clock.run(max_time=2.0)
    physical.tap(1, hands[1][0])  # seat 1's role card
    clock.run(max_time=3.0)
    before = (dict(director.dealt_cards), list(director.events), list(voice.said), physical.seats[1].image.copy())
    clock.call_at(clock.now() + 1.0, lambda: physical.tap(1, "c1ab0001"))  # Ming's member card
    clock.run(max_time=clock.now() + 1.5)
    assert shows(physical.seats[1], v.Message(v.L10n("会员卡", "Member card"), v.L10n("不是身份牌", "not a role card")))
    assert table.kept == [(1, "c1ab0001")]
    clock.run(max_time=clock.now() + NOTICE_S)
    assert (dict(director.dealt_cards), list(director.events), list(voice.said)) == before[:3]
    assert physical.seats[1].image.tobytes() == table.seats[1].last.tobytes()  # the seat's own screen is back
    for seat in range(2, 9):
        physical.tap(seat, hands[seat][0])
    clock.run(until=lambda: director.state is not None, max_time=60.0)
    assert director.state is not None and director.stage in ("deal", "play")  # the deal completed as usual
