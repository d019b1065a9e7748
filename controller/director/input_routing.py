"""Where every input arrives: a seat's button or card, the remote's key, a link going down or coming back.

Each input is sent to the part of the game it belongs to (a night choice, a speaker's pass, a hand at a vote
call, a card at the deal, the remote's menu), or answered on the seat it came from when it means nothing now
(a dead seat, not your turn, paused). A refused input is explained where it happened. Kept apart so that what a
press means at each moment of the game is decided in one place.
"""

from __future__ import annotations

import logging

from controller.director import sheriff_windows
from controller.director.game_loop import describe
from controller.director.judge_commands import self_destruct_now
from controller.director.judge_table import refusal, words
from controller.director.records import Window
from controller.director.seams import Parts, Setup
from controller.ports import Button, ButtonEvent, CardEvent, InputEvent, LinkEvent, RemoteKeyEvent
from controller.rules import cards, engine, sheriff
from controller.rules.actions import Action, Pass, Pick, Rejected, SelfDestruct, Surrender, Vote
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v
from controller.voice.prompts import phrase, prompt, seat_number

log = logging.getLogger(__name__)


class InputRouting:
    """Every adapter's inputs, routed to the part of the game they are for."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.has_judge = setup.has_judge
        self.judge_entry = setup.judge_entry
        self.label = setup.label
        self.t = setup.t
        self.voice = setup.voice
        #: Seats gone quiet (their link is down): play is paused until every one is back.
        self.offline: set[int] = set()
        #: A resumed game takes presses made from this moment (the table's clock) on. Seat nodes that kept their
        #: power while the table restarted (a crash, the watchdog) still hold the presses made on the screens of
        #: before, and hand them over as soon as the new table polls them: a player's OK meant for the screen that
        #: was shown then must not land in a window the resumed game has just opened.
        self.inputs_from: float | None = None

    def take_presses_from(self, when: float) -> None:
        """A resumed game ignores the presses made before ``when`` (see ``inputs_from``)."""
        self.inputs_from = when

    def handle(self, event: InputEvent) -> None:
        """The sink: every adapter's inputs arrive here, on the loop."""
        try:
            if isinstance(event, ButtonEvent):
                self._button(event)
            elif isinstance(event, CardEvent):
                if event.present:
                    self.parts.deal.card(event.seat, event.uid)
            elif isinstance(event, RemoteKeyEvent):
                if event.pressed:
                    self.parts.remote.remote_key(event.key)
            elif isinstance(event, LinkEvent):
                self._link(event)
        finally:
            self.parts.seats.refresh()

    def wants_input(self, seat: int) -> bool:
        """Whether the open window waits for ``seat`` now: a night choice or a first identity not yet made, a
        hand not yet raised while a vote call is open, the speaker's pass (D2's places: which card a seat acts
        for, controller/director/places.py)."""
        w, s = self.parts.windows.window, self.parts.loop.state
        if w is None or s is None or self.parts.judge.paused:
            return False
        p = engine.pending(s)
        if p is None or seat not in p.seats:
            return False
        if w.kind == "vote" and w.step != TURN_VOTE:
            return w.call is not None
        return seat not in s.picks

    def _button(self, e: ButtonEvent) -> None:
        if self.inputs_from is not None and e.at < self.inputs_from:
            log.info("seat %s: %s pressed before the game was resumed, ignored", e.seat, e.button.name)
            return
        seat = e.seat
        ui = self.parts.seats.ui.get(seat)
        if ui is None:
            log.warning("button from unknown seat %s ignored", seat)
            return
        if self._seat_gesture(seat, e):
            return
        if e.button is Button.OK and not e.pressed:
            ui.ok_down = False
            if ui.peek_handle is not None:
                ui.peek_handle.cancel()
                ui.peek_handle = None
            if ui.peeking:
                ui.peeking = False
            return
        if not e.pressed:
            return
        if e.button is Button.OK:
            ui.ok_down = True
        s = self.parts.loop.state
        if self.parts.judge.paused:
            self.parts.seats.notice(seat, v.Paused())
            return
        if self.parts.seats.eyes_closed(seat):
            return  # at night a sleeping seat stays dark whatever is pressed (a neighbour awake could read it)
        if self.parts.loop.stage == "deal" or s is None or self.parts.loop.stage == "over":
            if e.button is Button.OK and s is not None:
                self.parts.deal.arm_peek(seat)
            return
        w = self.parts.windows.window
        last_words = w is not None and w.kind == "last_words" and s.queue[:1] == (seat,)
        last_act = w is not None and w.kind == "night" and seat in w.seats  # W8: the hunter shoots as he dies
        badge = w is not None and w.kind == sheriff.BADGE and seat in w.seats  # W10: the dead sheriff's last act
        if seat not in s.alive and not (last_words or last_act or badge):
            self.parts.seats.notice(seat, v.Message(v.L10n("你已出局", "You are out"), v.L10n("请保持安静", "Please stay silent")))
            return
        if w is None:
            if e.button is Button.OK:
                self.parts.deal.arm_peek(seat)
            return
        if (w.kind in ("night", cards.FIRST_IDENTITY) or w.step == TURN_VOTE) and seat in w.seats:
            self._night_button(seat, e.button, w)
        elif self._sheriff_button(seat, e.button, w):
            return
        elif (w.kind in ("speeches", "last_words") and s.queue and s.queue[0] == seat and e.button is Button.OK) or (w.kind == "recognition" and seat in w.seats and e.button is Button.OK):
            self.parts.loop.submit(Pass(seat), seat)
        elif w.kind == "defence_claim" and e.button is Button.OK:
            self.parts.loop.submit(Pick(seat, seat), seat)
        elif w.kind == "vote" and e.button is Button.OK:
            self.parts.votes.hand(seat, w)
        elif e.button is Button.OK:
            self.parts.deal.arm_peek(seat)
        elif s.phase == "day":
            self.parts.seats.notice(seat, v.Message(v.L10n("请稍候", "Not now"), v.L10n("现在不是你的回合", "It is not your turn")))

    def _seat_gesture(self, seat: int, e: ButtonEvent) -> bool:
        """A table without a judge (V2.11, W11): holding ◀ and ▶ together asks this seat, on its own screen only,
        a question that OK answers yes (the rules then accept or refuse, on this screen alone) and ◀ or ▶ no.
        Returns whether the press was the gesture's.

        W11: on a board where a role may self-destruct, by day and during the sheriff election the question is
        "self-destruct?" on every living seat, whatever its role: which question is asked depends only on the board
        and the phase, never on the card, so the gesture and the question look the same at a werewolf's seat and at
        a villager's, and the room learns nothing until a werewolf's yes is accepted (the same announcement as the
        judge's command). A villager's yes is refused on that seat's screen alone and nothing is said: it cannot
        happen by accident (two arrows held for ``surrender_hold_s``, then OK) and tells nobody anything.
        Otherwise the question is V2.11's surrender."""
        ui = self.parts.seats.ui[seat]
        if e.button in (Button.PREV, Button.NEXT):
            (ui.held.add if e.pressed else ui.held.discard)(e.button)
        loop = self.parts.loop
        if self.has_judge or loop.stage != "play" or loop.state is None or loop.state.over:
            return False
        if ui.asking:
            if e.pressed and e.button is Button.OK:
                asked = ui.asking
                self._end_question(seat)
                self.parts.loop.submit(SelfDestruct(seat) if asked == "self_destruct" else Surrender(seat), seat)
            elif e.pressed:  # ◀ or ▶: no
                self._end_question(seat)
            return True
        both = ui.held == {Button.PREV, Button.NEXT}
        if both and ui.gesture_handle is None and seat in loop.state.alive:
            at = self.clock.now() + self.t.surrender_hold_s
            ui.gesture_handle = self.clock.call_at(at, lambda: self._ask(seat))
        elif not both and ui.gesture_handle is not None:
            ui.gesture_handle.cancel()
            ui.gesture_handle = None
        return False

    def _ask(self, seat: int) -> None:
        ui = self.parts.seats.ui[seat]
        ui.gesture_handle = None
        s = self.parts.loop.state
        if ui.held != {Button.PREV, Button.NEXT} or self.parts.loop.stage != "play" or self.parts.judge.paused:
            return
        ui.asking = "self_destruct" if s is not None and self_destruct_now(s) else "surrender"
        self.parts.seats.notice(seat, v.Message(words(f"{ui.asking}_ask"), words("surrender_hint")), keep=True)

    def _end_question(self, seat: int) -> None:
        ui = self.parts.seats.ui[seat]
        ui.asking = ""
        if ui.notice_handle is not None:
            ui.notice_handle.cancel()
        ui.notice, ui.notice_handle = None, None
        self.parts.seats.refresh()

    def _move_pointer(self, seat: int, button: Button, choices: tuple[int | None, ...]) -> None:
        """◀/▶ move the seat's pointer over ``choices`` (round), and the window is drawn again."""
        ui = self.parts.seats.ui[seat]
        i = choices.index(ui.cursor) if ui.cursor in choices else 0
        ui.cursor = choices[(i + (1 if button is Button.NEXT else -1)) % len(choices)]
        self.parts.windows.redraw_window()

    def _sheriff_button(self, seat: int, button: Button, w: Window) -> bool:
        """W10: a press in the election's windows (sheriff_windows.py says what each button means there).
        Returns whether it was the election's; a candidate's OK while speaking stays the speech's pass."""
        s = self.parts.loop.state
        assert s is not None
        if not (sheriff_windows.is_sheriffs(w.kind, w.step) or sheriff_windows.in_candidates_speech(s, w.kind, w.step)):
            return False
        if w.kind != "candidacy" and w.kind != "speeches" and seat not in w.seats:
            return False
        ui = self.parts.seats.ui[seat]
        if w.kind == sheriff.BADGE and button in (Button.PREV, Button.NEXT):
            self._move_pointer(seat, button, s.waiting.choices if s.waiting is not None else (None,))
            return True
        action = sheriff_windows.press(s, w.kind, w.step, seat, button, ui.cursor)
        if action is None:
            return False
        self.parts.loop.submit(action, seat)
        return True

    def _night_button(self, seat: int, button: Button, w: Window) -> None:
        assert self.parts.loop.state is not None
        p = engine.pending(self.parts.loop.state)
        if p is None:
            return
        ui = self.parts.seats.ui[seat]
        if button in (Button.PREV, Button.NEXT):
            self._move_pointer(seat, button, p.choices)
        elif w.step == TURN_VOTE:
            self.parts.loop.submit(Vote(seat, ui.cursor), seat)
        elif w.kind == cards.FIRST_IDENTITY:  # D1: the player's own choice, never the judge's
            self.parts.loop.submit(Pick(seat, ui.cursor), seat)
        elif self.judge_entry:
            self.parts.seats.notice(seat, v.Message(v.L10n("请指给法官", "Point it out"), v.L10n("法官录入", "The judge enters it")))
        else:
            self.parts.loop.submit(Pick(seat, ui.cursor), seat)

    def _link(self, e: LinkEvent) -> None:
        """A seat stopped answering: pause with the seat named; carry on when it is back.

        The judge's remote (seat 0 on the bus) is no seat: while it is away the game goes on by its own timers
        (every wait has a deadline, C5) and only the judge's commands wait for it. Pausing for it would leave a
        table whose remote's battery died paused for good, with nothing left to press resume on."""
        if e.seat == 0:
            if e.up:
                self.parts.remote.redraw()  # the remote is back: redraw it from scratch
                self.parts.loop.note("judge", "the judge's remote is back")
            else:
                self.parts.loop.note("judge", f"the judge's remote is not answering; the game goes on by its timers "
                                    f"({e.reason})")
            return
        if not e.up:
            self.offline.add(e.seat)
            self.voice.say(phrase(seat_number(e.seat), prompt("error.seat_offline")), urgent=True)
            self.parts.remote.remote_line(words("seat_offline", n=self.label(e.seat)))
            self.parts.judge.pause(f"seat {e.seat} offline")
        else:
            self.offline.discard(e.seat)
            self.parts.seats.redraw(e.seat)  # its screen and LED from scratch
            self.voice.say(phrase(seat_number(e.seat), prompt("error.seat_back")))
            if not self.offline:
                self.parts.judge.resume_play()

    def rejected(self, exc: Rejected, seat: int | None, action: Action) -> None:
        self.parts.loop.note(f"seat {seat}" if seat else "judge", f"refused {describe(action)}: {exc.message}",
                             public=False)
        if seat is None:
            self.parts.remote.remote_line(refusal(exc, action, self.label))
            return
        if exc.code == "follow_vote" and isinstance(action, Vote) and action.target is not None:
            self.parts.seats.notice(seat, v.VoteFeedback(v.VoteResult.LATE, action.target))
        elif exc.code == "already_voted" and isinstance(action, Vote) and action.target is not None:
            self.parts.seats.notice(seat, v.VoteFeedback(v.VoteResult.ALREADY, action.target))
        else:
            self.parts.seats.notice(seat, v.Message(v.L10n("无效操作", "Not allowed"), refusal(exc, action, self.label)))
