"""W11 from the seat: at a table without a judge a werewolf self-destructs from their own seat (◀ and ▶ held
together, then OK), by day and during the sheriff election; the same gesture at any other seat asks the same
question on that seat alone and, confirmed, is refused there and nowhere else (the room hears nothing).

Played on werewolf-12's day with the killers and police the voice knows (tests/director/variants/sheriff-12.toml):
the killer's ``day_action`` is "self_destruct", as the werewolf's on the W boards.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.ports import Button
from controller.rules import sheriff
from controller.rules.events import ElectionClosed, VoteClosed
from controller.screens import views as v
from tests.director.helpers import ScriptedTable
from tests.director.test_judge_commands import hold_both
from tests.director.test_sheriff_table import CARDS, VARIANT, answer_the_call, events_of, night

QUESTION = v.Message(v.L10n("自爆？", "Self-destruct?"), v.L10n("OK确认  ←→取消", "OK: yes  ←→: no"))


def day_one(judge: bool = False) -> ScriptedTable:
    """Seats 1-3 killers, 4 the police, 5-12 civilians; the killers took seat 5, nobody ran for sheriff, and the
    day's speeches have begun."""
    t = ScriptedTable(VARIANT, CARDS, judge=judge)
    t.deal()
    night(t, kill=5, check=1)
    answer_the_call(t, running=set())
    t.run_until(lambda: t.director.window is not None and t.director.window.kind == "speeches"
                and t.director.state.queue[0] != 5)  # type: ignore[union-attr]
    t.until_wait()
    return t


def screens(t: ScriptedTable, but: int) -> dict[int, v.View | None]:
    """Every other seat's screen, its countdown left out (the clock runs while the arrows are held)."""
    return {s: _still(t.screen(s)) for s in t.director.ui if s != but}


def _still(view: v.View | None) -> v.View | None:
    if view is not None and is_dataclass(view) and "countdown" in {f.name for f in fields(view)}:
        return replace(view, countdown=None)  # type: ignore[type-var]
    return view


def test_seat_3_a_killer_holds_both_arrows_and_confirms_night_falls_with_no_vote():
    t = day_one()
    others = screens(t, but=3)
    hold_both(t, 3)
    assert t.screen(3) == QUESTION
    assert screens(t, but=3) == others  # the question is on seat 3's screen alone
    said = len(t.said())
    t.table.click(3, Button.OK)
    assert 3 not in t.director.state.alive  # type: ignore[union-attr]
    t.run_until(lambda: t.director.state.phase == "night")  # type: ignore[union-attr]
    assert not events_of(t, VoteClosed)  # W11: the day ended with no vote
    # the room hears what it hears when the judge enters the same self-destruct
    judged = day_one()
    before = len(judged.said())
    judged.director.judge("self_destruct", 3)
    judged.run_until(lambda: judged.director.state.phase == "night")  # type: ignore[union-attr]
    assert t.said()[said:] == judged.said()[before:] and t.said()[said] == "seat.3"


def test_seat_5_a_civilian_does_the_same_gesture_nothing_happens_and_no_screen_differs_until_confirm():
    t = day_one()
    hold_both(t, 6)
    killers_question = t.screen(6)
    t.table.click(6, Button.NEXT)  # no
    said, others = len(t.said()), screens(t, but=7)
    hold_both(t, 7)
    assert t.screen(7) == killers_question == QUESTION  # a civilian sees what a killer sees
    t.table.click(7, Button.OK)
    assert 7 in t.director.state.alive and t.director.state.phase == "day"  # type: ignore[union-attr]
    refused = t.screen(7)
    assert isinstance(refused, v.Message) and refused.title == v.L10n("无效操作", "Not allowed")  # seat 7 alone
    assert screens(t, but=7) == others
    t.run_for(3)
    assert t.said()[said:] == []  # the room hears nothing


def test_a_killer_refused_nothing_tells_the_others_who_tried():
    """Seat 6 (a civilian) answers no, seat 2 (a killer) answers no: the other seats' screens are the same
    after either, and nothing is said."""
    t = day_one()
    said, others = len(t.said()), screens(t, but=2)
    for seat in (6, 2):
        hold_both(t, seat)
        assert t.screen(seat) == QUESTION
        t.table.click(seat, Button.PREV)
        assert t.screen(seat) != QUESTION
    assert {s: w for s, w in screens(t, but=2).items() if s != 6} == {s: w for s, w in others.items() if s != 6}
    assert t.said()[said:] == [] and t.director.state.alive == set(range(1, 13)) - {5}  # type: ignore[union-attr]


def test_seat_1_a_killer_self_destructs_from_the_seat_during_the_election_it_is_held_again():
    t = ScriptedTable(VARIANT, CARDS, judge=False)
    t.deal()
    night(t, kill=5, check=1)
    answer_the_call(t, running={1, 6})
    t.until_window("speeches", sheriff.SPEECH)
    hold_both(t, 1)
    assert t.screen(1) == QUESTION
    t.table.click(1, Button.OK)
    assert events_of(t, ElectionClosed)[-1] == ElectionClosed((), "postponed")
    assert 1 not in t.director.state.alive  # type: ignore[union-attr]


def test_with_a_judge_the_seat_gesture_asks_nothing_the_judge_enters_it():
    t = day_one(judge=True)
    hold_both(t, 3)
    assert t.director.ui[3].asking == "" and t.screen(3) != QUESTION


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seat=st.sampled_from([s for s in range(1, 13) if s != 5]), yes=st.booleans())
def test_whoever_holds_the_arrows_sees_the_same_question_and_only_a_killers_yes_is_heard(seat: int, yes: bool):
    """Property (W11): whatever the card, the gesture draws the same question on that seat and on no other, the
    other seats' screens do not change, and the room hears nothing unless a killer says yes."""
    t = day_one()
    said, others = len(t.said()), screens(t, but=seat)
    hold_both(t, seat)
    assert t.screen(seat) == QUESTION and screens(t, but=seat) == others
    t.table.click(seat, Button.OK if yes else Button.PREV)
    killer = t.director.state.roles[seat - 1] == "killer"  # type: ignore[union-attr]
    assert (seat not in t.director.state.alive) == (yes and killer)  # type: ignore[union-attr]
    if not (yes and killer):
        t.run_for(3)
        assert t.said()[said:] == [] and screens(t, but=seat) == others
