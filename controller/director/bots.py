"""Bots at the simulated table: they decide with a policy (controller/bots) through the engine's "what are you
waiting for" answer, then *press buttons* on the sim adapter — ◀/▶ to move the pointer, OK to confirm, pass or
raise a hand when the voice calls a seat — so a whole game goes through the director exactly as people would
play it.

Every decision and every delay comes from a ``random.Random`` seeded with the game's seed and the number of
events so far, so a game killed and resumed from its journal is decided exactly as the uninterrupted one.

A pause (the judge's, or a seat node that stopped answering) is a held breath, not a new game: the bots' timers
stop while play is paused and run on with the time they had left when it resumes (:class:`HeldTimers`), and the
window the director opens again on resume keeps the plan made for it. Re-planning it would decide on a state
that has moved on (partners' picks, votes already counted), and the game would no longer be the one played
without the pause.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any, Protocol

from controller.bots import POLICIES
from controller.director.clock import Handle, Scheduler
from controller.director.director import Director, Window
from controller.director.places import PlaceTable, places_of, seat_of
from controller.ports import Button
from controller.rules import engine
from controller.rules.actions import Ballot, ChooseDirection, GroupPick, Pass, Pick, Vote, Withdraw
from controller.rules.cards import FIRST_IDENTITY
from controller.rules.sheriff import BADGE, DIRECTION
from controller.rules.turns import TURN_VOTE


class Hands(Protocol):
    """What the bots need of a table: fingers on its buttons. The in-memory ``SimTable`` and the seat bus
    simulator's hands (``controller.sessions.bus_session``) both have them."""

    def click(self, seat: int, button: Button) -> None: ...

    def tap(self, seat: int, uid: str) -> None: ...


class HeldTimers:
    """Timers that stand still while the game is paused: :meth:`hold` parks every pending one with the time it
    had left, :meth:`release` arms them again from now, in their old order. Hook it to the director with
    :meth:`follow` (its ``pause_listeners``)."""

    def __init__(self, clock: Scheduler) -> None:
        self.clock = clock
        self.held_at: float | None = None
        self._order = itertools.count()
        self._pending: dict[int, tuple[float, Callable[[], Any], Handle | None]] = {}

    def follow(self, director: Director) -> None:
        director.pause_listeners.append(lambda _d, paused: self.hold() if paused else self.release())

    def call_later(self, delay: float, fn: Callable[[], Any]) -> None:
        self.call_at(self.clock.now() + delay, fn)

    def call_at(self, when: float, fn: Callable[[], Any]) -> None:
        n = next(self._order)
        if self.held_at is not None:  # planned during a pause: it waits for the resume like the others
            self._pending[n] = (when, fn, None)
            return
        self._pending[n] = (when, fn, self.clock.call_at(when, lambda: self._fire(n)))

    def _fire(self, n: int) -> None:
        entry = self._pending.pop(n, None)
        if entry is not None:
            entry[1]()

    def hold(self) -> None:
        if self.held_at is not None:
            return
        self.held_at = self.clock.now()
        for n, (when, fn, handle) in list(self._pending.items()):
            if handle is not None:
                handle.cancel()
            self._pending[n] = (when, fn, None)

    def release(self) -> None:
        held_at = self.held_at
        if held_at is None:
            return
        self.held_at = None
        now = self.clock.now()
        parked = sorted((when, n, fn) for n, (when, fn, _) in self._pending.items())
        self._pending.clear()
        for when, _n, fn in parked:
            self.call_at(now + max(0.0, when - held_at), fn)


def _card_one_first(planned: list[tuple[Any, float]]) -> list[tuple[Any, float]]:
    """D2: a seat acts for card 1 before card 2 (controller/director/places.py), so a player's second card
    decides after the first one's choice is in."""
    first = {a.seat: delay for a, delay in planned if isinstance(a, Pick) and a.seat % 2 == 1}
    return [(a, max(delay, first[a.seat - 1] + 0.3) if isinstance(a, Pick) and a.seat - 1 in first else delay)
            for a, delay in planned]


class TableBots:
    def __init__(self, director: Director, table: Hands, policy: str, seed: int,
                 think_s: tuple[float, float] = (0.5, 2.5)) -> None:
        self.d = director
        self.table = table
        #: dual-card-5.0: the bots press card places (also through hands that keep off the seats people play,
        #: controller/sim/play.py, which name the table they press as ``wrapped``).
        self.places = isinstance(table, PlaceTable) or isinstance(getattr(table, "wrapped", None), PlaceTable)
        self.policy: Any = POLICIES[policy]()
        self.seed = seed
        self.think_s = think_s
        self.votes: dict[int, int | None] = {}
        self.seen = 0
        self.timers = HeldTimers(director.clock)
        #: The key of the window last planned, and whether play has resumed since (then the director's next
        #: call for that key is the same window opened again, not a new wait).
        self.planned: str | None = None
        self.resumed = False
        director.pause_listeners.append(self.on_pause)
        director.listeners.append(self.on_window)

    def on_pause(self, d: Director, paused: bool) -> None:
        if paused:
            self.timers.hold()
        else:
            self.resumed = True
            self.timers.release()

    def _rng(self, salt: str) -> random.Random:
        """Seeded by the wait itself (its place in the game), not by the clock or the number of events, so that
        after a resume the same wait gets the same decisions."""
        return random.Random(f"bots:{self.seed}:{salt}")

    def _later(self, delay: float, fn: Any) -> None:
        self.timers.call_later(delay, fn)

    def _observe(self) -> None:
        s = self.d.state
        if s is not None and self.seen < len(self.d.events):
            self.policy.observe(s, self.d.events[self.seen:])
            self.seen = len(self.d.events)

    def on_window(self, d: Director, w: Window) -> None:
        s = d.state
        if s is None:
            return
        p = engine.pending(s)
        if p is None:
            return
        resumed, self.resumed = self.resumed and w.key == self.planned, False
        self.planned = w.key
        if resumed and w.kind != "vote":
            return  # the same wait after a pause: the plan made for it stands, its timers run on
        self._observe()
        rng = self._rng(w.key + (f":{w.call[0]}" if w.call else ""))
        if w.kind == "vote" and w.step == TURN_VOTE:  # V4.8: the speaker points at a seat and confirms
            for a in self.policy.actions(s, p, rng):
                hands = a.votes if isinstance(a, Ballot) else ((a.seat, a.target),) if isinstance(a, Vote) else ()
                for seat, target in hands:
                    if target is not None and seat in p.seats:
                        self._point(seat, target, p.choices, rng.uniform(*self.think_s))
            return
        if w.kind == "vote":
            if w.call is None and resumed:  # the calls start again: the minds made up stay made up
                return
            if w.call is None:  # the vote begins: every bot makes up its mind (all voters, even after a resume)
                self.votes = {}
                assert s.waiting is not None
                p = p._replace(seats=tuple(x for x in s.waiting.seats if x in s.alive))
                for a in self.policy.actions(s, p, rng):
                    if isinstance(a, Ballot):
                        self.votes.update(dict(a.votes))
                    elif isinstance(a, Vote):
                        self.votes[a.seat] = a.target
            elif w.window_open:  # the voice called a seat: its voters raise their hands at once
                candidate = w.call[0]
                voters = [seat for seat, t in sorted(self.votes.items()) if t == candidate]
                for i, seat in enumerate(voters):
                    self._later(0.1 + 0.02 * i, lambda seat=seat, call=w.call: self._raise_hand(seat, w, call))
            return
        lo, hi = self.think_s
        planned = [(action, rng.uniform(lo, hi)) for action in self.policy.actions(s, p, rng)]
        if self.places:
            planned = _card_one_first(planned)
        for action, delay in planned:
            if isinstance(action, GroupPick):
                for i, seat in enumerate(p.seats):
                    self._point(seat, action.target, p.choices, delay + 0.3 * i)
            elif isinstance(action, Pick):
                if p.kind in ("night", FIRST_IDENTITY, BADGE):  # a target, D1's card 1 or 2, W10's badge: ▶, OK
                    self._point(action.seat, action.target, p.choices, delay)
                else:  # a defence claim, W10: running for sheriff
                    self._ok(action.seat, delay)
            elif isinstance(action, Pass) and p.kind == "candidacy":  # W10: not running is ▶
                self._later(delay, lambda seat=action.seat: self.table.click(seat, Button.NEXT))
            elif isinstance(action, Pass):
                self._ok(action.seat, delay)
            elif isinstance(action, Withdraw):  # W10 退水: ◀ during the candidates' speeches
                self._later(delay, lambda seat=action.seat: self.table.click(seat, Button.PREV))
            elif isinstance(action, ChooseDirection) and p.step == DIRECTION:  # W10: the sheriff's ◀ or ▶
                button = Button.NEXT if action.clockwise else Button.PREV
                self._later(delay, lambda seat=p.seats[0], b=button: self.table.click(seat, b))
            elif isinstance(action, ChooseDirection):
                self._later(delay, lambda a=action: d.choose_direction(a.clockwise))
            # Timeout: do nothing and let the deadline pass (C5)

    def _ok(self, seat: int, delay: float) -> None:
        """Press OK (pass, claim a defence, close one's eyes) after ``delay``."""
        self._later(delay, lambda: self.table.click(seat, Button.OK))

    def _raise_hand(self, seat: int, w: Window, call: tuple[int, float]) -> None:
        """Raise a hand for the call it was meant for, if the seat has not voted yet (a vote called again after a
        pause finds most hands already counted)."""
        s = self.d.state
        if self.d.window is not w or w.call != call or not w.window_open or s is None:
            return
        if self.places:
            # D2: a press is the hand of the seat's next card still to vote, whichever card meant it; so the seat
            # presses as often as its cards mean to vote for this candidate, less the hands it already gave
            # them (a vote called again after a power cut finds them counted and presses no more).
            candidate, places = call[0], places_of(seat_of(seat))
            meant = sum(1 for q in places if self.votes.get(q) == candidate)
            given = sum(1 for q in places if q in s.picks and s.picks[q] == candidate)
            if given >= meant or not any(self.d.wants_input(q) for q in places):
                return
        elif seat in s.picks:
            return
        self.table.click(seat, Button.OK)

    def _point(self, seat: int, target: int | None, choices: tuple[int | None, ...], delay: float) -> None:
        """Move the seat's pointer to ``target`` with ▶ presses, then OK."""
        def go() -> None:
            ui = self.d.ui[seat]
            opts = list(choices)
            if target not in opts:
                return
            start = opts.index(ui.cursor) if ui.cursor in opts else 0
            steps = (opts.index(target) - start) % len(opts)
            for _ in range(steps):
                self.table.click(seat, Button.NEXT)
            self.table.click(seat, Button.OK)

        self._later(delay, go)
