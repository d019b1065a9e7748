"""The engine calls its frequent tasks, events and inputs directly (a compiled direct call instead of a lookup in
a table of functions): each direct call (the engine's, and Tx.emit's in tx.py) must still be the function the table names, so a rule module that
re-maps a task name is never bypassed by a stale shortcut."""

from __future__ import annotations

from controller.rules import day, engine, night, turns, tx
from controller.rules.actions import Ballot, GroupPick, Pass, Timeout
from controller.rules.events import Acted, Dawn, Died, NightFell, Opened, VoteClosed

#: What engine._run_task calls for each name it dispatches itself.
DIRECT_TASKS = {
    "night_step": night.task_night_step,
    "defence_turns": turns.task_defence_turns,
    "turn_vote": turns.task_turn_vote,
    "speak_among": day.task_speak_among,
    "night": night.task_night,
    "dawn": night.task_dawn,
    "vote": day.task_vote,
    "execute": day.task_execute,
}


def test_every_task_the_engine_runs_directly_is_the_task_its_rule_module_names():
    assert set(engine.DIRECT_TASKS) == set(DIRECT_TASKS)
    for name, fn in DIRECT_TASKS.items():
        assert engine._TASKS[name] is fn, name


def test_every_event_the_engine_applies_directly_is_applied_as_the_table_says():
    direct = {VoteClosed: tx._vote_closed, Acted: tx._acted, NightFell: tx._night_fell,
              Dawn: tx._dawn, Died: tx._died, Opened: tx._opened}
    for cls, fn in direct.items():
        assert tx._APPLY[cls] is fn, cls.__name__


def test_every_input_the_engine_handles_directly_is_handled_as_the_table_says():
    direct = {GroupPick: engine._on_group_pick, Ballot: engine._on_ballot, Pass: engine._on_pass,
              Timeout: engine._on_timeout}
    for cls, fn in direct.items():
        assert engine._HANDLERS[cls] is fn, cls.__name__
