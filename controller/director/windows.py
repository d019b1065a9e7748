"""Input windows and their countdowns: what the engine waits for now, opened with a visible deadline (C5).

A window is opened once its prompt has been said, ticks once a whole second (no busy polling: an idle table
sleeps), warns before a speech ends, and on its deadline gives the engine a timeout. What every seat's screen
shows while a window is open is drawn here, one kind of window after another. Kept apart so that every timer of
the game is started, moved and cancelled in one place (the judge's pause and extension move them from outside).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from controller.director import announce, sheriff_windows
from controller.director.journal import JournalError
from controller.director.night_calls import NightCalls
from controller.director.records import Window
from controller.director.seams import Parts, Setup
from controller.director.seat_output import LED_SPEAKER, LED_VOTE, dead_view
from controller.ports import LED_OFF
from controller.rules import cards, engine, sheriff
from controller.rules.actions import Timeout
from controller.rules.events import Dawn, NightFell
from controller.rules.turns import TURN_VOTE
from controller.rules.variant import NightStep
from controller.screens import views as v
from controller.screens.own_views import police_answer
from controller.screens.strings import night_action, own_words
from controller.voice.prompts import prompt
from controller.voice.variant_lines import role_line

log = logging.getLogger(__name__)


class InputWindows:
    """The engine's waits as windows with a visible countdown, and what each seat shows meanwhile."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.config = setup.config
        self.label = setup.label
        self.t = setup.t
        self.voice = setup.voice
        self.window: Window | None = None
        #: The step of the last vote window (a V4.8 turn vote's one-hand close is not announced).
        self.last_vote_step = ""
        #: W3: every step called every night, each call as long as the next (night_calls.py).
        self.calls = NightCalls(setup.config.variant, setup.seed)

    def key(self) -> str:
        assert self.parts.loop.state is not None
        w = self.parts.loop.state.waiting
        head = self.parts.loop.state.queue[0] if w is not None and self.parts.loop.state.queue else 0
        return f"{self.parts.loop.opened}:{w.step if w else '-'}:{head}"

    def where(self) -> str:
        assert self.parts.loop.state is not None
        w = self.parts.loop.state.waiting
        s = self.parts.loop.state
        return f"{s.phase} {s.night}/{s.day}, {w.step if w else 'over'}"

    def open(self, left: float | None = None) -> None:
        """Open the window for what the engine waits for now."""
        assert self.parts.loop.state is not None
        if self.window is not None or self.parts.loop.state.over:
            return
        p = engine.pending(self.parts.loop.state)
        if p is None:
            return
        kind = p.kind
        if kind in ("speeches", "last_words"):
            total = (self.t.last_words_s if kind == "last_words"
                     else self.t.defence_s if p.step.startswith(("defence", "tie.")) else self.t.speech_s)
            self._say_then(announce.turn(self.parts.loop.state, p), lambda: self.start(p, total, left))
        elif kind == "night":
            step = self.config.variant.night_steps[p.step]
            for skipped in self.calls.skipped_before(p.step, self.parts.loop.state.night):
                self.call_skipped(skipped)
            self.parts.loop.beat("call", lambda: self.mark_call(step.id, True))
            self.parts.loop.beat("say", self._wake(step))
            learnt = self.parts.announcer.take_unseen(p.seats)
            for seat, answers in learnt.items():  # V7.1: what they may see of the police's checks
                for target, answer in answers:
                    self.parts.loop.beat("call", lambda s=seat, t=target, a=answer:
                                         self.parts.seats.set(s, police_answer(self.config.variant, t, a)))
                    self.parts.loop.beat("wait", self.t.answer_s)
            self.parts.loop.beat("call", lambda: self.start(p, self.t.night_action_s, left))
        elif kind == "recognition":
            self._say_then(announce.wake(p.role, "recognise", False, self.config.variant.night_call,
                                         variant=self.config.variant),
                           lambda: self.start(p, self.t.recognition_s, left))
        elif kind == "vote" and p.step == TURN_VOTE:  # V4.8: the speaker votes at once, pointing like at night
            # a silenced player's turn is a vote only: the room is told why
            said = announce.turn(self.parts.loop.state, p)
            if said:
                self._say_then(said, lambda: self.start(p, self.t.night_action_s, left))
            else:
                self.start(p, self.t.night_action_s, left)
        elif kind == "vote":
            begins = prompt("sheriff.vote_begins") if p.step in sheriff.VOTES else prompt("vote.begins")
            self._say_then([begins], lambda: self.parts.votes.start_vote(p))
        elif kind == "defence_claim":
            self._say_then([prompt("speech.suspects_defend")], lambda: self.start(p, self.t.defence_claim_s, left))
        elif sheriff_windows.is_sheriffs(kind, p.step):  # W10: the call to run, the badge, the sheriff's direction
            if kind == "candidacy":
                self.parts.announcer.eyes_open()  # W10: the election is held with eyes open, before the dawn
            total = {"candidacy": self.t.candidacy_s, sheriff.BADGE: self.t.badge_s}.get(kind, self.t.direction_s)
            self._say_then(sheriff_windows.opening(p), lambda: self.start(p, total, left))
        elif kind == "direction":
            self.start(p, self.t.direction_s, left)
        elif kind == cards.FIRST_IDENTITY:  # D1: each player puts one of the two cards face down as the first
            self.start(p, self.t.first_identity_s, left)

    def call_skipped(self, step: NightStep) -> None:
        """W3: a step the rules skipped (its role is dead, or its potion spent) is called all the same, and the
        table waits as if it acted."""
        self.parts.loop.beat("call", lambda: self.mark_call(step.id, True))
        self.parts.loop.beat("say", self._wake(step))
        self.parts.loop.beat("wait", self.calls.draw())
        if sleep := self.sleep(step.id):
            self.parts.loop.beat("say", sleep)
        self.parts.loop.beat("call", lambda: self.mark_call(step.id, False))

    def mark_call(self, step: str, begun: bool) -> None:
        """W3: a call begun (its wake line is next) or ended (its sleep line said), in the journal, so that a
        table resumed after a power cut calls a cut call again (night_calls.py)."""
        s, journal = self.parts.loop.state, self.setup.journal
        mark = self.calls.mark(step, s.night, begun) if s is not None else None
        if mark is None or journal is None:
            return
        if journal.writer is not None:  # behind the inputs in flight, without waiting for the disk
            journal.record_call(mark, done=_log_missed)
            return
        try:
            journal.record_call(mark)
        except JournalError as exc:
            _log_missed(exc)

    def recall(self, mark: dict[str, Any] | None, salt: int) -> None:
        """A game resumed after a power cut (W3): the call the cut was in is called again, whole, dead role or
        living; when the rules still wait for it, its window opens again and lasts a new draw."""
        s = self.parts.loop.state
        assert s is not None
        cut = self.calls.restore(mark, s.night, salt)
        if cut is None:
            return
        p = engine.pending(s)
        if p is not None and p.kind == "night" and p.step == cut:
            self.calls.recalled = cut  # open() calls it: its wake line, its window, a new draw
            return
        if s.phase != "night":  # the dawn came with the cut call's group: eyes are closed until it is said
            self.parts.announcer.night_resumed()
        self.call_skipped(self.config.variant.night_steps[cut])
        if s.phase != "night":
            for skipped in self.calls.rest(s.night):
                self.call_skipped(skipped)
            events = self.parts.loop.events
            fell = max((i for i, e in enumerate(events) if isinstance(e, NightFell)), default=0)
            dawn = next((i for i, e in enumerate(events) if i > fell and isinstance(e, Dawn)), None)
            if dawn is not None:  # (W10: night 1's dawn waits for the sheriff election, which says it)
                self.parts.announcer.announce(events[dawn:])

    def _wake(self, step: NightStep) -> list[str]:
        """The step's wake line and question; only the question when its roles are awake already (W3)."""
        v, roles = self.config.variant, "+".join(step.call or step.roles)
        said = announce.wake(roles, step.ability, step.optional, v.night_call, variant=v, step=step.id)
        assert self.parts.loop.state is not None
        if self.calls.continues(step.id, self.parts.loop.state.night):
            awake = {role_line(v, role, "wake") for role in roles.split("+")}
            return [p for p in said if p not in awake]
        return said

    def sleep(self, step: str) -> list[str]:
        """The step's sleep line; none when the next step tonight wakes the same roles (W3)."""
        v, st = self.config.variant, self.config.variant.night_steps.get(step)
        assert self.parts.loop.state is not None
        if st is not None and self.calls.goes_on(step, self.parts.loop.state.night):
            return []
        roles = "+".join(st.call or st.roles) if st else step
        return announce.sleep(roles, v.night_call, variant=v)

    def _say_then(self, parts: list[str], then: Callable[[], None]) -> None:
        self.parts.loop.beat("say", parts)
        self.parts.loop.beat("call", then)

    def start(self, p: engine.Pending, total: float, left: float | None = None) -> None:
        assert self.parts.loop.state is not None
        if self.window is not None:
            return
        now = self.clock.now()
        remaining = left if left is not None else total
        w = Window(p.kind, p.step, p.seats, self.key(), total, now + remaining)
        self.take(w)
        if p.kind == "night" and (left is None or self.calls.recalled == p.step):
            self.calls.opened(p.step, now)  # W3: the call lasts at least a draw from now (a whole one when resumed)
            self.calls.recalled = None
        w.handles.append(self.clock.call_at(w.deadline, self.deadline))
        for warn in self.t.warnings_s if p.kind in ("speeches", "last_words") else ():
            if remaining > warn:
                w.handles.append(self.clock.call_at(w.deadline - warn, self._warn))
        self.schedule_ticks(w)
        self.parts.loop.checkpoint()
        if p.kind in ("night", cards.FIRST_IDENTITY, sheriff.BADGE) or p.step == TURN_VOTE:
            for seat in p.seats:
                self.parts.seats.ui[seat].cursor = next((c for c in p.choices if c is not None), None)
        self.redraw_window()
        self.parts.remote.remote_status()
        self.parts.follow.window(w)

    def take(self, w: Window) -> None:
        """``w`` is the open window now (a vote's calls open theirs in vote_calls.py)."""
        self.window = w
        if w.kind == "vote":
            self.last_vote_step = w.step

    def forget(self) -> None:
        """The paused window is let go without a word, to be opened again as it was (the judge's resume)."""
        self.window = None

    def schedule_ticks(self, w: Window) -> None:
        """A redraw at every whole second of the countdown (no busy polling: an idle table sleeps between)."""
        now = self.clock.now()
        nxt = w.deadline - int(w.deadline - now)
        if nxt <= now:
            nxt += 1.0
        if nxt < w.deadline:
            w.handles.append(self.clock.call_at(nxt, lambda: self._tick(w)))

    def _tick(self, w: Window) -> None:
        if self.window is not w or self.parts.judge.paused:
            return
        self.redraw_window()
        if int(w.deadline - self.clock.now()) % int(self.t.checkpoint_s or 10) == 0:
            self.parts.loop.checkpoint()
        self.schedule_ticks(w)
        self.parts.seats.refresh()

    def _warn(self) -> None:
        self.voice.beep("warning")
        self.redraw_window()
        self.parts.seats.refresh()

    def deadline(self) -> None:
        w = self.window
        if w is None or self.parts.judge.paused:
            return
        self.voice.beep("final")
        self.parts.loop.submit(Timeout())

    def close_window(self) -> None:
        w = self.window
        if w is None:
            return
        for h in w.handles:
            h.cancel()
        self.window = None
        if w.step == TURN_VOTE and self.parts.loop.state is not None:  # V4.8: the vote is in; the pointer goes away
            for seat in w.seats:
                voted = v.Message(v.L10n("已投票", "Voted"), "")
                s = self.parts.loop.state
                self.parts.seats.set(seat, voted if seat in s.alive else dead_view(s, seat), LED_OFF)
        if w.kind == "last_words" and self.parts.loop.state is not None:
            # The last words are over: the speaker's screen and LED go dark, whatever comes next (night, a vote).
            for seat in self.parts.seats.ui:
                if seat not in self.parts.loop.state.alive:
                    self.parts.seats.set(seat, dead_view(self.parts.loop.state, seat), LED_OFF)

    def countdown(self) -> v.Countdown:
        """The countdown as the screens show it: whole seconds (rounded up, as :class:`v.Countdown` shows them).
        Between two ticks every press then finds the same countdown, so a view that did not change compares
        equal and is not redrawn, and a redrawn one is mostly cached (the press-to-screen latency)."""
        w = self.window
        assert w is not None
        if w.kind == "vote" and w.call is not None:
            _, end = w.call
            total = float(self.config.opt("vote.window_s"))
            return v.Countdown(_whole(end + total - self.clock.now()), total)
        judge = self.parts.judge
        left = judge.paused_left if judge.paused and judge.paused_left is not None else w.deadline - self.clock.now()
        return v.Countdown(_whole(left), w.total)

    def redraw_window(self) -> None:
        """Every seat's view for the open window."""
        w, s = self.window, self.parts.loop.state
        if w is None or s is None:
            return
        cd = self.countdown()
        if w.kind == "night":
            picks = s.picks
            for seat in w.seats:
                ui = self.parts.seats.ui[seat]
                partners = tuple((m, picks.get(m)) for m in w.seats if m != seat and m in picks)
                action = self._action(w.step)
                self.parts.seats.set(seat, v.NightChoice(action, ui.cursor, cd, partners, seat in picks,
                                                         own_words(self.config.variant, "actions", action)))
        elif w.kind == "recognition":
            for seat in w.seats:
                self.parts.seats.set(seat, v.RoleReveal(seat, s.role_of(seat), s.partners(seat), hint=False))
        elif sheriff_windows.is_sheriffs(w.kind, w.step):
            holder = w.seats[0] if w.seats else 0
            for seat in self.parts.seats.ui:
                if seat not in s.alive and not (w.kind == sheriff.BADGE and seat == holder):
                    self.parts.seats.set(seat, dead_view(s, seat), LED_OFF)
                    continue
                shown = sheriff_windows.view(s, w.kind, w.step, seat, self.label(holder),
                                             self.parts.seats.ui[seat].cursor, cd)
                # lit: whose choice it is; at the call, a hand raised to run (public, as a raised hand is)
                lit = s.picks.get(seat) is not None if w.kind == "candidacy" else seat == holder
                if shown is not None:
                    self.parts.seats.set(seat, shown, LED_VOTE if lit else LED_OFF)
        elif w.kind in ("speeches", "last_words"):
            speaker = s.queue[0]
            warning = cd.remaining <= min(self.t.warnings_s, default=0)
            for seat in self.parts.seats.ui:
                if seat == speaker:
                    self.parts.seats.set(seat, v.YourSpeech(cd, warning, w.kind == "last_words"), LED_SPEAKER)
                elif seat in s.alive and sheriff_windows.in_candidates_speech(s, w.kind, w.step) and (
                        shown := sheriff_windows.candidate_view(s, seat, self.label(speaker))) is not None:
                    self.parts.seats.set(seat, shown, LED_OFF)  # W10: a candidate may withdraw meanwhile
                elif seat in s.alive:
                    self.parts.seats.set(seat, v.Speaking(speaker, cd, w.kind == "last_words"), LED_OFF)
                else:  # a dead seat whose last words are over goes dark again (no lit LED, no stale timer)
                    self.parts.seats.set(seat, dead_view(self.parts.loop.state, seat), LED_OFF)
        elif w.kind == "vote" and w.step == TURN_VOTE:
            voter = w.seats[0]
            self.parts.seats.set(voter, v.NightChoice("vote", self.parts.seats.ui[voter].cursor, cd), LED_VOTE)
            for seat in s.alive:
                if seat != voter:
                    who = self.label(voter)
                    self.parts.seats.set(seat, v.Message(v.L10n("投票", "Vote"), v.L10n(f"{who}号投票", f"Seat {who} votes")),
                              LED_OFF)
        elif w.kind == "vote":
            for seat in s.alive:
                if w.call is not None and w.window_open:
                    voted = seat in s.picks  # whom the hand counted for, which may be an earlier candidate
                    self.parts.seats.set(seat, v.VoteCall(w.call[0], cd, voted, s.picks.get(seat)),
                                         LED_VOTE if voted else LED_OFF)
                elif w.call is not None:
                    who = self.label(w.call[0])
                    self.parts.seats.set(seat, v.Message(v.L10n("投票", "Vote"), v.L10n(f"{who}号", f"Seat {who}")))
        elif w.kind == cards.FIRST_IDENTITY:
            for seat in w.seats:
                chosen = s.picks.get(seat) or self.parts.seats.ui[seat].cursor or 1
                self.parts.seats.set(seat, v.HandChoice(s.cards[seat - 1], int(chosen), cd, seat in s.picks))
        elif w.kind == "defence_claim":
            for seat in s.alive:
                claimed = seat in s.defence
                body = v.L10n("已申请辩护" if claimed else "按 OK 申请辩护", "defence claimed" if claimed else "OK = defend")
                self.parts.seats.set(seat, v.Message(v.L10n("辩护", "Defence"), body))
        self.parts.remote.remote_status()

    def _action(self, step: str) -> str:
        """What a seat's screen calls the step (one rule for the director and the bus's screen reader)."""
        return night_action(self.config.variant, step)


def _whole(seconds: float) -> float:
    """Seconds left rounded up to a whole second (to the millisecond first, so float dust is not a second)."""
    return float(max(0, math.ceil(round(seconds, 3))))


def _log_missed(error: JournalError | None) -> None:
    """A call's record missed: a power cut during that call would not call it again."""
    if error is not None:
        log.error("%s", error)
