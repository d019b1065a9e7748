"""Scripted moments of a game, every input an explicit press on the simulated table."""

from __future__ import annotations

from controller.director.director import LED_NOD, LED_SHAKE, LED_SPEAKER
from controller.director.timing import Timings
from controller.ports import LED_OFF, Button, RemoteKey
from controller.rules.events import Acted, Died
from controller.screens import views as v
from tests.director.helpers import ScriptedTable

CARDS = "K K P P C C C C"  # killers 1, 2; police 3, 4; civilians 5-8


def first_day(kill: int = 5, check: int = 1) -> ScriptedTable:
    """Night 1 played: killers 1 and 2 kill ``kill``, police 3 and 4 check ``check``."""
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    t.first_night(kill, check)
    return t


def test_a_killer_moves_the_pointer_with_next_and_confirms_with_ok():
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    t.until_window("night", "kill")
    shown = t.screen(1)
    assert isinstance(shown, v.NightChoice) and shown.action == "kill"
    t.table.click(1, Button.NEXT)
    t.table.click(1, Button.NEXT)
    after = t.screen(1)
    assert isinstance(after, v.NightChoice) and after.target != shown.target and not after.confirmed
    t.table.click(1, Button.PREV)
    t.point(1, 6)
    # C6: the other killer sees the partner's pick on their own screen; the pick is not settled alone
    partner = t.screen(2)
    assert isinstance(partner, v.NightChoice) and partner.partner_picks == ((1, 6),)
    assert t.director.window.step == "kill"
    t.point(2, 6)
    t.until_window("night", "check")
    assert [a.target for a in t.director.state.acts if a.step == "kill"] == [6]
    # while the police wake, every other seat is dark
    for seat in (1, 2, 5, 6, 7, 8):
        assert t.screen(seat) == v.Dark()


def test_the_police_see_a_nod_for_a_killer_screen_and_green_led_for_answer_s():
    t = first_day(check=1)
    t.run_until(lambda: isinstance(t.screen(3), v.PoliceAnswer))
    start = t.clock.now()
    for police in (3, 4):
        assert t.screen(police) == v.PoliceAnswer(1, v.Answer.NOD)
        assert t.led(police) == LED_NOD
    for other in (1, 2, 5, 6, 7, 8):
        assert t.led(other) == LED_OFF and not isinstance(t.screen(other), v.PoliceAnswer)
    t.run_until(lambda: t.led(3) == LED_OFF)
    assert t.clock.now() - start == Timings().answer_s
    assert t.screen(3) == v.Dark()


def test_the_police_see_a_shake_for_a_civilian_led_red():
    t = first_day(check=7)
    t.run_until(lambda: isinstance(t.screen(3), v.PoliceAnswer))
    assert t.screen(4) == v.PoliceAnswer(7, v.Answer.SHAKE)
    assert t.led(3) == LED_SHAKE and t.led(4) == LED_SHAKE


def test_the_speakers_led_is_lit_and_their_ok_passes_to_the_next():
    t = first_day()
    w = t.until_window("last_words")
    assert t.director.state.queue[0] == 5
    assert isinstance(t.screen(5), v.YourSpeech) and t.screen(5).last_words
    t.ok(5)
    w = t.until_window("speeches")
    speaker = t.director.state.queue[0]
    assert t.led(speaker) == LED_SPEAKER
    assert isinstance(t.screen(speaker), v.YourSpeech)
    listener = next(s for s in t.director.state.alive if s != speaker)
    assert t.screen(listener) == v.Speaking(speaker, t.screen(listener).countdown, False)
    assert t.led(listener) == LED_OFF
    t.ok(speaker)
    t.until_window("speeches")
    assert t.director.state.queue[0] != speaker
    assert t.led(speaker) == LED_OFF
    assert w is not t.director.window


def test_a_speech_is_warned_then_passes_by_itself_at_the_deadline():
    t = first_day()
    t.ok(5)
    t.until_window("speeches")
    speaker = t.director.state.queue[0]
    t.run_until(lambda: t.director.state.queue[0] != speaker)
    beeps = [c.what for c in t.voice.cues if c.what.startswith("beep")]
    assert beeps[-3:] == ["beep warning", "beep warning", "beep final"]  # at 30 s and 10 s left, then the end


def vote_day() -> ScriptedTable:
    t = first_day()
    t.talk()
    assert t.director.window.kind == "vote"
    return t


def test_a_hand_in_the_window_counts_and_a_second_hand_is_already_voted():
    t = vote_day()
    w = t.until_window("vote", open_=True)
    first = w.call[0]
    voter = next(s for s in sorted(t.director.state.alive) if s != first)
    t.ok(voter)
    assert t.screen(voter) == v.VoteFeedback(v.VoteResult.COUNTED, first)
    assert t.led(voter) != LED_OFF or t.director.state.picks[voter] == first
    w = t.until_window("vote", open_=True, call=w.calls[0])
    t.ok(voter)  # V2.5: one vote each
    assert t.screen(voter) == v.VoteFeedback(v.VoteResult.ALREADY, w.call[0])
    assert t.director.state.picks[voter] == first


def test_a_late_hand_is_not_counted_and_changes_nothing():
    """V2.6: a hand raised after the window is a follow-vote; that seat is told, nothing else changes."""
    t = vote_day()
    w = t.until_window("vote", open_=True)
    candidate = w.call[0]
    t.run_until(lambda: not w.window_open)
    t.run_for(0.2)
    picks = dict(t.director.state.picks)
    late = next(s for s in sorted(t.director.state.alive) if s != candidate)
    others = {s: t.screen(s) for s in t.director.ui if s != late}
    t.ok(late)
    assert t.screen(late) == v.VoteFeedback(v.VoteResult.LATE, candidate)
    assert dict(t.director.state.picks) == picks
    assert {s: t.screen(s) for s in t.director.ui if s != late} == others
    # the message goes away after notice_s; the seat can still vote for a later candidate
    t.run_for(Timings().notice_s + 0.01)
    assert t.screen(late) != v.VoteFeedback(v.VoteResult.LATE, candidate)


def test_a_dead_seat_pressing_is_told_it_is_out():
    t = first_day()
    t.until_window("last_words")
    t.ok(5)
    t.until_window("speeches")
    t.table.click(5, Button.OK)
    assert t.screen(5) == v.Message(v.L10n("你已出局", "You are out"), v.L10n("请保持安静", "Please stay silent"))
    assert t.director.window.kind == "speeches"


def test_a_press_at_the_wrong_time_is_answered_on_that_seat_only():
    t = first_day()
    t.ok(5)
    t.until_window("speeches")
    speaker = t.director.state.queue[0]
    other = next(s for s in sorted(t.director.state.alive) if s != speaker)
    before = {s: t.screen(s) for s in t.director.ui if s != other}
    t.table.click(other, Button.NEXT)
    assert t.screen(other) == v.Message(v.L10n("请稍候", "Not now"), v.L10n("现在不是你的回合", "It is not your turn"))
    assert {s: t.screen(s) for s in t.director.ui if s != other} == before
    assert t.director.state.queue[0] == speaker


def test_pause_freezes_timers_and_resume_continues_with_the_time_left():
    t = first_day()
    t.ok(5)
    w = t.until_window("speeches")
    speaker = t.director.state.queue[0]
    t.run_for(20)
    left = w.deadline - t.clock.now()
    t.menu("pause")
    assert t.director.paused
    for seat in t.director.ui:
        assert t.screen(seat) in (v.Paused(), v.Dead(seat))
    t.run_for(1000)  # an hour of nothing: the speech does not end
    assert t.director.state.queue[0] == speaker and t.director.paused
    t.table.click(speaker, Button.OK)  # a press while paused changes nothing
    assert t.director.state.queue[0] == speaker
    t.menu("resume")
    resumed = t.clock.now()
    assert not t.director.paused
    w2 = t.director.window
    assert abs((w2.deadline - resumed) - left) < 1e-6
    assert isinstance(t.screen(speaker), v.YourSpeech)
    t.run_until(lambda: t.director.state.queue[0] != speaker)
    assert abs(t.clock.now() - (resumed + left)) < 1e-6


def test_undo_takes_back_the_last_input_after_a_confirmation():
    t = ScriptedTable("standard-2.0", CARDS)
    t.deal()
    t.until_window("night", "kill")
    t.point(1, 6)
    t.point(2, 6)
    t.until_window("night", "check")
    assert any(isinstance(e, Acted) and e.step == "kill" for e in t.director.events)
    t.table.remote_key(RemoteKey.MENU)
    while t.director.menu_rows[t.director.menu] != "undo":
        t.table.remote_key(RemoteKey.DOWN)
    t.table.remote_key(RemoteKey.CENTER)
    assert t.director.asking is not None and t.director.asking.confirming  # asks first
    assert t.director.window.step == "check"
    t.table.remote_key(RemoteKey.CENTER)
    w = t.until_window("night", "kill")
    assert not any(isinstance(e, Acted) and e.step == "kill" for e in t.director.events)
    assert "game.undone" in t.said()
    assert dict(t.director.state.picks) == {1: 6} and w.step == "kill"  # only seat 2's confirming pick was taken back
    t.point(2, 7)
    t.point(1, 7)
    t.until_window("night", "check")
    assert [a.target for a in t.director.state.acts if a.step == "kill"] == [7]


def test_judge_entry_the_judge_enters_the_pointed_at_seat():
    t = ScriptedTable("standard-2.0", CARDS, judge_entry=True)
    t.deal()
    t.until_window("night", "kill")
    t.table.click(1, Button.OK)
    assert t.screen(1) == v.Message(v.L10n("请指给法官", "Point it out"), v.L10n("法官录入", "The judge enters it"))
    assert not t.director.state.picks
    t.director.judge_pick(8)
    t.until_window("night", "check")
    assert [a.target for a in t.director.state.acts if a.step == "kill"] == [8]


def test_the_judge_ejects_a_player():
    """V2.11: an ejected player is out at once, announced by seat number."""
    t = first_day()
    t.until_window("last_words")
    t.director.eject(7, "talked at night")
    assert any(isinstance(e, Died) and e.seat == 7 and e.cause == "ejected" for e in t.director.events)
    t.run_for(10)
    said = t.said()
    assert "eject.ejected" in said and said[said.index("eject.ejected") - 1] == "seat.7"
    assert t.screen(7) == v.Dead(7, "ejected")  # the seat is told the judge ruled it out


def test_the_remote_menu_moves_and_closes():
    t = first_day()
    remote = t.table.remote
    frames = remote.frames
    t.table.remote_key(RemoteKey.MENU)
    assert t.director.menu == 0 and remote.frames > frames
    t.table.remote_key(RemoteKey.UP)
    assert t.director.menu_rows[t.director.menu] == "abort"
    t.table.remote_key(RemoteKey.BACK)
    assert t.director.menu is None
    t.menu("repeat")
    assert t.voice.said[-1].urgent and list(t.voice.said[-1].prompts) == t.director.last_prompts


def test_the_judge_extends_and_ends_the_timer():
    t = first_day()
    t.ok(5)
    w = t.until_window("speeches")
    deadline = w.deadline
    t.menu("extend")
    assert t.director.window.deadline == deadline + 30
    speaker = t.director.state.queue[0]
    t.menu("end_timer")
    t.until_wait()
    assert t.director.state.queue[0] != speaker
