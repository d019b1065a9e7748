"""The day's script as agenda tasks (``day_agenda``) and the day's rules of one configuration worked out once
(:class:`DayRules`).

Apart from day.py because the night (dawn hands over to the day's tasks), the dual-card deal (a game that opens by
day) and the engine all start a day: each imports this module, which imports only the configuration and the
state, instead of importing day.py (which itself calls the night and the cards).
"""

from __future__ import annotations

from typing import Any, Final

from controller.rules.setup import GameConfig
from controller.rules.state import GameState


class DayRules:
    """What the day asks of one configuration at every dawn and every vote, worked out once from its options
    (compiled, an option is a Python-level call and a comparison of untyped values; these are native fields).
    Never changed once made: safe to read from any thread."""

    __slots__ = ("config", "reverse", "sheriff", "tasks", "top2")

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        defence = bool(config.opt("defence.suspects") and "defence.suspects" in config.options)
        #: The day's tasks (day_agenda).
        self.tasks: tuple[Any, ...] = _day_tasks(config.variant.day_script, defence, config.talk)
        #: V2.5 ``vote.reverse``: the calls go from the last speaker backwards.
        self.reverse: bool = config.opt("vote") == "reverse"
        #: V2.7 ``tie.top2``: every first vote has two rounds.
        self.top2: bool = config.opt("tie") == "top2"
        #: W10 ``sheriff``: an election, the sheriff's 1.5 vote, speaking last, the badge.
        self.sheriff: bool = bool("sheriff" in config.options and config.opt("sheriff"))


#: The rules of the configuration the day last asked about: every game of a simulation (and every day of a table's
#: game) asks with the same configuration object, and comparing it is cheaper than any lookup.
_last_rules: Final[list[DayRules | None]] = [None]


def day_rules(config: GameConfig) -> DayRules:
    last = _last_rules[0]
    if last is not None and last.config is config:
        return last
    rules = DayRules(config)
    _last_rules[0] = rules
    return rules


def day_agenda(s: GameState) -> list[Any]:
    """The variant's day script as tasks, then the next night."""
    return list(day_rules(s.config).tasks)


def day_tasks(config: GameConfig) -> tuple[Any, ...]:
    """The same tasks as a tuple, for a caller that copies them anyway (``agenda[:] = day_tasks(config)``)."""
    return day_rules(config).tasks


#: The day's steps that only wait for talk: a table of bots that never talk (``talk`` off) leaves them out.
_TALK_ONLY: Final = frozenset({"last_words", "speeches", "defence"})


def _day_tasks(script: tuple[str, ...], defence: bool, talk: bool) -> tuple[Any, ...]:
    """Worked out once per configuration (DayRules): every dawn asks for it."""
    tasks: list[Any] = []
    for name in script:
        if not talk and name in _TALK_ONLY:
            continue
        if name == "last_words":
            tasks.append(("last_words_night",))
        elif name == "speeches":
            tasks.append(("speeches",))
        elif name == "defence":
            if defence:
                tasks.append(("defence",))
        elif name == "vote":
            tasks.append(("vote",))
        elif name == "last_words.in_turn":  # V4.7
            tasks.append(("last_words_in_turn",))
        elif name == "defence.votes":  # V4.8
            tasks.append(("defence_votes",))
    tasks.append(("night",))
    return tuple(tasks)
