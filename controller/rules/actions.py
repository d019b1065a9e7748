"""Inputs: what seats, the judge or the clock ask the engine to do. The engine accepts one (returning events)
or rejects it with a :class:`Rejected` reason, changing nothing."""

from __future__ import annotations

from controller.rules.record import record

Target = int | None


@record
class Pick:
    """A waking player points at ``target`` (None: "skip", where the step is optional). Also a defence claim
    (``target`` = own seat) in the ``defence_claim`` step."""

    seat: int
    target: Target


@record
class GroupPick:
    """The whole waking group's choice, entered at once: the judge's remote in "judge entry" mode, or a bot."""

    target: Target


@record
class Vote:
    """A raised hand for ``target`` (None: abstain). ``delay_s`` is how long after the call ended the hand went up
    (V2.6: the variant's window decides whether it counts)."""

    seat: int
    target: Target
    delay_s: float = 0.0


@record
class Ballot:
    """A whole vote counted by the judge: (voter, target) pairs. Closes the vote."""

    votes: tuple[tuple[int, Target], ...]


@record
class Pass:
    """"过": the seat ends its speech or last words, acknowledges a recognition, or declines a defence."""

    seat: int


@record
class Timeout:
    """The deadline of the current wait passed (C5): unfinished actions are forfeited, speeches end, the vote
    closes with the hands counted so far."""


@record
class ChooseDirection:
    """V2.4 ``speech.any_direction``: the judge's choice; True = clockwise."""

    clockwise: bool


@record
class Surrender:
    """V2.11: ``seat`` surrenders for its side."""

    seat: int


@record
class Eject:
    """V2.11 §5.14/§5.15: the judge rules ``seat`` out of this game."""

    seat: int
    reason: str = ""


@record
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
