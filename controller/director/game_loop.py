"""The game loop: the director's core, which every other part of it comes back to.

One input at a time goes to the rules (``engine.step``), is written to the journal *before* it takes effect, and
its events are turned into beats (things said and shown one after another, each waiting for the last to finish)
that this loop plays. Starting a game and carrying one on after a power cut begin here too. Kept apart from the
parts of the game so that the order "journal, then state, then beats" lives in one place.

In flight. With a journal writer thread (the live table), a seat's input (and a window's timeout) does not wait
for the disk on the loop. The rules decide it at once, on top of the inputs still in flight (:meth:`_head`); its
seat shows its own effects at once (the press's notice, a raised hand's LED); its write is handed to the writer;
and only when the writer says it is durable (:meth:`_durable`, in the order taken) does it take effect as before:
``state``, the transcript, ``on_commit``, the voice, the other seats, the board. An input arriving after one in
flight that ends the wait (a vote counted, a night act done) is too late for the window its seat saw, as it would
be had that input already taken effect. A write that fails drops its input and every one decided after it, and
each seat is told (:meth:`_lost`). The judge's commands and a game's set-up first let everything in flight take
effect (:meth:`settle`) and then write as before: they act on the game as the room sees it. Without a writer
thread (tests, ``tianhei run``) nothing is ever in flight and every input is written before :meth:`submit` goes on.
"""

from __future__ import annotations

import logging
import random
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from controller.director.clock import Handle
from controller.director.journal import JournalError, Replay, action_from_json
from controller.director.records import InFlight, Line
from controller.director.seams import Parts, Setup
from controller.director.seat_output import dead_view
from controller.rules import engine
from controller.rules.actions import Action, Pass, Rejected, Timeout
from controller.rules.events import Acted, Event, GameEnded, Opened, Picked, Reasked, Spoke
from controller.rules.state import GameState
from controller.screens import views as v
from controller.voice.prompts import prompt

log = logging.getLogger(__name__)


class GameLoop:
    """The engine's inputs and their beats, from the start of a game (or its resumption) to its end."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.config = setup.config
        self.deck = setup.deck
        self.journal = setup.journal
        self.seed = setup.seed
        self.t = setup.t
        self.table = setup.table
        self.voice = setup.voice
        self.state: GameState | None = None
        self.events: list[Event] = []
        self.groups: list[tuple[Action | None, int]] = []
        #: Inputs taken, oldest first, whose writes are not yet durable (only with a journal writer thread).
        self.inflight: deque[InFlight] = deque()
        self.beats: deque[tuple[str, Any]] = deque()
        self.beat_handle: Handle | None = None
        self._front: list[tuple[str, Any]] = []
        self.last_prompts: list[str] = []
        self.transcript: list[Line] = []
        self.stage = "idle"  # idle | deal | play | over
        #: How many waits the rules have opened (the windows' keys count them).
        self.opened = 0

    def start(self) -> None:
        """Deal a new game: with the deck's cards (every player taps theirs) or digitally (seeded shuffle)."""
        self.table.start(self.parts.inputs.handle)
        if self.deck is None:
            state, events = engine.new_game(self.config, random.Random(self.seed), seed=self.seed)
            self.commit(None, state, events)
            self.stage = "deal"
            for seat in self.parts.seats.ui:
                self.parts.seats.set(seat, v.TapCard(seat, digital=True))
            self.note("table", "digital deal: hold OK to see your card")
            self.beat("say", [prompt("setup.look_at_card")])
            self.beat("wait", self.t.reveal_s)
            self.beat("call", self.begin_play)
        else:
            self.stage = "deal"
            self.parts.deal.ask_for_cards()
            self.beat("say", [self.parts.deal.tap_prompt()])
        self.pump()

    def resume(self, replay: Replay) -> None:
        """Carry on a game from its journal after a power cut: same step, the timer from what was left, every
        screen redrawn."""
        self.parts.inputs.take_presses_from(self.clock.now())
        self.table.start(self.parts.inputs.handle)
        self.state = engine.fold(replay.events)
        self.events = list(replay.events)
        self.groups = [(None if a.get("type") == "setup" else action_from_json(a), n) for a, n in replay.groups]
        self.opened = sum(1 for e in self.events if isinstance(e, Opened))
        self.stage = "over" if self.state.over else "play"
        for dealer, tapped in (replay.cards or {}).items():
            if dealer in self.parts.seats.ui:
                self.parts.seats.ui[dealer].cards = tuple(tapped)
        for seat in self.parts.seats.ui:
            if seat not in self.state.alive:
                self.parts.seats.set(seat, dead_view(self.state, seat))
        self.note("table", f"resumed from the journal at {self.parts.windows.where()}")
        self.beat("say", [prompt("game.restored")])
        if self.state.phase == "night":
            self.parts.announcer.night_resumed()
        if not self.state.over:
            self.parts.windows.recall(replay.call, replay.last_seq)  # W3: a call the power cut is called again
        left = None
        if replay.timer and replay.timer.get("key") == self.parts.windows.key():
            left = float(replay.timer.get("remaining", 0)) or None
        if self.state.over:
            self.beat("call", self.parts.announcer.show_end)
        else:
            self.beat("call", lambda: self.parts.windows.open(left))
        self.pump()

    def begin_play(self) -> None:
        self.stage = "play"
        for seat in self.parts.seats.ui:
            self.parts.seats.set(seat, v.Dark())
        self._tell_room(self.events)
        self.beat("call", self.parts.windows.open)

    def _rng(self) -> random.Random:
        taken = len(self.events) + sum(len(i.events) for i in self.inflight)
        return random.Random(f"{self.seed}:{taken}")

    def _head(self) -> GameState | None:
        """The state the next input is decided from: the last input taken, durable or not."""
        return self.inflight[-1].state if self.inflight else self.state

    def _pipelined(self, action: Action, seat: int | None) -> bool:
        """Whether this input goes in flight: a seat's or the clock's, with a journal writer thread."""
        return (self.journal is not None and self.journal.writer is not None
                and (seat is not None or isinstance(action, Timeout)))

    def settle(self) -> None:
        """Let every input in flight become durable and take effect (waits for the disk: for the judge's commands
        and a set-up, which act on the game as the room sees it)."""
        if self.inflight and self.journal is not None:
            self.journal.flush()

    def commit(self, action: Action | None, state: GameState, events: Sequence[Event],
                cards: Mapping[int, tuple[str, ...]] | None = None) -> None:
        """Durable first (the journal), then in effect. ``cards``: at a deal with cards, who tapped which (kept
        with the set-up, so that after a power cut a seat's own card still shows its role and no other does)."""
        self.settle()
        if self.journal is not None:
            if action is None:
                self.journal.new_game()
            self.journal.record_input(action, events, cards=cards)
        self.state = state
        self.events.extend(events)
        self.groups.append((action, len(events)))
        self.parts.follow.commit(events)

    def submit(self, action: Action, seat: int | None = None) -> Rejected | None:
        """Give the engine one input. On rejection, tell the seat (or the remote) why; nothing changes."""
        assert self.state is not None
        pipelined = self._pipelined(action, seat)
        if not pipelined:
            self.settle()
        elif any(i.ends_wait for i in self.inflight):
            late = Rejected("wait_ended", "the wait it was for has just ended")
            if seat is not None:
                self.parts.inputs.rejected(late, seat, action)
            return late
        head = self._head()
        assert head is not None
        try:
            state, events = engine.step(head, action, self._rng())
        except Rejected as exc:
            self.parts.inputs.rejected(exc, seat, action)
            return exc
        if state == head and all(isinstance(e, Picked) for e in events):
            # The same pick again (OK pressed a thousand times on one target): the game is as it was, so
            # nothing is written; only the pointer the seat moved is drawn back.
            self.parts.windows.redraw_window()
            self.pump()
            return None
        if pipelined:
            self._hand_over(action, seat, state, events)
            return None
        try:
            self.commit(action, state, events)
        except JournalError as exc:  # not durable, so not taken: the game stays where it was, the seat is told
            log.error("%s", exc)
            refused = Rejected("journal", f"not recorded: the journal {exc.problem}")
            self.parts.inputs.rejected(refused, seat, action)
            return refused
        self._took(action, seat, events)
        return None

    def _took(self, action: Action, seat: int | None, events: Sequence[Event]) -> None:
        """An input in effect: noted, then its consequences played."""
        who = f"seat {seat}" if seat else "judge" if not isinstance(action, Timeout) else "clock"
        self.note(who, describe(action), public=isinstance(action, (Pass, Timeout)))
        self._after(events)

    def _hand_over(self, action: Action, seat: int | None, state: GameState, events: Sequence[Event]) -> None:
        """Taken, not yet durable: in flight until the writer says (:meth:`_durable`)."""
        assert self.journal is not None
        ends_wait = any(isinstance(e, (Acted, Opened, Spoke, GameEnded)) for e in events) or state.waiting is None
        item = InFlight(action, seat, state, tuple(events), ends_wait)
        self.inflight.append(item)
        self.journal.record_input(action, events, done=lambda error: self._durable(item, error))

    def _durable(self, item: InFlight, error: JournalError | None) -> None:
        """The writer's word on an input in flight (in the order taken): in effect now, or lost."""
        if not self.inflight or self.inflight[0] is not item:
            return  # dropped already, with an input before it that could not be written
        if error is not None:
            self._lost(error)
            return
        self.inflight.popleft()
        if item.seat in self.parts.seats.ui:  # what the seat already shows is the game's now (its redraw may change it)
            ui = self.parts.seats.ui[item.seat]
            if ui.local_led is not None:
                ui.led, ui.local_led = ui.local_led, None
        self.state = item.state
        self.events.extend(item.events)
        self.groups.append((item.action, len(item.events)))
        self.parts.follow.commit(item.events)
        self._took(item.action, item.seat, item.events)

    def _lost(self, error: JournalError) -> None:
        """A write failed (disk full): not durable, so not taken. That input and every one decided after it are
        dropped, each seat (or the remote) is told why, and the writer may write again."""
        log.error("%s", error)
        dropped = list(self.inflight)
        self.inflight.clear()
        if self.journal is not None and self.journal.writer is not None:
            self.journal.writer.reset()
        refused = Rejected("journal", f"not recorded: the journal {error.problem}")
        for item in dropped:
            if item.seat in self.parts.seats.ui:
                self.parts.seats.ui[item.seat].local_led = None
            self.parts.inputs.rejected(refused, item.seat, item.action)
        self.parts.windows.redraw_window()
        self.pump()

    def _after(self, events: Sequence[Event]) -> None:
        assert self.state is not None
        new_wait = any(isinstance(e, (Opened, Spoke, GameEnded)) for e in events) or self.state.waiting is None
        if any(isinstance(e, Acted) for e in events) or new_wait:
            self.parts.windows.close_window()
        self._tell_room(events)
        if self.state.over:
            self.beat("call", self.parts.announcer.show_end)
        elif self.parts.windows.window is None:
            self.beat("call", self.parts.windows.open)
        else:  # the same wait goes on (a group member picked, a hand was raised)
            self.parts.windows.redraw_window()
            if any(isinstance(e, Reasked) for e in events):
                self.parts.follow.window(self.parts.windows.window)  # C6: the group is asked again
        self.pump()

    def _tell_room(self, events: Sequence[Event]) -> None:
        """The events said and shown (the announcer), each wait they open counted (the windows' keys)."""
        self.opened += sum(1 for e in events if isinstance(e, Opened))
        self.parts.announcer.announce(events)

    def finish(self) -> None:
        """The game is over (shown, or stopped by the judge)."""
        self.stage = "over"

    def drop_beats(self, current: bool = True) -> None:
        """Forget the beats still to play (``current``: also stop the one playing now)."""
        self.beats.clear()
        if current:
            self.hold_beats()

    def hold_beats(self) -> None:
        """Stop the beat playing now (a pause: the beats go on once play resumes)."""
        if self.beat_handle is not None:
            self.beat_handle.cancel()
            self.beat_handle = None

    def take_back(self) -> Action | None:
        """Undo's part: drop the last input's events, note the undo in the journal, refold the game."""
        action, n = self.groups.pop()
        del self.events[len(self.events) - n:]
        if self.journal is not None:
            self.journal.record_undo()
        self.state = engine.fold(self.events)
        self.opened = sum(1 for e in self.events if isinstance(e, Opened))
        return action

    def say_now(self, parts: list[str]) -> float:
        """Say ``parts`` at once, outside the beats (a vote call), as the judge's repeat will say it again."""
        seconds = self.voice.say(parts)
        self.last_prompts = parts
        self.note("voice", " ".join(parts))
        return seconds

    def beat(self, kind: str, arg: Any) -> None:
        self.beats.append((kind, arg))

    def beat_now(self, kind: str, arg: Any) -> None:
        """From inside a beat: run this next, before the beats already queued (in the order given)."""
        self._front.append((kind, arg))

    def pump(self) -> None:
        """Run beats until one takes time (speech, a pause) or none is left."""
        while self.beat_handle is None and not self.parts.judge.paused and self.beats:
            kind, arg = self.beats.popleft()
            self._front = []
            if kind == "say":
                self.last_prompts = list(arg)
                seconds = self.voice.say(arg)
                self.note("voice", " ".join(arg))
                if seconds > 0:
                    self.beat_handle = self.clock.call_at(self.clock.now() + seconds, self._beat_done)
            elif kind == "wait":
                if arg > 0:
                    self.beat_handle = self.clock.call_at(self.clock.now() + arg, self._beat_done)
            else:
                arg()
            if self._front:
                self.beats.extendleft(reversed(self._front))
                self._front = []
        self.parts.seats.refresh()

    def _beat_done(self) -> None:
        self.beat_handle = None
        self.pump()

    def checkpoint(self) -> None:
        if self.journal is None or self.parts.windows.window is None or self.state is None:
            return
        judge = self.parts.judge
        left = judge.paused_left if judge.paused else self.parts.windows.window.deadline - self.clock.now()
        mark = {"key": self.parts.windows.window.key, "remaining": round(max(0.0, left or 0.0), 3)}
        if self.journal.writer is not None:  # behind the inputs in flight, without waiting for the disk
            self.journal.record_timer(mark, done=_log_missed)
            return
        try:
            self.journal.record_timer(mark)
        except JournalError as exc:  # a countdown checkpoint missed: a resume would restart that timer whole
            log.error("%s", exc)

    def note(self, who: str, what: str, public: bool = True) -> None:
        self.transcript.append(Line(self.clock.now(), who, what, public))
        if public:
            log.info("%s: %s", who, what)
        else:
            log.debug("%s: %s", who, what)


def _log_missed(error: JournalError | None) -> None:
    """A countdown checkpoint missed: a resume would restart that timer whole."""
    if error is not None:
        log.error("%s", error)


def describe(action: Action | None) -> str:
    """An input as the transcript and the remote name it."""
    if action is None:
        return "set-up"
    name = type(action).__name__
    fields = ", ".join(f"{k}={getattr(action, k)}" for k in action.__dataclass_fields__)
    return f"{name}({fields})"
