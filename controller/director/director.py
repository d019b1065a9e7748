"""The director: the table's game master.

It asks the rules what happens next (``engine.pending``), says it (voice prompts), shows it (each seat's own
screen and LED, the judge's remote), opens an input window with a visible deadline, turns button presses and
card taps into rule inputs, writes every input and its events to the journal *before* acting on them, and
goes on. One thread: everything runs on the scheduler's loop (adapters hand their inputs to :meth:`handle`
through the loop), so no locks.

Secrets: a role is only ever drawn on its owner's seat or on the remote; the voice says only public events
(announce.py); at night only the waking seats' screens are lit.

The Director is made of one part per part of the game, each a mixin in a module of its own over the state they
share (base.py); this module only puts them together and tells whoever follows the table what happened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from controller.director.base import Line, SeatUI, Window
from controller.director.card_deal import CardDeal
from controller.director.event_beats import EventBeats
from controller.director.game_loop import GameLoop
from controller.director.input_routing import InputRouting
from controller.director.judge_commands import JudgeCommands
from controller.director.remote_screens import RemoteScreens
from controller.director.seat_output import LED_NOD, LED_SHAKE, LED_SPEAKER, LED_VOTE, SeatOutput
from controller.director.vote_calls import VoteCalls
from controller.director.windows import InputWindows
from controller.rules.events import Event

__all__ = ["LED_NOD", "LED_SHAKE", "LED_SPEAKER", "LED_VOTE", "Director", "Line", "SeatUI", "Window"]


class Director(
    GameLoop,
    EventBeats,
    InputWindows,
    VoteCalls,
    CardDeal,
    InputRouting,
    JudgeCommands,
    RemoteScreens,
    SeatOutput,
):
    """The table's game master (see the module's docstring); built as ``Director(table, voice, scheduler,
    config, ...)`` (base.py holds the arguments and the state)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Told ``(director, window)`` when a window opens (or a group is asked again, C6): the bots plan there.
        self.listeners: list[Callable[[Director, Window], None]] = []
        #: Told ``(director, True)`` when play pauses and ``(director, False)`` when it resumes, before the window
        #: that was open is opened again with the same key: whoever acts at the table (the bots' hands) holds
        #: still meanwhile and, told of the resume first, knows that window is not a new one to plan.
        self.pause_listeners: list[Callable[[Director, bool], None]] = []
        self.on_over: list[Callable[[Director], None]] = []
        #: Told ``(director, events)`` as each input's events are committed (the transcript writes them down).
        self.on_commit: list[Callable[[Director, Sequence[Event]], None]] = []

    def _tell_window(self, w: Window) -> None:
        for cb in self.listeners:
            cb(self, w)

    def _tell_pause(self, paused: bool) -> None:
        for cb in self.pause_listeners:
            cb(self, paused)

    def _tell_over(self) -> None:
        for cb in self.on_over:
            cb(self)

    def _tell_commit(self, events: Sequence[Event]) -> None:
        for cb in self.on_commit:
            cb(self, events)
