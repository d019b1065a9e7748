"""Inputs: what seats, the judge or the clock ask the engine to do. The engine accepts one (returning events)
or rejects it with a :class:`Rejected` reason, changing nothing."""

from __future__ import annotations

from dataclasses import dataclass

Target = int | None


@dataclass(frozen=True, slots=True)
class Pick:
    """A waking player points at ``target`` (None: "skip", where the step is optional). Also a defence claim
    (``target`` = own seat) in the ``defence_claim`` step."""

    seat: int
    target: Target


@dataclass(frozen=True, slots=True)
class GroupPick:
    """The whole waking group's choice, entered at once: the judge's remote in "judge entry" mode, or a bot."""

    target: Target


@dataclass(frozen=True, slots=True)
class Vote:
    """A raised hand for ``target`` (None: abstain). ``delay_s`` is how long after the call ended the hand went up
    (V2.6: the variant's window decides whether it counts)."""

    seat: int
    target: Target
    delay_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Ballot:
    """A whole vote counted by the judge: (voter, target) pairs. Closes the vote."""

    votes: tuple[tuple[int, Target], ...]


@dataclass(frozen=True, slots=True)
class Pass:
    """"过": the seat ends its speech or last words, acknowledges a recognition, or declines a defence."""

    seat: int


@dataclass(frozen=True, slots=True)
class Timeout:
    """The deadline of the current wait passed (C5): unfinished actions are forfeited, speeches end, the vote
    closes with the hands counted so far."""


@dataclass(frozen=True, slots=True)
class ChooseDirection:
    """V2.4 ``speech.any_direction``: the judge's choice; True = clockwise."""

    clockwise: bool


@dataclass(frozen=True, slots=True)
class Surrender:
    """V2.11: ``seat`` surrenders for its side."""

    seat: int


@dataclass(frozen=True, slots=True)
class Eject:
    """V2.11 §5.14/§5.15: the judge rules ``seat`` out of this game."""

    seat: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Penalty:
    """V2.11 §5.4: one penalty point for ``seat``."""

    seat: int


Action = Pick | GroupPick | Vote | Ballot | Pass | Timeout | ChooseDirection | Surrender | Eject | Penalty


class Rejected(Exception):
    """An illegal input. ``code`` is stable (screens and prompts key on it); ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
