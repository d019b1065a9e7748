"""The judge's commands, given as a judge gives them: on the handheld (choose with ◀/▶, confirm with a second
press, read the outcome), or through the same table from any other remote (the phone's console calls
``Director.judge``). A table without a judge: a player surrenders from the seat."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.director.journal import SqliteJournal
from controller.director.judge_commands import BY_NAME, COMMANDS, Outcome
from controller.ports import Button, RemoteKey
from controller.rules.events import Died, DirectionChosen, GameEnded, Penalised
from controller.screens import views as v
from tests.director.helpers import ScriptedTable

CARDS = "K K P P C C C C"  # killers 1, 2; police 3, 4; civilians 5-8


def first_day(lang: str = "en", **kw: object) -> ScriptedTable:
    """Night 1: the killers kill 8, the police check 5; the day begins."""
    t = ScriptedTable("standard-2.0", CARDS, lang=lang, **kw)  # type: ignore[arg-type]
    t.deal()
    t.first_night(kill=8, check=5)
    return t


def until_speech_of(t: ScriptedTable, seat: int) -> None:
    """Every speaker before ``seat`` passes, up to ``seat``'s own speech."""
    while True:
        w = t.until_wait()
        assert w.kind in ("speeches", "last_words"), t.where()
        if w.kind == "speeches" and t.director.state.queue[0] == seat:
            return
        t.ok(t.director.state.queue[0])


def remote_outcome(t: ScriptedTable) -> v.JudgeAsk:
    shown = t.remote()
    assert isinstance(shown, v.JudgeAsk), shown
    return shown


# ---- eject ---------------------------------------------------------------------------------------------------
def test_the_judge_ejects_seat_5_during_seat_3s_speech_seat_5_is_out_the_speech_goes_on():
    t = first_day()
    until_speech_of(t, 3)
    deadline = t.director.window.deadline
    t.menu("eject", 5)
    d = t.director
    assert 5 not in d.state.alive and d.state.queue[0] == 3  # V2.11 §5.15: out at once; seat 3 still speaks
    assert d.window is not None and d.window.deadline == deadline  # the speech's clock was not touched
    assert isinstance(t.screen(3), v.YourSpeech)
    shown = remote_outcome(t)  # the judge reads what became of it
    assert shown.done is True and shown.value == v.L10n("5号已被请出场", "Seat 5 ejected")
    t.run_for(5)
    said = t.said()
    assert said[said.index("eject.ejected") - 1] == "seat.5"  # the room hears "5号被法官罚出场"
    assert t.screen(5) == v.Dead(5, "ejected")  # the seat itself is told
    status = t.remote()  # a moment later the status is back, the outcome its newest line
    assert isinstance(status, v.JudgeStatus) and status.lines[-1] == v.L10n("5号已被请出场", "Seat 5 ejected")
    assert status.turn == v.L10n("3号发言", "Seat 3 speaks")


def test_the_remote_asks_again_before_an_ejection_and_back_changes_nothing():
    t = first_day()
    until_speech_of(t, 3)
    t.menu("eject", 6, confirm=False)
    asked = t.remote()
    assert isinstance(asked, v.JudgeAsk) and asked.value == v.L10n("请出场：6号？", "Eject: Seat 6?")
    t.table.remote_key(RemoteKey.BACK)
    assert 6 in t.director.state.alive and t.director.asking is None
    assert not any(isinstance(e, Died) and e.seat == 6 for e in t.director.events)


def journalled(journal: SqliteJournal) -> list[dict]:
    """The inputs still in effect, as a resumed table would read them back."""
    replay = journal.replay()
    assert replay is not None
    return [action for action, _n in replay.groups]


def test_an_ejection_is_journalled_and_undo_brings_the_seat_back(tmp_path: Path):
    journal = SqliteJournal(tmp_path / "j.sqlite")
    t = first_day(journal=journal)
    until_speech_of(t, 3)
    t.menu("eject", 6)
    assert {"type": "Eject", "seat": 6, "reason": ""} in journalled(journal)
    t.run_for(2)
    assert t.screen(3) is not None and t.director.ui[6].view == v.Dead(6, "ejected")
    t.menu("undo")
    d = t.director
    assert 6 in d.state.alive and not any(isinstance(e, Died) and e.seat == 6 for e in d.events)
    assert remote_outcome(t).value == v.L10n("已撤销：请出场：6号", "Undone: Eject: Seat 6")
    assert {"type": "Eject", "seat": 6, "reason": ""} not in journalled(journal)  # a resumed table agrees
    t.until_wait()
    assert not isinstance(t.screen(6), v.Dead)  # the seat is back in the game and its screen says so


# ---- penalty -------------------------------------------------------------------------------------------------
def test_the_judge_gives_seat_6_a_penalty_point_seat_6_sees_it_and_undo_takes_it_back():
    t = first_day()
    until_speech_of(t, 3)
    t.menu("penalty", 6)
    d = t.director
    assert d.state.penalties == {6: 1}
    assert any(isinstance(e, Penalised) and e.seat == 6 for e in d.events)
    assert t.screen(6) == v.Message(v.L10n("罚分", "Penalty point"), v.L10n("罚一分，共1分", "One point, 1 in all"))
    assert remote_outcome(t).value == v.L10n("6号罚分，共1分", "Seat 6: penalty, 1 in all")
    assert d.state.queue[0] == 3  # the speech goes on
    t.run_for(4)
    said = t.said()
    assert said[said.index("speech.out_of_turn") - 1] == "seat.6"  # the room hears "6号 请不要在别人发言时说话"
    t.menu("penalty", 6)
    assert d.state.penalties == {6: 2}
    t.menu("undo")
    assert d.state.penalties == {6: 1}


# ---- surrender (V2.11) ---------------------------------------------------------------------------------------
def test_a_killer_cannot_surrender_while_a_partner_is_alive_and_the_remote_says_why():
    t = first_day()
    until_speech_of(t, 3)
    said = len(t.said())
    t.menu("surrender", 1)
    d = t.director
    assert 1 in d.state.alive and not d.state.over
    shown = remote_outcome(t)
    assert shown.done is False
    assert shown.value == v.L10n("1号还有同伴在场，不能投降（V2.11）", "Seat 1 has partners alive: no surrender (V2.11)")
    t.run_for(3)
    assert "surrender.surrenders" not in t.said()[said:]  # a refusal is never said: it would tell who is who


def test_a_civilian_never_surrenders():
    t = first_day()
    until_speech_of(t, 3)
    out = t.director.judge("surrender", 6)
    assert not out.ok and out.code == "civilian_surrender"
    assert out.message == v.L10n("平民不能投降（V2.11）", "Civilians may not surrender (V2.11)")


def test_the_last_killer_surrenders_and_the_good_side_wins():
    t = first_day()
    until_speech_of(t, 3)
    t.menu("eject", 2)
    t.menu("surrender", 1)
    d = t.director
    assert d.state.over and d.state.winner == "good"
    assert any(isinstance(e, Died) and e.seat == 1 and e.cause == "surrendered" for e in d.events)
    assert any(isinstance(e, GameEnded) for e in d.events)
    t.until_over()
    said = t.said()
    assert said[said.index("surrender.surrenders") - 1] == "seat.1"
    assert isinstance(t.screen(1), v.GameOver)


# ---- the judge's entry of a pick, the direction ----------------------------------------------------------------
def test_in_judge_entry_the_judge_points_with_the_arrows_and_confirms():
    t = ScriptedTable("standard-2.0", CARDS, judge_entry=True)
    t.deal()
    t.until_window("night", "kill")
    t.table.remote_key(RemoteKey.RIGHT)  # menu closed: the arrows go straight to the entry
    ask = t.director.asking
    assert ask is not None and ask.command == "judge_pick"
    while t.director.judge_choices("judge_pick")[t.director.asking.choice].value != 6:
        t.table.remote_key(RemoteKey.RIGHT)
    assert remote_outcome(t).value == v.L10n("6号", "Seat 6")
    t.table.remote_key(RemoteKey.CENTER)
    assert not t.director.state.acts  # asks again first
    t.table.remote_key(RemoteKey.CENTER)
    t.until_window("night", "check")
    assert [a.target for a in t.director.state.acts if a.step == "kill"] == [6]


def test_the_judge_chooses_the_direction_of_the_speeches():
    """V2.4 ``speech.any_direction``: the judge chooses; the room hears which way."""
    t = ScriptedTable("standard-2.0", CARDS, {"speech.any_direction": True})
    t.deal()
    t.first_night(kill=8, check=5)
    t.talk()
    t.until_window("direction")
    assert "direction" in t.director.menu_rows
    t.menu("direction", False)
    assert any(isinstance(e, DirectionChosen) and e.direction == -1 for e in t.director.events)
    t.run_for(3)
    assert "speech.counterclockwise" in t.said()


# ---- one table, every remote -----------------------------------------------------------------------------------
def test_another_remote_calls_the_same_commands_and_gets_the_same_outcome():
    """The phone's console (or any adapter) gives commands by name: the same limits, the same words."""
    t = first_day()
    until_speech_of(t, 3)
    d = t.director
    offers = {o.command.name: o for o in d.judge_menu()}
    assert offers["eject"].open and [c.value for c in offers["eject"].choices] == sorted(d.state.alive)
    assert not offers["resume"].open and not offers["redeal"].open and not offers["direction"].open
    assert d.judge_question("eject", 5) == v.L10n("请出场：5号？", "Eject: Seat 5?")
    out = d.judge("eject", 5)
    assert out == Outcome(True, v.L10n("5号已被请出场", "Seat 5 ejected"))
    assert t.remote_told()[-1] == "Seat 5 ejected"  # the handheld shows what the phone did


@pytest.mark.parametrize(("name", "value", "code"), [
    ("fly", None, "unknown"),
    ("eject", 5, "not_a_choice"),      # seat 5 is already out
    ("eject", 99, "not_a_choice"),
    ("eject", True, "not_a_choice"),
    ("eject", "5", "not_a_choice"),
    ("penalty", None, "not_a_choice"),
    ("extend", 10_000, "not_a_choice"),
    ("resume", None, "not_now"),       # not paused
    ("redeal", None, "not_now"),       # the cards were dealt long ago
    ("judge_pick", 3, "not_now"),      # no night group is waiting
])
def test_a_bad_command_is_one_clear_line_and_changes_nothing(name, value, code):
    t = first_day()
    until_speech_of(t, 3)
    t.director.judge("eject", 5)
    before = (t.director.state, len(t.director.events), len(t.director.groups))
    out = t.director.judge(name, value)
    assert not out.ok and out.code == code
    assert out.message.en and out.message.zh and "\n" not in out.message.en
    assert (t.director.state, len(t.director.events), len(t.director.groups)) == before


def test_every_command_is_on_the_table_once_with_words_in_both_languages():
    names = [c.name for c in COMMANDS]
    assert names == ["pause", "resume", "repeat", "extend", "end_timer", "undo", "eject", "penalty", "surrender",
                     "self_destruct", "judge_pick", "direction", "redeal", "abort"]
    assert set(BY_NAME) == set(names)
    for c in COMMANDS:
        assert c.label.zh and c.label.en and c.rule
    assert {c.name for c in COMMANDS if c.confirm} >= {"undo", "eject", "penalty", "surrender", "abort", "redeal",
                                                       "self_destruct"}


def test_the_journal_keeps_the_judges_inputs_for_a_resumed_table(tmp_path: Path):
    journal = SqliteJournal(tmp_path / "j.sqlite")
    t = first_day(journal=journal)
    until_speech_of(t, 3)
    t.director.judge("eject", 6)
    t.director.judge("penalty", 7)
    assert journalled(journal)[-2:] == [{"type": "Eject", "seat": 6, "reason": ""}, {"type": "Penalty", "seat": 7}]


# ---- a table without a judge ---------------------------------------------------------------------------------
def hold_both(t: ScriptedTable, seat: int, seconds: float = 2.5) -> None:
    t.table.press(seat, Button.PREV)
    t.table.press(seat, Button.NEXT)
    t.run_for(seconds)
    t.table.release(seat, Button.PREV)
    t.table.release(seat, Button.NEXT)


def test_without_a_judge_a_player_holds_both_arrows_and_only_their_seat_is_asked():
    t = first_day(judge=False)
    until_speech_of(t, 3)
    question = v.Message(v.L10n("投降？", "Surrender?"), v.L10n("OK确认  ←→取消", "OK: yes  ←→: no"))
    others = {s: type(t.screen(s)) for s in t.director.ui if s != 1}
    hold_both(t, 1)
    assert t.screen(1) == question
    assert {s: type(t.screen(s)) for s in others} == others  # nobody else sees a thing
    t.table.click(1, Button.NEXT)  # no
    assert t.screen(1) != question and 1 in t.director.state.alive and not t.director.state.over


def test_without_a_judge_a_killer_with_a_partner_alive_is_refused_on_their_own_screen():
    t = first_day(judge=False)
    until_speech_of(t, 3)
    said = len(t.said())
    hold_both(t, 2)
    t.table.click(2, Button.OK)
    assert 2 in t.director.state.alive and not t.director.state.over
    shown = t.screen(2)
    assert isinstance(shown, v.Message)
    assert shown.body == v.L10n("2号还有同伴在场，不能投降（V2.11）", "Seat 2 has partners alive: no surrender (V2.11)")
    assert all(not isinstance(t.screen(s), v.Message) or s == 2 for s in t.director.ui if s != 3)
    t.run_for(3)
    assert not [p for p in t.said()[said:] if p.startswith("surrender")]


def test_without_a_judge_the_last_police_surrenders_from_the_seat():
    t = first_day(judge=False)
    until_speech_of(t, 3)
    t.director.judge("eject", 4)  # the judge's command table works without a judge's remote too (a test's hand)
    hold_both(t, 3)
    t.table.click(3, Button.OK)
    assert t.director.state.over and t.director.state.winner == "killers"


def test_a_short_press_of_both_arrows_asks_nothing():
    t = first_day(judge=False)
    until_speech_of(t, 3)
    hold_both(t, 1, seconds=0.5)
    assert t.director.ui[1].asking == ""


def test_with_a_judge_the_seat_gesture_does_nothing():
    t = first_day()
    until_speech_of(t, 3)
    hold_both(t, 1)
    assert t.director.ui[1].asking == ""


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seat=st.integers(1, 8), yes=st.booleans(), partner_out=st.booleans())
def test_a_seats_surrender_is_asked_and_answered_on_that_seat_alone(seat: int, yes: bool, partner_out: bool):
    """Property: whoever asks, whatever they answer, no other seat's screen shows the question or the answer,
    and the room hears nothing unless the surrender is accepted (V2.11: a refusal would tell who is who)."""
    t = first_day(judge=False)
    until_speech_of(t, 3)
    if partner_out:
        t.director.judge("eject", 2 if seat == 1 else 1 if seat == 2 else 4 if seat == 3 else 3)
        t.until_wait()
    if seat not in t.director.state.alive or t.director.state.over:
        return
    said = len(t.said())
    told: list[tuple[int, v.View]] = []
    notice = t.director.seats.notice

    def spy(to: int, view: v.View, keep: bool = False) -> None:
        told.append((to, view))
        notice(to, view, keep)
    t.director.seats.notice = spy  # type: ignore[method-assign]
    hold_both(t, seat)
    t.table.click(seat, Button.OK if yes else Button.PREV)
    t.run_for(1)
    private = (v.L10n("投降？", "Surrender?"), v.L10n("无效操作", "Not allowed"))
    assert all(to == seat for to, x in told if isinstance(x, v.Message) and x.title in private)
    assert any(x.title == private[0] for to, x in told if isinstance(x, v.Message))  # it was asked
    accepted = t.director.state.over and any(
        isinstance(e, Died) and e.cause == "surrendered" for e in t.director.events)
    heard = [p for p in t.said()[said:] if p.startswith("surrender")]
    assert heard == (["surrender.surrenders"] if accepted else [])
    assert accepted == (yes and partner_out and seat <= 4)  # V2.11: a killer or police left alone, and only then
