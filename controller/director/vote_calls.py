"""The day vote's calls and hands (V2.5, V2.6): one call per candidate, a hand counts within the window after
its call, a later hand is a follow vote.

A vote is not one window with one deadline but a run of calls, each with its own short window, so it has its own
part; the boundary a hand is judged by is decided here at press time, as the seat's screen showed it.
"""

from __future__ import annotations

import math

from controller.director.base import DirectorBase, Window
from controller.director.seat_output import LED_VOTE
from controller.rules import engine
from controller.rules.actions import Timeout, Vote
from controller.screens import views as v
from controller.voice.prompts import vote_call


class VoteCalls(DirectorBase):
    """The vote's calls, one per candidate, and the hands raised for them."""

    def _start_vote(self, p: engine.Pending) -> None:
        now = self.clock.now()
        w = Window("vote", p.step, p.seats, self._key(), 0.0, now)
        self.last_vote_step = p.step
        w.calls = [c for c in p.choices if c is not None]
        # A vote opened again (after a power cut or a pause) goes on from the call that took the last hand: the
        # calls before it were made in full (a hand after its window is a follow-vote), so they are not made
        # again; the last one is, since its window may have been cut short.
        last = next((t for t in reversed(list(self.state.picks.values())) if t is not None), None) \
            if self.state is not None else None
        if last in w.calls:
            w.calls = w.calls[w.calls.index(last):]
        self.window = w
        self._checkpoint()
        self._tell_window(w)
        self._next_call(w)

    def _next_call(self, w: Window) -> None:
        if self.window is not w:
            return
        if w.call is not None:
            w.previous_call = w.call
        w.window_open = False
        if not w.calls:
            self.submit(Timeout())  # every candidate has been called: count the hands (V2.5)
            return
        candidate = w.calls.pop(0)
        parts = vote_call(candidate)
        seconds = self.voice.say(parts)
        self.last_prompts = parts
        self._note("voice", " ".join(parts))
        end = self.clock.now() + seconds
        w.call = (candidate, end)
        self._redraw_window()
        self._refresh()
        window = float(self.config.opt("vote.window_s"))
        w.handles.append(self.clock.call_at(end, lambda: self._call_open(w)))
        # V2.6's window is inclusive (the engine counts a hand ``window`` seconds after the call): the vote view
        # stays up through that very instant and leaves at the first moment a hand would be a follow-vote.
        w.handles.append(self.clock.call_at(math.nextafter(end + window, math.inf), lambda: self._call_closed(w)))
        w.handles.append(self.clock.call_at(end + window + self.t.vote_gap_s, lambda: self._next_call(w)))

    def _call_open(self, w: Window) -> None:
        if self.window is w:
            w.window_open = True
            self._redraw_window()
            self._refresh()
            self._tell_window(w)

    def _call_closed(self, w: Window) -> None:
        if self.window is w:
            w.window_open = False
            self._redraw_window()
            self._refresh()

    def _hand(self, seat: int, w: Window) -> None:
        now = self.clock.now()
        if w.call is not None and now >= w.call[1]:
            candidate, end = w.call
        elif w.previous_call is not None:
            candidate, end = w.previous_call  # a hand during the next call: late for the previous one
        else:
            self._notice(seat, v.Message(v.L10n("请等点名", "Wait for the call"), ""))
            return
        err = self.submit(Vote(seat, candidate, self._hand_delay(now, end)), seat)
        if err is None:
            if self.inflight and self.inflight[-1].seat == seat and w.window_open:
                # its write is on its way to the disk: the hand's own LED now, as the vote's redraw will light it
                self.ui[seat].local_led = LED_VOTE
            self._notice(seat, v.VoteFeedback(v.VoteResult.COUNTED, candidate))

    def _hand_delay(self, now: float, end: float) -> float:
        """The hand's delay after the call, decided here at press time with the boundary the seat's screen
        shows (on time up to and including ``end + window``, V2.6), and handed to the engine as a number the
        engine's own test (``delay <= window``) classifies the same way whatever the float rounding."""
        window = float(self.config.opt("vote.window_s"))
        delay = max(0.0, now - end)
        if now <= end + window:
            return min(delay, window)
        return max(delay, math.nextafter(window, math.inf))
