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
effect (:meth:`_settle`) and then write as before: they act on the game as the room sees it. Without a writer
thread (tests, ``tianhei run``) nothing is ever in flight and every input is written before :meth:`submit` goes on.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from typing import Any

from controller.director.base import DirectorBase, InFlight, Line
from controller.director.journal import JournalError, Replay, action_from_json
from controller.director.seat_output import dead_view
from controller.rules import engine
from controller.rules.actions import Action, Pass, Rejected, Timeout
from controller.rules.events import Acted, Event, GameEnded, Opened, Picked, Reasked, Spoke
from controller.rules.state import GameState
from controller.screens import views as v
from controller.voice.prompts import prompt

log = logging.getLogger(__name__)


class GameLoop(DirectorBase):
    """The engine's inputs and their beats, from the start of a game (or its resumption) to its end."""

    def start(self) -> None:
        """Deal a new game: with the deck's cards (every player taps theirs) or digitally (seeded shuffle)."""
        self.table.start(self.handle)
        if self.deck is None:
            state, events = engine.new_game(self.config, random.Random(self.seed), seed=self.seed)
            self._commit(None, state, events)
            self.stage = "deal"
            for seat in self.ui:
                self._set(seat, v.TapCard(seat, digital=True))
            self._note("table", "digital deal: hold OK to see your card")
            self._beat("say", [prompt("setup.look_at_card")])
            self._beat("wait", self.t.reveal_s)
            self._beat("call", self._begin_play)
        else:
            self.stage = "deal"
            self._ask_for_cards()
            self._beat("say", [self._tap_prompt()])
        self._pump()

    def resume(self, replay: Replay) -> None:
        """Carry on a game from its journal after a power cut: same step, the timer from what was left, every
        screen redrawn."""
        self.inputs_from = self.clock.now()
        self.table.start(self.handle)
        self.state = engine.fold(replay.events)
        self.events = list(replay.events)
        self.groups = [(None if a.get("type") == "setup" else action_from_json(a), n) for a, n in replay.groups]
        self.opened = sum(1 for e in self.events if isinstance(e, Opened))
        self.stage = "over" if self.state.over else "play"
        for dealer, tapped in (replay.cards or {}).items():
            if dealer in self.ui:
                self.ui[dealer].cards = tuple(tapped)
        for seat in self.ui:
            if seat not in self.state.alive:
                self._set(seat, dead_view(self.state, seat))
        self._note("table", f"resumed from the journal at {self._where()}")
        self._beat("say", [prompt("game.restored")])
        if self.state.phase == "night":
            self.voice.masking(True)
            self.night_shown = True
        left = None
        if replay.timer and replay.timer.get("key") == self._key():
            left = float(replay.timer.get("remaining", 0)) or None
        if self.state.over:
            self._beat("call", self._show_end)
        else:
            self._beat("call", lambda: self._open(left))
        self._pump()

    def _begin_play(self) -> None:
        self.stage = "play"
        for seat in self.ui:
            self._set(seat, v.Dark())
        self._announce(self.events)
        self._beat("call", self._open)

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

    def _settle(self) -> None:
        """Let every input in flight become durable and take effect (waits for the disk: for the judge's commands
        and a set-up, which act on the game as the room sees it)."""
        if self.inflight and self.journal is not None:
            self.journal.flush()

    def _commit(self, action: Action | None, state: GameState, events: Sequence[Event],
                cards: Mapping[int, tuple[str, ...]] | None = None) -> None:
        """Durable first (the journal), then in effect. ``cards``: at a deal with cards, who tapped which (kept
        with the set-up, so that after a power cut a seat's own card still shows its role and no other does)."""
        self._settle()
        if self.journal is not None:
            if action is None:
                self.journal.new_game()
            self.journal.record_input(action, events, cards=cards)
        self.state = state
        self.events.extend(events)
        self.groups.append((action, len(events)))
        self._tell_commit(events)

    def submit(self, action: Action, seat: int | None = None) -> Rejected | None:
        """Give the engine one input. On rejection, tell the seat (or the remote) why; nothing changes."""
        assert self.state is not None
        pipelined = self._pipelined(action, seat)
        if not pipelined:
            self._settle()
        elif any(i.ends_wait for i in self.inflight):
            late = Rejected("wait_ended", "the wait it was for has just ended")
            if seat is not None:
                self._rejected(late, seat, action)
            return late
        head = self._head()
        assert head is not None
        try:
            state, events = engine.step(head, action, self._rng())
        except Rejected as exc:
            self._rejected(exc, seat, action)
            return exc
        if state == head and all(isinstance(e, Picked) for e in events):
            # The same pick again (OK pressed a thousand times on one target): the game is as it was, so
            # nothing is written; only the pointer the seat moved is drawn back.
            self._redraw_window()
            self._pump()
            return None
        if pipelined:
            self._hand_over(action, seat, state, events)
            return None
        try:
            self._commit(action, state, events)
        except JournalError as exc:  # not durable, so not taken: the game stays where it was, the seat is told
            log.error("%s", exc)
            refused = Rejected("journal", f"not recorded: the journal {exc.problem}")
            self._rejected(refused, seat, action)
            return refused
        self._took(action, seat, events)
        return None

    def _took(self, action: Action, seat: int | None, events: Sequence[Event]) -> None:
        """An input in effect: noted, then its consequences played."""
        who = f"seat {seat}" if seat else "judge" if not isinstance(action, Timeout) else "clock"
        self._note(who, describe(action), public=isinstance(action, (Pass, Timeout)))
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
        if item.seat in self.ui:  # what the seat already shows is the game's now (its redraw may change it)
            ui = self.ui[item.seat]
            if ui.local_led is not None:
                ui.led, ui.local_led = ui.local_led, None
        self.state = item.state
        self.events.extend(item.events)
        self.groups.append((item.action, len(item.events)))
        self._tell_commit(item.events)
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
            if item.seat in self.ui:
                self.ui[item.seat].local_led = None
            self._rejected(refused, item.seat, item.action)
        self._redraw_window()
        self._pump()

    def _after(self, events: Sequence[Event]) -> None:
        assert self.state is not None
        new_wait = any(isinstance(e, (Opened, Spoke, GameEnded)) for e in events) or self.state.waiting is None
        if any(isinstance(e, Acted) for e in events) or new_wait:
            self._close_window()
        self._announce(events)
        if self.state.over:
            self._beat("call", self._show_end)
        elif self.window is None:
            self._beat("call", self._open)
        else:  # the same wait goes on (a group member picked, a hand was raised)
            self._redraw_window()
            if any(isinstance(e, Reasked) for e in events):
                self._tell_window(self.window)  # C6: the group is asked again
        self._pump()

    def _beat(self, kind: str, arg: Any) -> None:
        self.beats.append((kind, arg))

    def _beat_now(self, kind: str, arg: Any) -> None:
        """From inside a beat: run this next, before the beats already queued (in the order given)."""
        self._front.append((kind, arg))

    def _pump(self) -> None:
        """Run beats until one takes time (speech, a pause) or none is left."""
        while self.beat_handle is None and not self.paused and self.beats:
            kind, arg = self.beats.popleft()
            self._front = []
            if kind == "say":
                self.last_prompts = list(arg)
                seconds = self.voice.say(arg)
                self._note("voice", " ".join(arg))
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
        self._refresh()

    def _beat_done(self) -> None:
        self.beat_handle = None
        self._pump()

    def _checkpoint(self) -> None:
        if self.journal is None or self.window is None or self.state is None:
            return
        left = self.paused_left if self.paused else self.window.deadline - self.clock.now()
        mark = {"key": self.window.key, "remaining": round(max(0.0, left or 0.0), 3)}
        if self.journal.writer is not None:  # behind the inputs in flight, without waiting for the disk
            self.journal.record_timer(mark, done=_log_missed)
            return
        try:
            self.journal.record_timer(mark)
        except JournalError as exc:  # a countdown checkpoint missed: a resume would restart that timer whole
            log.error("%s", exc)

    def _note(self, who: str, what: str, public: bool = True) -> None:
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
