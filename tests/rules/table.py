"""A scenario helper so that rule tests read like the game:

    g = Game("standard-2.0", "K K P P C C C C")      # seat 1 is a killer, seat 3 police, ...
    g.night(kill=5, check=2)                        # killers pick seat 5; police check seat 2
    assert g.check_result == "nod"
    g.talk()                                        # everyone says "pass"
    g.hands({5: [1, 4, 7]})                         # seats 1, 4 and 7 raise hands for seat 5
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from controller.bots import POLICIES
from controller.rules import engine
from controller.rules.actions import (
    Action,
    GroupPick,
    Pass,
    Pick,
    Rejected,
    Timeout,
    Vote,
)
from controller.rules.events import Acted, Event
from controller.rules.setup import GameConfig, configure
from controller.rules.state import GameState
from controller.rules.variant import load_variant

#: The tests' shorthand for a deck ("K K P P C C"): notation only, every name a role of a built-in variant file
#: (tests/rules/test_variant_files.py holds it to the files); a role's own name works as well (werewolf seer ...).
LETTERS = {"K": "killer", "P": "police", "C": "civilian", "D": "doctor", "S": "secret_police",
           "I": "informant", "B": "butterfly", "J": "sniper", "E": "elder", "A": "angel", "V": "devil",
           "U": "undercover_killer"}


class Game:
    def __init__(self, variant: str, cards: str, options: Mapping[str, Any] | None = None,
                 history: Iterable[int] = (), first: str | None = None) -> None:
        roles = [LETTERS.get(c, c) for c in cards.split()]  # a letter, or a role's own name (werewolf seer ...)
        counts: dict[str, int] = {}
        for r in roles:
            counts[r] = counts.get(r, 0) + 1
        self.config = configure(load_variant(variant), len(roles), options or {}, counts, history)
        self.state, self.events = engine.new_game(self.config, roles=roles, first=first)
        self.check_result = ""

    # --- plumbing -----------------------------------------------------------------------------------------
    def do(self, action: Action) -> list[Event]:
        self.state, events = engine.step(self.state, action)
        self.events.extend(events)
        return events

    def rejects(self, action: Action) -> str:
        """The input is refused and nothing changes; returns the rejection code."""
        before = self.state
        try:
            engine.step(self.state, action)
        except Rejected as exc:
            assert self.state is before
            return exc.code
        raise AssertionError(f"{action!r} was accepted")

    @property
    def waiting(self) -> engine.Pending | None:
        return engine.pending(self.state)

    @property
    def step(self) -> str:
        p = self.waiting
        return p.step if p else "over"

    @property
    def alive(self) -> list[int]:
        return sorted(self.state.alive)

    @property
    def winner(self) -> str | None:
        return self.state.winner

    def of(self, kind: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    # --- the night ----------------------------------------------------------------------------------------
    def act(self, step: str, target: int | None) -> None:
        """The waking group settles on ``target`` in ``step`` (judge entry: one input for the group)."""
        assert self.step == step, f"expected step {step}, the table is at {self.step}"
        events = self.do(GroupPick(target))
        for e in events:
            if isinstance(e, Acted) and e.ability == "check" and e.step == step:
                self.check_result = e.result

    def night(self, **targets: int | None) -> None:
        """Play tonight's steps in the variant's order: ``night(kill=5, check=2, save=5)``. Steps not named are
        skipped (if optional) or forfeited (C5 deadline)."""
        n = self.state.night
        while self.waiting and self.waiting.kind in ("night", "recognition") and self.state.night == n:
            p = self.waiting
            if p.kind == "recognition":
                self.do(Timeout())
            elif p.step in targets:
                self.act(p.step, targets[p.step])
            else:
                self.do(Timeout())

    # --- the day ------------------------------------------------------------------------------------------
    def talk(self) -> list[int]:
        """Everyone due to speak says "pass", until something else is waited for; returns who spoke."""
        spoke = []
        while self.waiting and self.waiting.kind in ("speeches", "last_words"):
            seat = self.waiting.seats[0]
            spoke.append(seat)
            self.do(Pass(seat))
        return spoke

    def speakers(self) -> list[int]:
        """The current speech step's order (without passing)."""
        assert self.waiting and self.waiting.kind in ("speeches", "last_words")
        return list(self.state.queue)

    def hands(self, votes: Mapping[int, Iterable[int]], close: bool = True) -> list[Event]:
        """``hands({5: [1, 4, 7]})``: seats 1, 4 and 7 raise their hands when seat 5 is called."""
        assert self.waiting and self.waiting.kind == "vote", f"no vote now ({self.step})"
        out: list[Event] = []
        for target, voters in votes.items():
            for v in voters:
                out += self.do(Vote(v, target))
                if not self.waiting or self.waiting.kind != "vote":
                    return out
        if close and self.waiting and self.waiting.kind == "vote":
            out += self.do(Timeout())
        return out

    def claim(self, seat: int) -> None:
        self.do(Pick(seat, seat))


def bot_game(config: GameConfig, policy_name: str, seed: int, record: list[Event]) -> Iterator[GameState]:
    """One bot game as the simulator plays it (the loop of controller.bots.play), one input at a time: a
    generator, so that several tables can take turns; every event goes into ``record``."""
    rng = random.Random(seed)
    policy = POLICIES[policy_name]()
    state, events = engine.new_game(config, rng)
    record.extend(events)
    while state.phase != "over":
        p = engine.pending(state)
        assert p is not None
        for action in policy.actions(state, p, rng):
            state, events = engine.step(state, action, rng)
            if policy.observes:
                policy.observe(state, events)
            record.extend(events)
            yield state
            if state.phase == "over" or state.waiting is None or state.waiting.step != p.step:
                break
