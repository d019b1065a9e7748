"""The judge's commands from the phone, on the scripted table and the virtual clock: each reaches the director
through the same table as the handheld's menu, asks the same confirmation first, answers in the handheld's words,
and the judge's view shows what happened."""

from __future__ import annotations

from controller.rules.events import Died
from controller.screens import views as v
from controller.screens.views import L10n
from controller.web import commands
from controller.web.views import judge_view
from tests.director.helpers import ScriptedTable

CARDS = "K K P P C C C C"  # killers 1, 2; police 3, 4; civilians 5-8


def phone(t: ScriptedTable, name: str, confirmed: bool = True, **args) -> commands.Answer:
    """The judge presses ``name`` on the phone (and, if it asks, confirms)."""
    first = commands.run(t.director, None, name, args, False)
    if first.confirm and confirmed:
        return commands.run(t.director, None, name, args, True)
    return first


def offered(t: ScriptedTable) -> list[str]:
    """The commands the page shows open (the others greyed out)."""
    return [name for name, open_ in judge_view(t.director, "en")["commands"].items() if open_]


def first_day() -> ScriptedTable:
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    t.first_night(kill=5, check=1)
    return t


def test_the_judge_sees_every_role_and_the_killers_pointing_at_night():
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 6)  # seat 1 picks 6; seat 2 has not chosen yet
    view = judge_view(t.director, "en")
    seats = {s["seat"]: s for s in view["seats"]}
    assert [seats[n]["role"] for n in (1, 3, 5)] == ["Killer", "Police", "Civilian"]
    assert seats[1]["pick"] == "6" and seats[2]["pick"] is None and seats[1]["acting"]
    assert view["turn"] == "Killer 1 2: Kill" and view["countdown"]["total"] > 0
    zh = judge_view(t.director, "zh")
    assert zh["turn"] == "杀手 1 2 杀人" and zh["headline"] == "第1夜"


def test_the_judge_ejects_seat_5_from_the_phone_after_confirming_and_the_speech_goes_on():
    t = first_day()
    t.until_window("speeches")
    speaker = t.director.state.queue[0]
    target = next(s for s in (6, 7, 8) if s != speaker)  # a civilian: the game goes on
    asked = commands.run(t.director, None, "eject", {"seat": target}, False)
    assert asked.confirm and asked.message == L10n(f"请出场：{target}号？", f"Eject: Seat {target}?")  # the handheld's second press
    assert target in t.director.state.alive  # nothing happens until the judge confirms
    done = commands.run(t.director, None, "eject", {"seat": target}, True)
    assert done.ok and not done.confirm
    assert t.director.remote_lines[-1] == done.message == L10n(f"{target}号已被请出场", f"Seat {target} ejected")
    assert any(isinstance(e, Died) and e.seat == target and e.cause == "ejected" for e in t.director.events)
    t.until_wait()
    assert t.director.window.kind == "speeches" and t.director.state.queue[0] == speaker  # the speech goes on
    t.run_for(5)
    assert isinstance(t.screen(target), v.Dead) and t.screen(target).seat == target
    view = judge_view(t.director, "en")
    assert not next(s for s in view["seats"] if s["seat"] == target)["alive"]
    assert any("ejected" in line for line in view["story"])


def test_undo_from_the_phone_brings_the_ejected_seat_back():
    t = first_day()
    t.until_window("speeches")
    speaker = t.director.state.queue[0]
    target = next(s for s in sorted(t.director.state.alive) if s != speaker)
    assert phone(t, "eject", seat=target).ok
    assert phone(t, "undo").ok
    assert target in t.director.state.alive
    t.until_wait()
    assert "game.undone" in t.said()


def test_pause_and_resume_from_the_phone_freeze_the_speech():
    t = first_day()
    w = t.until_window("speeches")
    speaker = t.director.state.queue[0]
    assert phone(t, "pause").ok and t.director.paused
    assert judge_view(t.director, "en")["paused"]
    t.run_for(1000)
    assert t.director.state.queue[0] == speaker
    again = phone(t, "pause")
    assert not again.ok and again.status == 409  # already paused: the page had a stale button
    assert phone(t, "resume").ok and not t.director.paused
    assert t.director.window is not None and t.director.window.kind == w.kind


def test_a_surrender_with_partners_alive_is_refused_with_the_rule():
    """V2.11: a side may surrender only when the one who asks has no partner left alive."""
    t = first_day()
    t.until_window("speeches")
    out = phone(t, "surrender", seat=1)
    assert not out.ok and out.status == 409
    assert out.message == L10n("1号还有同伴在场，不能投降（V2.11）", "Seat 1 has partners alive: no surrender (V2.11)")
    assert 1 in t.director.state.alive and t.director.stage == "play"


def test_extend_end_timer_and_repeat_reach_the_director():
    t = first_day()
    w = t.until_window("speeches")
    before = w.deadline
    assert phone(t, "extend", seconds=30).ok and t.director.window.deadline == before + 30
    assert phone(t, "repeat").ok
    speaker = t.director.state.queue[0]
    assert phone(t, "end_timer").ok
    t.until_wait()
    assert t.director.state.queue[:1] != (speaker,)


def test_bad_arguments_are_one_clear_line_and_change_nothing():
    t = first_day()
    t.until_window("speeches")
    alive = set(t.director.state.alive)
    for args in ({"seat": 99}, {"seat": "5"}, {"seat": True}, {}):
        out = commands.run(t.director, None, "eject", args, True)
        assert not out.ok and out.status == 400 and out.message.en and out.message.zh
    assert commands.run(t.director, None, "extend", {"seconds": 1e9}, True).status == 400
    assert commands.run(t.director, None, "launch_missiles", {}, True).status == 400
    assert set(t.director.state.alive) == alive


def test_judge_entry_from_the_phone():
    t = ScriptedTable("standard-2.0", CARDS, judge_entry=True)
    t.deal()
    t.until_window("night", "kill")
    view = judge_view(t.director, "en")
    assert view["commands"]["judge_pick"] and 8 in view["choice_seats"]
    assert offered(t) == list(t.director.menu_rows)
    assert phone(t, "judge_pick", target=8).ok
    t.until_window("night", "check")
    assert [a.target for a in t.director.state.acts if a.step == "kill"] == [8]


def test_abort_from_the_phone_ends_the_game_after_confirming():
    t = first_day()
    t.until_window("speeches")
    assert phone(t, "abort", confirmed=False).confirm and t.director.stage == "play"
    assert phone(t, "abort").ok and t.director.stage == "over"


def test_the_phone_offers_what_the_handhelds_menu_offers():
    """One table of commands for both remotes: the page's open buttons are the handheld menu's rows (at night
    too: see the judge's entry below)."""
    t = first_day()
    t.until_window("speeches")
    assert offered(t) == list(t.director.menu_rows) and "judge_pick" not in offered(t)
    assert phone(t, "pause").ok
    assert offered(t) == list(t.director.menu_rows) and "resume" in offered(t) and "pause" not in offered(t)


def test_an_unconfirmed_command_is_never_run_whatever_it_carries():
    """A page that skips the question changes nothing: a good value is asked about, a bad one refused."""
    t = first_day()
    t.until_window("speeches")
    alive, events = set(t.director.state.alive), len(t.director.events)
    for name, args in (("eject", {"seat": 6}), ("penalty", {"seat": 7}), ("surrender", {"seat": 1}),
                       ("undo", {}), ("end_timer", {}), ("abort", {})):
        asked = commands.run(t.director, None, name, args, False)
        assert asked.ok and asked.confirm, name
    for args in ({"seat": True}, {"seat": 99}, {"seat": "6"}, {}):
        out = commands.run(t.director, None, "eject", args, False)
        assert not out.ok and not out.confirm and out.status == 400
    redeal = commands.run(t.director, None, "redeal", {}, False)  # the cards are dealt: not open now
    assert not redeal.ok and not redeal.confirm and redeal.status == 409
    assert set(t.director.state.alive) == alive and len(t.director.events) == events
    assert t.director.stage == "play" and not t.director.state.penalties


def test_before_the_deal_a_game_command_says_there_is_no_game():
    out = commands.run(None, None, "pause", {}, True)
    assert not out.ok and out.status == 409 and out.message.en == "the game has not been dealt yet"
