"""The judge's commands: pause, resume, repeat, extend, end the timer, undo, eject, penalty, surrender (V2.11),
the direction, the judge's own entry of a pick, redeal (C1) and abort.

Whatever the judge can order, from the remote or any other front end, is a method here, so that every way of
reaching the judge's commands calls the same code and the commands can grow without touching the rest.
"""

from __future__ import annotations

from controller.director.base import DirectorBase
from controller.director.game_loop import describe
from controller.ports import LED_OFF
from controller.rules import engine
from controller.rules.actions import ChooseDirection, Eject, GroupPick, Penalty, Surrender, Timeout
from controller.rules.events import Opened
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v
from controller.voice.prompts import prompt


class JudgeCommands(DirectorBase):
    """What the judge can order the table to do."""

    def pause(self, reason: str = "judge") -> None:
        """Timers freeze; screens say "paused"."""
        if self.paused:
            return
        self.paused = True
        w = self.window
        if w is not None:
            self.paused_left = max(0.0, w.deadline - self.clock.now())
            for h in w.handles:
                h.cancel()
            w.handles.clear()
        if self.beat_handle is not None:
            self.beat_handle.cancel()
            self.beat_handle = None
        self.voice.say([prompt("game.paused")], urgent=True)
        self._note("judge", f"paused ({reason})")
        self._checkpoint()
        self._refresh()
        self._tell_pause(True)

    def resume_play(self) -> None:
        if not self.paused:
            return
        self.paused = False
        for ui in self.ui.values():  # a press during the pause was told "paused": that is no longer true
            if isinstance(ui.notice, v.Paused):
                if ui.notice_handle is not None:
                    ui.notice_handle.cancel()
                ui.notice, ui.notice_handle = None, None
        self.voice.say([prompt("game.resumed")], urgent=True)
        self._note("judge", "resumed")
        self._tell_pause(False)
        w = self.window
        if w is not None:
            left = self.paused_left or 0.0
            self.paused_left = None
            self.window = None
            if w.kind == "vote" and w.step != TURN_VOTE:
                self._start_vote(engine.pending(self.state))  # type: ignore[arg-type]
            else:
                self._start(engine.pending(self.state), w.total, left)  # type: ignore[arg-type]
        self._pump()

    def repeat(self) -> None:
        """Say the last prompt again."""
        if self.last_prompts:
            self.voice.say(self.last_prompts, urgent=True)

    def extend(self, seconds: float) -> None:
        w = self.window
        if w is None or w.kind == "vote":
            return
        for h in w.handles:
            h.cancel()
        w.handles.clear()
        w.deadline += seconds
        w.total += seconds
        w.handles.append(self.clock.call_at(w.deadline, self._deadline))
        self._schedule_ticks(w)
        self._note("judge", f"extended the timer by {seconds:g}s")
        self._checkpoint()
        self._redraw_window()
        self._refresh()

    def end_timer(self) -> None:
        if self.window is not None and not self.paused:
            self._note("judge", "ended the timer")
            self.submit(Timeout())

    def undo(self) -> bool:
        """Drop the last input and refold (the journal keeps both the input and the undo)."""
        if len(self.groups) <= 1:
            return False
        action, n = self.groups.pop()
        del self.events[len(self.events) - n:]
        if self.journal is not None:
            self.journal.record_undo()
        self.state = engine.fold(self.events)
        self.opened = sum(1 for e in self.events if isinstance(e, Opened))
        self._close_window()
        self.beats.clear()
        if self.beat_handle is not None:
            self.beat_handle.cancel()
            self.beat_handle = None
        self._note("judge", f"undid {describe(action) if action else 'the set-up'}")
        self._beat("say", [prompt("game.undone")])
        for seat in self.ui:
            if seat not in self.state.alive:
                self._set(seat, v.Dead(seat), LED_OFF)
            elif self.state.phase == "night":
                self._set(seat, v.Dark(), LED_OFF)
        self._beat("call", self._open)
        self._pump()
        return True

    def eject(self, seat: int, reason: str = "") -> None:
        self.submit(Eject(seat, reason))

    def penalty(self, seat: int) -> None:
        self.submit(Penalty(seat))

    def surrender(self, seat: int) -> None:
        self.submit(Surrender(seat))

    def choose_direction(self, clockwise: bool) -> None:
        self.submit(ChooseDirection(clockwise))

    def judge_pick(self, target: int | None) -> None:
        """Judge entry mode: the judge enters the pointed-at seat for the waking group."""
        self.submit(GroupPick(target))

    def redeal(self) -> None:
        """C1: the judge orders a redeal; every card is tapped again."""
        if self.stage != "deal" or (self.deck is not None and self.state is not None):
            return  # the engine has dealt from the cards: too late to redeal (undo is the judge's tool now)
        for ui in self.ui.values():
            if ui.reveal_handle is not None:
                ui.reveal_handle.cancel()
                ui.reveal_handle = None
        self._ask_for_cards()
        why = prompt("setup.deal_again") if self.deal_void else prompt("setup.redeal")
        self.deal_void = False
        self._beat("say", [why, self._tap_prompt()])
        self._pump()

    def abort(self) -> None:
        self._close_window()
        self.beats.clear()
        self.stage = "over"
        self.voice.say([prompt("game.stopped_by_judge")], urgent=True)
        self._note("judge", "aborted the game")
        self._tell_over()
