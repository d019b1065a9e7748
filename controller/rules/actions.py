"""Inputs: what seats, the judge or the clock ask the engine to do. The engine accepts one (returning events)
or rejects it with a :class:`Rejected` reason, changing nothing."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from controller.rules.record import Record, dataclass_view

Target = int | None


@mypyc_attr(acyclic=True)
class Pick(Record):
    """A waking player points at ``target`` (None: "skip", where the step is optional). Also a defence claim
    (``target`` = own seat) in the ``defence_claim`` step."""

    __match_args__ = ("seat", "target")
    seat: Final[int]
    target: Final[Target]

    def __init__(self, seat: int, target: Target) -> None:
        self.seat = seat
        self.target = target


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class GroupPick(Record):
    """The whole waking group's choice, entered at once: the judge's remote in "judge entry" mode, or a bot."""

    __match_args__ = ("target",)
    target: Final[Target]

    def __init__(self, target: Target) -> None:
        self.target = target


@mypyc_attr(acyclic=True)
class Vote(Record):
    """A raised hand for ``target`` (None: abstain). ``delay_s`` is how long after the call ended the hand went up
    (V2.6: the variant's window decides whether it counts)."""

    __match_args__ = ("seat", "target", "delay_s")
    seat: Final[int]
    target: Final[Target]
    delay_s: Final[float]

    def __init__(self, seat: int, target: Target, delay_s: float = 0.0) -> None:
        self.seat = seat
        self.target = target
        self.delay_s = delay_s


@mypyc_attr(acyclic=True, free_list_len=1)  # one is freed at almost every input: kept for the next
class Ballot(Record):
    """A whole vote counted by the judge: (voter, target) pairs. Closes the vote."""

    __match_args__ = ("votes",)
    votes: Final[tuple[tuple[int, Target], ...]]

    def __init__(self, votes: tuple[tuple[int, Target], ...]) -> None:
        self.votes = votes


@mypyc_attr(acyclic=True)
class Pass(Record):
    """"过": the seat ends its speech or last words, acknowledges a recognition, or declines a defence."""

    __match_args__ = ("seat",)
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@mypyc_attr(acyclic=True)
class Timeout(Record):
    """The deadline of the current wait passed (C5): unfinished actions are forfeited, speeches end, the vote
    closes with the hands counted so far."""

    __match_args__ = ()


@mypyc_attr(acyclic=True)
class ChooseDirection(Record):
    """V2.4 ``speech.any_direction``: the judge's choice; True = clockwise."""

    __match_args__ = ("clockwise",)
    clockwise: Final[bool]

    def __init__(self, clockwise: bool) -> None:
        self.clockwise = clockwise


@mypyc_attr(acyclic=True)
class Surrender(Record):
    """V2.11: ``seat`` surrenders for its side."""

    __match_args__ = ("seat",)
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@mypyc_attr(acyclic=True)
class Eject(Record):
    """V2.11 §5.14/§5.15: the judge rules ``seat`` out of this game."""

    __match_args__ = ("seat", "reason")
    seat: Final[int]
    reason: Final[str]

    def __init__(self, seat: int, reason: str = "") -> None:
        self.seat = seat
        self.reason = reason


@mypyc_attr(acyclic=True)
class Penalty(Record):
    """V2.11 §5.4: one penalty point for ``seat``."""

    __match_args__ = ("seat",)
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@mypyc_attr(acyclic=True)
class SelfDestruct(Record):
    """W11: ``seat`` reveals itself by day (a role whose ``day_action`` is "self_destruct")."""

    __match_args__ = ("seat",)
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@mypyc_attr(acyclic=True)
class Withdraw(Record):
    """W10: a candidate for sheriff withdraws (退水) during the candidates' speeches."""

    __match_args__ = ("seat",)
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


dataclass_view(Pick, GroupPick, Vote, Ballot, Pass, Timeout, ChooseDirection, Surrender, Eject, Penalty, SelfDestruct,
               Withdraw)

Action = (Pick | GroupPick | Vote | Ballot | Pass | Timeout | ChooseDirection | Surrender | Eject | Penalty
          | SelfDestruct | Withdraw)


class Rejected(Exception):
    """An illegal input. ``code`` is stable (screens and prompts key on it); ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
