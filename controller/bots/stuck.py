"""The simulator's one error: a game that does not end.

A module of its own, left to the interpreter: mypyc, which compiles the loop that raises it
(controller/bots/play.py), cannot compile a subclass of a built-in exception.
"""

from __future__ import annotations

from controller.rules.state import GameState


class StuckGame(RuntimeError):
    """A game did not end: the engine and a policy disagree. Carries the state for the bug report."""

    def __init__(self, message: str, state: GameState) -> None:
        super().__init__(message)
        self.state = state
