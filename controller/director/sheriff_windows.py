"""The sheriff election's windows at a live table (W10, W11): what is said when each opens, what every seat's
screen shows meanwhile, and what a seat's button means there.

The rules (controller/rules/sheriff.py) wait for four things the seeds' games never wait for: the call to run
(``candidacy``), the candidates' speeches, during which a candidate may withdraw (退水), the election's vote, and
a dying sheriff's badge (``badge``); and the sheriff, not the judge, chooses the speeches' direction
(``direction`` at step ``speech.sheriff``). The speeches and the vote are the day's own windows; the rest are
drawn and pressed here, so that windows.py and input_routing.py only hand over to this module. Buttons:

- the call to run: OK runs, ◀ or ▶ declines (every living seat answers; the deadline counts those in);
- a candidate's speech: ◀ withdraws (a speaker's OK ends the speech as any speech);
- the badge: the dead sheriff moves the pointer with ◀/▶ over the living seats and "tear" and confirms with OK;
- the direction: the sheriff presses ◀ (the lower neighbour speaks first) or ▶ (the higher one).

Every one of these waits has a deadline (C5): the call closes with the hands in, the badge is torn, the direction
is the rule's own (the judge's ``end_timer`` closes any of them at once).
"""

from __future__ import annotations

from controller.ports import Button
from controller.rules import sheriff
from controller.rules.actions import Action, ChooseDirection, Pass, Pick, Withdraw
from controller.rules.engine import Pending
from controller.rules.seats import CLOCKWISE, COUNTER_CLOCKWISE, next_seat, order_from
from controller.rules.state import CANDIDATE, GameState
from controller.screens import views as v
from controller.voice.prompts import phrase, prompt, seat_number

#: The window kinds drawn and pressed here (the direction only at the sheriff's step).
KINDS = frozenset({"candidacy", sheriff.BADGE})

TITLE = v.L10n("警长竞选", "Sheriff election")


def is_sheriffs(kind: str, step: str) -> bool:
    """Whether a window of ``kind`` at ``step`` is the election's own (not a speech or a vote, which the day's
    windows draw)."""
    return kind in KINDS or (kind == "direction" and step == sheriff.DIRECTION)


def opening(p: Pending) -> list[str]:
    """What the voice says as the window opens: "竞选警长，要上警的请按OK" (W10), "5号警长请移交警徽" (W10: the
    dying sheriff passes or tears the badge), "警长请选择发言顺序" (W10: the sheriff chooses the direction)."""
    if p.kind == "candidacy":
        return [prompt("sheriff.call_to_run")]
    if p.kind == sheriff.BADGE:
        return phrase(seat_number(p.seats[0]), prompt("sheriff.pass_badge"))
    return [prompt("sheriff.choose_direction")]


def first_speakers(s: GameState, chief: int) -> tuple[int, int]:
    """Who speaks first if the sheriff chooses counter-clockwise (◀) or clockwise (▶): the living neighbours."""
    def first(direction: int) -> int:
        order = order_from(next_seat(chief, direction, s.players), direction, s.players, s.alive)
        return next((x for x in order if x != chief), chief)
    return first(COUNTER_CLOCKWISE), first(CLOCKWISE)


def view(s: GameState, kind: str, step: str, seat: int, label: str, cursor: int | None,
         cd: v.Countdown) -> v.View | None:
    """``seat``'s screen while the election's window is open (None: the seat's usual view; a dead seat other
    than the dying sheriff is drawn dead by the caller and never reaches here)."""
    w = s.waiting
    if w is None:
        return None
    if kind == "candidacy":
        if seat not in s.picks:
            return v.Message(TITLE, v.L10n("上警按OK，不上按◀/▶", "OK = run, ◀/▶ = not running"))
        ran = s.picks[seat] is not None
        return v.Message(TITLE, v.L10n("你已上警" if ran else "你不上警", "You run" if ran else "You do not run"))
    if kind == sheriff.BADGE:
        holder = w.seats[0]
        if seat == holder:
            return v.NightChoice(sheriff.BADGE, cursor, cd)
        return v.Message(v.L10n("警徽", "Badge"), v.L10n(f"{label}号警长移交警徽", f"Seat {label} passes the badge"))
    chief = w.seats[0]
    if seat == chief:
        left, right = first_speakers(s, chief)
        return v.Message(v.L10n("选择发言顺序", "Choose the direction"),
                         v.L10n(f"◀ {left}号先发言  ▶ {right}号先发言", f"◀ seat {left} first, ▶ seat {right} first"))
    return v.Message(v.L10n("警长", "Sheriff"), v.L10n(f"{label}号警长选择发言顺序", f"Seat {label} chooses the direction"))


def candidate_view(s: GameState, seat: int, speaker_label: str) -> v.View | None:
    """A candidate's screen while another candidate speaks: who speaks, and how to withdraw (W10 退水)."""
    if s.mark(f"{CANDIDATE}{seat}") != 1:
        return None
    return v.Message(v.L10n(f"{speaker_label}号竞选发言", f"Seat {speaker_label} speaks"),
                     v.L10n("◀ = 退水", "◀ = withdraw"))


def in_candidates_speech(s: GameState, kind: str, step: str) -> bool:
    return kind == "speeches" and step == sheriff.SPEECH and s.waiting is not None


def press(s: GameState, kind: str, step: str, seat: int, button: Button, cursor: int | None) -> Action | None:
    """The input a press of ``seat`` means in the election's window (None: nothing; the pointer moves are the
    caller's, as at night)."""
    if kind == "candidacy":
        return Pick(seat, seat) if button is Button.OK else Pass(seat)
    if kind == "direction":
        if button is Button.PREV:
            return ChooseDirection(False)
        if button is Button.NEXT:
            return ChooseDirection(True)
        return None
    if kind == sheriff.BADGE and button is Button.OK:
        return Pick(seat, cursor)
    if in_candidates_speech(s, kind, step) and button is Button.PREV:
        return Withdraw(seat)
    return None
