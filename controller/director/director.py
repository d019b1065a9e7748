"""The director: the table's game master.

It asks the rules what happens next (``engine.pending``), says it (voice prompts), shows it (each seat's own
screen and LED, the judge's remote), opens an input window with a visible deadline, turns button presses and
card taps into rule inputs, writes every input and its events to the journal *before* acting on them, and
goes on. One thread: everything runs on the scheduler's loop (adapters hand their inputs to :meth:`handle`
through the loop), so no locks.

Secrets: a role is only ever drawn on its owner's seat or on the remote; the voice says only public events
(announce.py); at night only the waking seats' screens are lit.

The Director is a small coordinator over named parts, one per part of the game, each a class with its own state
(seams.py says who owns what and what each part offers the others)::

    loop       game_loop.py       inputs to the rules, the journal first, then the beats played in order
    announcer  event_beats.py     the rules' events as beats: said, shown, lit
    windows    windows.py         what the rules wait for, as a window with a countdown
    votes      vote_calls.py      the day vote's calls and hands
    deal       card_deal.py       the deal with cards, and the peek at one's own role
    inputs     input_routing.py   every adapter's input, to the part it is for
    judge      judge_commands.py  the judge's commands (the one door every remote comes in by)
    remote     remote_screens.py  the judge's handheld: menu and screens
    seats      seat_output.py     each seat's screen and LED, and the public board
    follow     (here)             whoever follows the table: the bots, the transcript, a recorder

This module builds them, hands each the table's setup and the registry of the others, and keeps the API the rest
of the code uses (``director.state``, ``director.submit(...)``, ``director.judge(...)``): each is the part's own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from controller.director import announce
from controller.director.card_deal import CardDeal
from controller.director.clock import Handle, Scheduler
from controller.director.event_beats import EventBeats
from controller.director.game_loop import GameLoop
from controller.director.input_routing import InputRouting
from controller.director.journal import Replay, SqliteJournal
from controller.director.judge_commands import JudgeCommands
from controller.director.judge_table import Choice, Offer, Outcome
from controller.director.records import InFlight, Line, RemoteAsk, SeatUI, Window
from controller.director.remote_screens import RemoteScreens
from controller.director.saved import with_words
from controller.director.seams import Parts, Setup
from controller.director.seat_output import LED_NOD, LED_SHAKE, LED_SPEAKER, LED_VOTE, SeatOutput
from controller.director.timing import Timings
from controller.director.vote_calls import VoteCalls
from controller.director.windows import InputWindows
from controller.ports import Board, InputEvent, Table, Voice
from controller.rules.actions import Action, Rejected
from controller.rules.events import Event
from controller.rules.setup import GameConfig
from controller.rules.state import GameState
from controller.rules.variant import VariantError
from controller.screens import strings
from controller.screens import views as v
from controller.screens.numbering import label_for
from controller.voice import variant_lines

__all__ = ["LED_NOD", "LED_SHAKE", "LED_SPEAKER", "LED_VOTE", "Director", "Line", "SeatUI", "Window"]


class Followers:
    """Whoever follows the table, told what happened with the whole Director (the one object handed out)."""

    def __init__(self, director: Director) -> None:
        self.director = director
        #: Told ``(director, window)`` when a window opens (or a group is asked again, C6): the bots plan there.
        self.listeners: list[Callable[[Director, Window], None]] = []
        #: Told ``(director, True)`` when play pauses and ``(director, False)`` when it resumes, before the window
        #: that was open is opened again with the same key: whoever acts at the table (the bots' hands) holds
        #: still meanwhile and, told of the resume first, knows that window is not a new one to plan.
        self.pause_listeners: list[Callable[[Director, bool], None]] = []
        self.on_over: list[Callable[[Director], None]] = []
        #: Told ``(director, events)`` as each input's events are committed (the transcript writes them down).
        self.on_commit: list[Callable[[Director, Sequence[Event]], None]] = []

    def window(self, w: Window) -> None:
        for cb in self.listeners:
            cb(self.director, w)

    def pause(self, paused: bool) -> None:
        for cb in self.pause_listeners:
            cb(self.director, paused)

    def over(self) -> None:
        for cb in self.on_over:
            cb(self.director)

    def commit(self, events: Sequence[Event]) -> None:
        for cb in self.on_commit:
            cb(self.director, events)


class Director:
    """The table's game master (see the module's docstring)."""

    def __init__(
        self,
        table: Table,
        voice: Voice,
        scheduler: Scheduler,
        config: GameConfig,
        *,
        journal: SqliteJournal | None = None,
        timings: Timings | None = None,
        lang: str = "zh",
        seed: int = 0,
        deck: Mapping[str, str] | None = None,
        judge_entry: bool = False,
        board: Board | None = None,
        judge: bool | None = None,
    ) -> None:
        config = with_words(config)  # a game resumed from its journal: its variant's words from the file
        unspoken = announce.unspoken_role(config.variant)
        if unspoken is not None:
            raise VariantError(config.variant.source, f"roles.{unspoken}", "the table's voice has no words for this role",
                               f"give it its judge's words in the variant file ([words.calls] \"{unspoken}.wake\", "
                               "...: docs/architecture.md, \"Add a role\"), or play it in the simulator (tianhei simulate)")
        variant_lines.register(config.variant)  # its own lines, said by the fallback voice until recorded
        for line in variant_lines.lines(config.variant):  # made (once, cached) now, not in the middle of a night
            voice.duration([line])
        strings.learn(config.variant)  # and its own role and action names on the screens
        self.setup = Setup(
            table=table, voice=voice, clock=scheduler, config=config, journal=journal, t=timings or Timings(),
            lang=lang, label=label_for(config.variant), seed=seed, deck=dict(deck) if deck is not None else None,
            judge_entry=judge_entry, has_judge=judge if judge is not None else table.remote is not None,
            board=board, seats=tuple(n for n in table.seats if n <= config.players))
        self.parts = parts = Parts()
        setup = self.setup
        self.follow = parts.follow = Followers(self)
        self.loop = parts.loop = GameLoop(setup, parts)
        self.announcer = parts.announcer = EventBeats(setup, parts)
        self.windows = parts.windows = InputWindows(setup, parts)
        self.votes = parts.votes = VoteCalls(setup, parts)
        self.deal = parts.deal = CardDeal(setup, parts)
        self.inputs = parts.inputs = InputRouting(setup, parts)
        self.judge_commands = parts.judge = JudgeCommands(setup, parts)
        self.remote = parts.remote = RemoteScreens(setup, parts)
        self.seats = parts.seats = SeatOutput(setup, parts)
        # The setup, as the director's own attributes (the code around the director reads them here).
        self.table, self.voice, self.clock, self.config = table, voice, scheduler, config
        self.journal, self.t, self.lang, self.label = journal, setup.t, lang, setup.label
        self.seed, self.deck, self.judge_entry, self.has_judge = seed, setup.deck, judge_entry, setup.has_judge
        # Who follows the table.
        self.listeners = self.follow.listeners
        self.pause_listeners = self.follow.pause_listeners
        self.on_over = self.follow.on_over
        self.on_commit = self.follow.on_commit

    # ---- what the rest of the code calls: each the part's own method --------------------------------------
    def start(self) -> None:
        """Deal a new game (the loop)."""
        self.loop.start()

    def resume(self, replay: Replay) -> None:
        """Carry on a game from its journal after a power cut (the loop)."""
        self.loop.resume(replay)

    def submit(self, action: Action, seat: int | None = None) -> Rejected | None:
        """Give the rules one input (the loop)."""
        return self.loop.submit(action, seat)

    def handle(self, event: InputEvent) -> None:
        """The sink every adapter hands its inputs to, on the loop (the inputs part)."""
        self.inputs.handle(event)

    def wants_input(self, seat: int) -> bool:
        return self.inputs.wants_input(seat)

    # ---- the judge's door (judge_commands.py) --------------------------------------------------------------
    def judge_menu(self) -> tuple[Offer, ...]:
        return self.judge_commands.judge_menu()

    def judge_choices(self, name: str) -> tuple[Choice, ...]:
        return self.judge_commands.judge_choices(name)

    def judge_question(self, name: str, value: Any = None) -> v.L10n:
        return self.judge_commands.judge_question(name, value)

    def judge(self, name: str, value: Any = None) -> Outcome:
        return self.judge_commands.judge(name, value)

    def pause(self, reason: str = "judge") -> None:
        self.judge_commands.pause(reason)

    def resume_play(self) -> None:
        self.judge_commands.resume_play()

    def repeat(self) -> None:
        self.judge_commands.repeat()

    def extend(self, seconds: float) -> None:
        self.judge_commands.extend(seconds)

    def end_timer(self) -> None:
        self.judge_commands.end_timer()

    def undo(self) -> bool:
        return self.judge_commands.undo()

    def eject(self, seat: int, reason: str = "") -> Rejected | None:
        return self.judge_commands.eject(seat, reason)

    def penalty(self, seat: int) -> Rejected | None:
        return self.judge_commands.penalty(seat)

    def surrender(self, seat: int) -> Rejected | None:
        return self.judge_commands.surrender(seat)

    def choose_direction(self, clockwise: bool) -> Rejected | None:
        return self.judge_commands.choose_direction(clockwise)

    def judge_pick(self, target: int | None) -> Rejected | None:
        return self.judge_commands.judge_pick(target)

    def redeal(self) -> None:
        self.judge_commands.redeal()

    def abort(self) -> None:
        self.judge_commands.abort()

    def part(self, name: str) -> object:
        """A part by its name ("seats"), as Klipper's ``printer.lookup_object``."""
        return self.parts.lookup(name)

    def _action(self, step: str) -> str:
        """A night step's action as the screens name it (the judge's console words the window with it)."""
        return self.windows._action(step)

    # ---- the public board: a front end may attach it after the director is made --------------------------
    @property
    def board(self) -> Board | None:
        return self.setup.board

    @board.setter
    def board(self, board: Board | None) -> None:
        self.setup.board = board

    # ---- the game as it stands (the loop's) ----------------------------------------------------------------
    @property
    def state(self) -> GameState | None:
        return self.loop.state

    @property
    def events(self) -> list[Event]:
        return self.loop.events

    @property
    def groups(self) -> list[tuple[Any, int]]:
        return self.loop.groups

    @property
    def inflight(self) -> deque[InFlight]:
        return self.loop.inflight

    @property
    def beats(self) -> deque[tuple[str, Any]]:
        return self.loop.beats

    @property
    def beat_handle(self) -> Handle | None:
        return self.loop.beat_handle

    @property
    def last_prompts(self) -> list[str]:
        return self.loop.last_prompts

    @property
    def transcript(self) -> list[Line]:
        return self.loop.transcript

    @property
    def stage(self) -> str:
        return self.loop.stage

    @property
    def opened(self) -> int:
        return self.loop.opened

    # ---- the other parts' state that the code around reads ------------------------------------------------
    @property
    def window(self) -> Window | None:
        return self.windows.window

    @property
    def ui(self) -> dict[int, SeatUI]:
        return self.seats.ui

    @property
    def paused(self) -> bool:
        return self.judge_commands.paused

    @property
    def paused_left(self) -> float | None:
        return self.judge_commands.paused_left

    @property
    def night_shown(self) -> bool:
        return self.announcer.night_shown

    @property
    def remote_lines(self) -> deque[v.Text]:
        return self.remote.remote_lines

    @property
    def menu(self) -> int | None:
        return self.remote.menu

    @property
    def asking(self) -> RemoteAsk | None:
        return self.remote.asking

    @property
    def remote_drawn(self) -> v.View | None:
        return self.remote.remote_drawn

    @property
    def menu_rows(self) -> tuple[str, ...]:
        return self.remote.menu_rows

    @property
    def dealt_cards(self) -> dict[int, str]:
        return self.deal.dealt_cards
