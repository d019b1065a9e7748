"""The day vote's calls and hands (V2.5, V2.6): one call per candidate, a hand counts within the window after
its call, a later hand is a follow vote.

A vote is not one window with one deadline but a run of calls, each with its own short window, so it has its own
part; the boundary a hand is judged by is decided here at press time, as the seat's screen showed it.
"""

from __future__ import annotations

import math

from controller.director.records import Window
from controller.director.seams import Parts, Setup
from controller.director.seat_output import LED_VOTE
from controller.rules import engine, sheriff
from controller.rules.actions import Timeout, Vote
from controller.screens import views as v
from controller.voice.prompts import vote_call


class VoteCalls:
    """The vote's calls, one per candidate, and the hands raised for them."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.config = setup.config
        self.t = setup.t
        self.voice = setup.voice

    def start_vote(self, p: engine.Pending) -> None:
        now = self.clock.now()
        w = Window("vote", p.step, p.seats, self.parts.windows.key(), 0.0, now)
        w.calls = [c for c in p.choices if c is not None]
        # A vote opened again (after a power cut or a pause) goes on from the call that took the last hand: the
        # calls before it were made in full (a hand after its window is a follow-vote), so they are not made
        # again; the last one is, since its window may have been cut short.
        last = next((t for t in reversed(list(self.parts.loop.state.picks.values())) if t is not None), None) \
            if self.parts.loop.state is not None else None
        if last in w.calls:
            w.calls = w.calls[w.calls.index(last):]
        self.parts.windows.take(w)
        self.parts.loop.checkpoint()
        self.parts.follow.window(w)
        self._next_call(w)

    def _next_call(self, w: Window) -> None:
        if self.parts.windows.window is not w:
            return
        if w.call is not None:
            w.previous_call = w.call
        w.window_open = False
        if not w.calls:
            self.parts.loop.submit(Timeout())  # every candidate has been called: count the hands (V2.5)
            return
        candidate = w.calls.pop(0)
        parts = vote_call(candidate, election=w.step in (sheriff.VOTE, sheriff.REVOTE))
        seconds = self.parts.loop.say_now(parts)
        end = self.clock.now() + seconds
        w.call = (candidate, end)
        self.parts.windows.redraw_window()
        self.parts.seats.refresh()
        window = float(self.config.opt("vote.window_s"))
        w.handles.append(self.clock.call_at(end, lambda: self._call_open(w)))
        # V2.6's window is inclusive (the engine counts a hand ``window`` seconds after the call): the vote view
        # stays up through that very instant and leaves at the first moment a hand would be a follow-vote.
        w.handles.append(self.clock.call_at(math.nextafter(end + window, math.inf), lambda: self._call_closed(w)))
        w.handles.append(self.clock.call_at(end + window + self.t.vote_gap_s, lambda: self._next_call(w)))

    def _call_open(self, w: Window) -> None:
        if self.parts.windows.window is w:
            w.window_open = True
            self.parts.windows.redraw_window()
            self.parts.seats.refresh()
            self.parts.follow.window(w)

    def _call_closed(self, w: Window) -> None:
        if self.parts.windows.window is w:
            w.window_open = False
            self.parts.windows.redraw_window()
            self.parts.seats.refresh()

    def hand(self, seat: int, w: Window) -> None:
        now = self.clock.now()
        if w.call is not None and now >= w.call[1]:
            candidate, end = w.call
        elif w.previous_call is not None:
            candidate, end = w.previous_call  # a hand during the next call: late for the previous one
        else:
            self.parts.seats.notice(seat, v.Message(v.L10n("请等点名", "Wait for the call"), ""))
            return
        err = self.parts.loop.submit(Vote(seat, candidate, self.hand_delay(now, end)), seat)
        if err is None:
            if self.parts.loop.inflight and self.parts.loop.inflight[-1].seat == seat and w.window_open:
                # its write is on its way to the disk: the hand's own LED now, as the vote's redraw will light it
                self.parts.seats.ui[seat].local_led = LED_VOTE
            self.parts.seats.notice(seat, v.VoteFeedback(v.VoteResult.COUNTED, candidate))

    def hand_delay(self, now: float, end: float) -> float:
        """The hand's delay after the call, decided here at press time with the boundary the seat's screen
        shows (on time up to and including ``end + window``, V2.6), and handed to the engine as a number the
        engine's own test (``delay <= window``) classifies the same way whatever the float rounding."""
        window = float(self.config.opt("vote.window_s"))
        delay = max(0.0, now - end)
        if now <= end + window:
            return min(delay, window)
        return max(delay, math.nextafter(window, math.inf))
