"""Bots at the simulated table: they decide with a policy (controller/bots) through the engine's "what are you
waiting for" answer, then *press buttons* on the sim adapter — ◀/▶ to move the pointer, OK to confirm, pass or
raise a hand when the voice calls a seat — so a whole game goes through the director exactly as people would
play it.

Every decision and every delay comes from a ``random.Random`` seeded with the game's seed and the number of
events so far, so a game killed and resumed from its journal is decided exactly as the uninterrupted one.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from controller.bots import POLICIES
from controller.director.director import Director, Window
from controller.ports import Button
from controller.rules import engine
from controller.rules.actions import Ballot, ChooseDirection, GroupPick, Pass, Pick, Vote


class Hands(Protocol):
    """What the bots need of a table: fingers on its buttons. The in-memory ``SimTable`` and the seat bus
    simulator's hands (``controller.director.bus_session``) both have them."""

    def click(self, seat: int, button: Button) -> None: ...

    def tap(self, seat: int, uid: str) -> None: ...


class TableBots:
    def __init__(self, director: Director, table: Hands, policy: str, seed: int,
                 think_s: tuple[float, float] = (0.5, 2.5)) -> None:
        self.d = director
        self.table = table
        self.policy: Any = POLICIES[policy]()
        self.seed = seed
        self.think_s = think_s
        self.votes: dict[int, int | None] = {}
        self.seen = 0
        director.listeners.append(self.on_window)

    def _rng(self, salt: str) -> random.Random:
        """Seeded by the wait itself (its place in the game), not by the clock or the number of events, so that
        after a resume the same wait gets the same decisions."""
        return random.Random(f"bots:{self.seed}:{salt}")

    def _later(self, delay: float, fn: Any) -> None:
        clock = self.d.clock
        clock.call_at(clock.now() + delay, fn)

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
        self._observe()
        rng = self._rng(w.key + (f":{w.call[0]}" if w.call else ""))
        if w.kind == "vote":
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
                    self._later(0.1 + 0.02 * i, lambda seat=seat: self.table.click(seat, Button.OK))
            return
        lo, hi = self.think_s
        for action in self.policy.actions(s, p, rng):
            delay = rng.uniform(lo, hi)
            if isinstance(action, GroupPick):
                for i, seat in enumerate(p.seats):
                    self._point(seat, action.target, p.choices, delay + 0.3 * i)
            elif isinstance(action, Pick):
                if p.kind == "night":
                    self._point(action.seat, action.target, p.choices, delay)
                else:  # a defence claim
                    self._later(delay, lambda a=action: self.table.click(a.seat, Button.OK))
            elif isinstance(action, Pass):
                self._later(delay, lambda a=action: self.table.click(a.seat, Button.OK))
            elif isinstance(action, ChooseDirection):
                self._later(delay, lambda a=action: d.choose_direction(a.clockwise))
            # Timeout: do nothing and let the deadline pass (C5)

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
