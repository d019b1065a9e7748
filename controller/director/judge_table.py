"""The judge's command table: every command a remote may offer, its words, and the shapes of what a front end
is given back (:class:`Offer`, :class:`Choice`, :class:`Outcome`). judge_commands.py carries the commands out.

Apart from the commands themselves so that the parts which only name or word a command (the remote's screens,
the deal's remote lines, a refused input's reason) and every front end import the table without importing the
part that runs it (see judge_commands.py's docstring for what each field means).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.rules.actions import Action, Rejected
from controller.screens import views as v
from controller.screens.strings import UI

#: Choices the handheld offers for "extend" (the phone may send any whole number of seconds in this range).
EXTEND_CHOICES = (30, 60, 15)
EXTEND_RANGE = (5, 600)


def words(key: str, **fields: object) -> v.L10n:
    """A phrase of the screens' own table (controller/screens/strings.py) in both languages, fields filled in
    (a field that is itself an :class:`~controller.screens.views.L10n` in the same language)."""
    zh, en = UI[key]
    return v.L10n(zh.format(**{k: f.zh if isinstance(f, v.L10n) else f for k, f in fields.items()}),
                  en.format(**{k: f.en if isinstance(f, v.L10n) else f for k, f in fields.items()}))


@dataclass(frozen=True, slots=True)
class Choice:
    """One value a command may take now, with its words ("5号" / "Seat 5", "不行动" / "Skip")."""

    value: Any
    label: v.L10n


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a command: done or refused, in words for the judge; ``code`` is stable ("done", or why:
    "unknown", "not_now", "not_a_choice", or the rules' own code such as "partners_alive")."""

    ok: bool
    message: v.L10n
    code: str = "done"


@dataclass(frozen=True, slots=True)
class JudgeCommand:
    """One row of the table (see the module's docstring)."""

    name: str
    takes: str
    confirm: bool
    heard: tuple[str, ...]
    rule: str

    @property
    def label(self) -> v.L10n:
        return words(f"cmd_{self.name}")


@dataclass(frozen=True, slots=True)
class Offer:
    """A command as it stands now: open or not, and the choices it has now."""

    command: JudgeCommand
    open: bool
    choices: tuple[Choice, ...] = ()


COMMANDS: tuple[JudgeCommand, ...] = (
    JudgeCommand("pause", "", False, ("game.paused",), "C5"),
    JudgeCommand("resume", "", False, ("game.resumed",), "C5"),
    JudgeCommand("repeat", "", False, ("the last prompt again",), "C2"),
    JudgeCommand("extend", "seconds", False, (), "C5"),
    JudgeCommand("end_timer", "", True, (), "C5"),
    JudgeCommand("undo", "", True, ("game.undone",), "C5"),
    JudgeCommand("eject", "seat", True, ("seat.N", "eject.ejected"), "V2.11"),
    JudgeCommand("penalty", "seat", True, ("seat.N", "speech.out_of_turn"), "V2.11"),
    JudgeCommand("surrender", "seat", True, ("seat.N", "surrender.surrenders", "ending.*"), "V2.11"),
    # W11: a werewolf shows the card by day (or during the sheriff election); the judge enters it
    JudgeCommand("self_destruct", "seat", True, ("seat.N", "death.died"), "W11"),
    JudgeCommand("judge_pick", "target", True, (), "C2"),
    JudgeCommand("direction", "direction", False, ("speech.clockwise | speech.counterclockwise",), "V2.4"),
    JudgeCommand("redeal", "", True, ("setup.redeal",), "C1"),
    JudgeCommand("abort", "", True, ("game.stopped_by_judge",), "C4"),
)
BY_NAME: dict[str, JudgeCommand] = {c.name: c for c in COMMANDS}

#: Outcome codes of the table itself (any other code is the rules' own refusal).
_OURS = frozenset({"done", "unknown", "not_now", "not_a_choice", "nothing_to_undo"})


def refusal(exc: Rejected, action: Action | None, label: Callable[[int], str]) -> v.L10n:
    """Why the rules refused an input, in both languages (the rule's ID where there is one, V2.11); the
    engine's own English sentence where no words are written for its code."""
    key = f"why_{exc.code}"
    if key not in UI:
        return v.L10n(f"{UI['refused'][0]}：{exc.message}", exc.message)
    seat = getattr(action, "seat", None)
    target = getattr(action, "target", None)
    n = label(seat) if isinstance(seat, int) else "?"
    t = label(target) if isinstance(target, int) else "?"
    return words(key, n=n, t=t)
