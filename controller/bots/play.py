"""One complete game played by a policy against the engine: the simulator's inner loop (``tianhei simulate``,
the balance lab, the club's bot tables in the tests).

A module of its own so that mypyc compiles it with the rules and the bots (controller/compiled_rules.py): the loop
runs a dozen times a game, and compiled, its calls into the engine and the policy cost no Python frame.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from controller.bots.policies import Policy, UninformedPolicy
from controller.bots.stuck import StuckGame
from controller.rules.actions import Action, Rejected
from controller.rules.engine import Pending, new_game, pending, step
from controller.rules.events import Event
from controller.rules.setup import GameConfig
from controller.rules.state import GameState

#: No real game needs more inputs than this; reaching it means an engine or policy bug, not a long game.
MAX_INPUTS: Final = 100_000


def play(config: GameConfig, policy: Policy, rng: random.Random, first: str | None = None,
         record: Callable[[Event], None] | None = None) -> GameState:
    """One complete game; returns the final state. ``record`` sees every event (None: keep none)."""
    state, events = new_game(config, rng, first=first)
    if record is not None:
        for e in events:
            record(e)
    observes = policy.observes
    inputs = 0
    while state.phase != "over":
        p = pending(state)
        if p is None:
            raise StuckGame("the engine waits for nothing but the game is not over", state)
        for action in _actions(policy, state, p, rng):
            try:
                state, events = step(state, action, rng)
            except Rejected as exc:
                raise StuckGame(f"{policy.name} sent an illegal input {action!r}: {exc.message}", state) from None
            if observes:
                policy.observe(state, events)
            if record is not None:
                for e in events:
                    record(e)
            inputs += 1
            waiting = state.waiting
            if state.phase == "over" or waiting is None or waiting.step != p.step:
                break
        if inputs > MAX_INPUTS:
            raise StuckGame(f"no end after {MAX_INPUTS} inputs", state)
    return state


def play_many(config: GameConfig, factory: Callable[[], Policy], rng: random.Random, games: int,
              first: str | None, wins: dict[str, int]) -> tuple[int, int]:
    """``games`` games one after another from ``rng``, each with a new ``factory()`` policy: the simulator's
    loop, compiled with the game's. Adds each win to ``wins`` by side ("none" for a game without a winner);
    returns (draws, the days the games lasted in all)."""
    draws = days = 0
    for _ in range(games):
        final = play(config, factory(), rng, first)
        winner = final.winner
        if winner == "draw":
            draws += 1
        else:
            side = winner or "none"
            wins[side] = wins.get(side, 0) + 1
        days += final.day
    return draws, days


def _actions(policy: Policy, state: GameState, p: Pending, rng: random.Random) -> Sequence[Action]:
    """``policy.actions(...)``; the uninformed bots (the simulator's own) called as the compiled class they are,
    not through a method looked up by name (a Python-level call at every input)."""
    if type(policy) is UninformedPolicy:
        return policy.actions(state, p, rng)
    return policy.actions(state, p, rng)
