"""The director: the table's game master.

It asks the rules what happens next (``engine.pending``), says it (voice prompts), shows it (each seat's own
screen and LED, the judge's remote), opens an input window with a visible deadline, turns button presses and
card taps into rule inputs, writes every input and its events to the journal *before* acting on them, and
goes on. One thread: everything runs on the scheduler's loop (adapters hand their inputs to :meth:`handle`
through the loop), so no locks.

Secrets: a role is only ever drawn on its owner's seat or on the remote; the voice says only public events
(announce.py); at night only the waking seats' screens are lit.
"""

from __future__ import annotations

import logging
import math
import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image

from controller.board.public import public_facts
from controller.director import announce
from controller.director.clock import Handle, Scheduler
from controller.director.journal import Replay, SqliteJournal, action_from_json
from controller.director.places import seat_of
from controller.director.timing import Timings
from controller.ports import (
    LED_OFF,
    RGB,
    Board,
    Button,
    ButtonEvent,
    CardEvent,
    InputEvent,
    LinkEvent,
    RemoteKey,
    RemoteKeyEvent,
    Table,
    Voice,
)
from controller.rules import cards, engine
from controller.rules.actions import (
    Action,
    ChooseDirection,
    Eject,
    GroupPick,
    Pass,
    Penalty,
    Pick,
    Rejected,
    Surrender,
    Timeout,
    Vote,
)
from controller.rules.events import (
    Acted,
    CardLost,
    Dawn,
    Died,
    Event,
    GameEnded,
    NightFell,
    Opened,
    Reasked,
    Spoke,
    VoteClosed,
)
from controller.rules.setup import GameConfig
from controller.rules.state import GameState
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v
from controller.screens.numbering import Label, label_for, plain
from controller.screens.render import render
from controller.screens.story import story
from controller.voice.prompts import last_words, phrase, prompt, seat_number, speech_turn, vote_call

log = logging.getLogger(__name__)

LED_SPEAKER: RGB = (255, 255, 255)
LED_NOD: RGB = (0, 255, 0)  # V2.2: the judge nods — a killer
LED_SHAKE: RGB = (255, 0, 0)  # a shake — not a killer
LED_VOTE: RGB = (0, 0, 255)


@lru_cache(maxsize=256)
def _draw(view: v.View, lang: str, label: Label = plain) -> Image.Image:
    """Render once per distinct view: a countdown tick shown on eleven listeners' screens is drawn once."""
    return render(view, lang, label=label)


@dataclass
class SeatUI:
    view: v.View = field(default_factory=v.Dark)
    drawn: v.View | None = None
    led: RGB = LED_OFF
    cursor: int | None = None
    notice: v.View | None = None
    notice_handle: Handle | None = None
    ok_down: bool = False
    peek_handle: Handle | None = None
    peeking: bool = False
    #: The cards this seat tapped at the deal, in order (two in the dual-card versions).
    cards: tuple[str, ...] = ()
    reveal_handle: Handle | None = None


@dataclass
class Window:
    """An open input window: the engine waits, the table shows a countdown. ``key`` names it in checkpoints."""

    kind: str
    step: str
    seats: tuple[int, ...]
    key: str
    total: float
    deadline: float
    handles: list[Handle] = field(default_factory=list)
    #: vote calls: (candidate, call end time) of the call in progress, and the calls still to make
    call: tuple[int, float] | None = None
    calls: list[int] = field(default_factory=list)
    previous_call: tuple[int, float] | None = None
    window_open: bool = False


@dataclass
class Line:
    """One line of the transcript: public lines may be printed while the game runs; private ones only after."""

    at: float
    who: str
    what: str
    public: bool = True


class Director:
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
    ) -> None:
        self.table = table
        self.voice = voice
        self.clock = scheduler
        self.config = config
        self.journal = journal
        self.t = timings or Timings()
        self.lang = lang
        #: How screens write a seat number (D2: a card place as seat and card, controller/screens/numbering.py).
        self.label = label_for(config.variant)
        self.seed = seed
        self.deck = dict(deck) if deck is not None else None
        self.judge_entry = judge_entry
        self.state: GameState | None = None
        self.events: list[Event] = []
        self.groups: list[tuple[Action | None, int]] = []
        # Seats past the game's player count (a 16-seat table playing 12) stay out of the game.
        self.ui: dict[int, SeatUI] = {n: SeatUI() for n in table.seats if n <= config.players}
        self.window: Window | None = None
        self.beats: deque[tuple[str, Any]] = deque()
        self.beat_handle: Handle | None = None
        self.paused = False
        self.paused_for: set[int] = set()
        self.paused_left: float | None = None
        self.last_prompts: list[str] = []
        self.transcript: list[Line] = []
        self.listeners: list[Callable[[Director, Window], None]] = []
        #: Told ``(director, True)`` when play pauses and ``(director, False)`` when it resumes, before the window
        #: that was open is opened again with the same key: whoever acts at the table (the bots' hands) holds
        #: still meanwhile and, told of the resume first, knows that window is not a new one to plan.
        self.pause_listeners: list[Callable[[Director, bool], None]] = []
        self.on_over: list[Callable[[Director], None]] = []
        self.stage = "idle"  # idle | deal | play | over
        self.opened = 0
        self.remote_lines: deque[str] = deque(maxlen=40)
        self.menu: int | None = None
        self.pending_confirm: str | None = None
        #: Who taps cards at the deal, and how many each (C1; D1-D3 two): every seat, one card; D1/D3 every
        #: seat, two; D2 the card 1 place of each physical seat (places.py routes a seat's taps there while
        #: nothing is dealt), whose two cards are its two places'.
        self.hand = 1 if config.variant.hand == 1 else 2
        #: The engine refused the last deal (a void hand): the redeal need not say someone saw a card.
        self.deal_void = False
        self.dealers = tuple(sorted(n for n in self.ui if config.variant.live != "both" or n % 2 == 1))
        self.dealer_of = {n: n - (1 - n % 2) if config.variant.live == "both" else n for n in self.ui}
        self._front: list[tuple[str, Any]] = []
        self.led_sent: dict[int, RGB] = {}
        self.remote_drawn: v.View | None = None
        #: The public big screen (optional): fed only public facts (controller/board/public.py).
        self.board = board
        self.board_shown: dict[str, object] | None = None
        self.story_cursor = 0
        #: The step of the last vote window (a V4.8 turn vote's one-hand close is not announced).
        self.last_vote_step = ""
        #: Check answers a seat may see but has not yet (V7.1: shown when it next wakes).
        self.unseen: dict[int, list[tuple[int, v.Answer]]] = {}

    # ==== lifecycle ==========================================================================================
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
        self.table.start(self.handle)
        self.state = engine.fold(replay.events)
        self.events = list(replay.events)
        self.groups = [(None if a.get("type") == "setup" else action_from_json(a), n) for a, n in replay.groups]
        self.opened = sum(1 for e in self.events if isinstance(e, Opened))
        self.stage = "over" if self.state.over else "play"
        for seat in self.ui:
            if seat not in self.state.alive:
                self._set(seat, v.Dead(seat))
        self._note("table", f"resumed from the journal at {self._where()}")
        self._beat("say", [prompt("game.restored")])
        if self.state.phase == "night":
            self.voice.masking(True)
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

    # ==== the engine ==========================================================================================
    def _rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{len(self.events)}")

    def _commit(self, action: Action | None, state: GameState, events: Sequence[Event]) -> None:
        """Durable first (the journal), then in effect."""
        if self.journal is not None:
            if action is None:
                self.journal.new_game()
            self.journal.record_input(action, events)
        self.state = state
        self.events.extend(events)
        self.groups.append((action, len(events)))

    def submit(self, action: Action, seat: int | None = None) -> Rejected | None:
        """Give the engine one input. On rejection, tell the seat (or the remote) why; nothing changes."""
        assert self.state is not None
        try:
            state, events = engine.step(self.state, action, self._rng())
        except Rejected as exc:
            self._rejected(exc, seat, action)
            return exc
        self._commit(action, state, events)
        who = f"seat {seat}" if seat else "judge" if not isinstance(action, Timeout) else "clock"
        self._note(who, _describe(action), public=isinstance(action, (Pass, Timeout)))
        self._after(events)
        return None

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
                for cb in self.listeners:  # C6: the group is asked again
                    cb(self, self.window)
        self._pump()

    # ==== announcements: events -> beats ====================================================================
    def _announce(self, events: Sequence[Event]) -> None:
        assert self.state is not None
        # D2: each card of an ``each`` step settles by itself, all at once: the step's seats go dark together
        # and the step sleeps once, with its last act.
        stepped: dict[str, tuple[int, ...]] = {}
        last_act: dict[str, int] = {}
        for i, e in enumerate(events):
            if isinstance(e, Acted):
                stepped[e.step] = stepped.get(e.step, ()) + e.actors
                last_act[e.step] = i
        for i, e in enumerate(events):
            if isinstance(e, NightFell):
                self._beat("call", self._nightfall)
            elif isinstance(e, Acted):
                group = stepped[e.step] if last_act[e.step] == i else None
                self._beat("call", lambda e=e, group=group: self._settled(e, group))
            elif isinstance(e, Dawn):
                self._beat("call", self._dawn)
            elif isinstance(e, Died):
                self._beat("call", lambda e=e: self._set(e.seat, v.Dead(e.seat), LED_OFF))
            elif isinstance(e, CardLost):  # D1: the second card turned up; only its owner sees which
                self._beat("call", lambda e=e: self._arm_peek(e.seat, now=True))
            elif isinstance(e, Opened):
                self.opened += 1
            if isinstance(e, VoteClosed) and self.last_vote_step == TURN_VOTE and not e.tally[1:] and not e.out:
                continue  # V4.8: one player's vote in the round; the round's tally is announced at its end
            if isinstance(e, VoteClosed):
                self._beat("call", lambda e=e: self._tally(e))
            parts = announce.for_event(e)
            if parts:
                self._beat("say", parts)
            if isinstance(e, VoteClosed):
                self._beat("wait", self.t.tally_s)

    def _nightfall(self) -> None:
        self.voice.masking(True)
        for ui in self.ui.values():  # eyes closed: a role still shown from the day goes dark with the rest
            ui.peeking = False
        for seat in self.ui:
            if self.state is not None and seat in self.state.alive:
                self._set(seat, v.Dark(), LED_OFF)

    def _dawn(self) -> None:
        assert self.state is not None
        self.voice.masking(False)
        for seat in self.ui:
            if seat in self.state.alive:
                self._set(seat, v.Message(v.L10n(f"第{self.state.day}天", f"Day {self.state.day}")), LED_OFF)
            else:
                self._set(seat, v.Dead(seat), LED_OFF)

    def _settled(self, e: Acted, group: tuple[int, ...] | None) -> None:
        """A night act settled: the police see their answer; the step's seats go dark and the step sleeps
        (``group``: every seat of the step; None for an earlier card of a D2 step, which waits for the last)."""
        assert self.state is not None
        if e.ability in ("recognise", "defence"):
            if e.ability == "recognise":
                # The step's id names the seed's cards ("recognise.big_joker", V5.2); the voice names roles.
                st = self.config.variant.night_steps.get(e.step)
                role = "+".join(st.call or st.roles) if st else e.step.split(".", 1)[1]
                self._beat_now("say", announce.sleep(role))
            for seat in e.actors:
                if self.state.phase == "night":
                    self._set(seat, v.Dark(), LED_OFF)
            return
        if e.result in ("nod", "shake", "none") and e.target is not None:
            # V2.2 nod or shake; V4.3 no signal at all on the butterfly's hugged player.
            answer = {"nod": v.Answer.NOD, "shake": v.Answer.SHAKE}.get(e.result, v.Answer.NONE)
            led = {"nod": LED_NOD, "shake": LED_SHAKE}.get(e.result, LED_OFF)
            for seat in e.actors:
                self._set(seat, v.PoliceAnswer(e.target, answer), led)
            self._beat_now("wait", self.t.answer_s)
            # V7.1: roles that "see" the check (angel, devil) are asleep now: they see it when they next wake.
            seers = self.config.variant.roles
            for seat in self.state.alive:
                if seat not in e.actors and e.ability in getattr(seers[self.state.role_of(seat)], "sees", ()):
                    self.unseen.setdefault(seat, []).append((e.target, answer))
        if group is None:
            return
        role = "+".join(sorted({self.state.role_of(a) for a in e.actors}))
        step = self.config.variant.night_steps.get(e.step)
        roles = "+".join(step.call or step.roles) if step else role  # as the step was woken (announce.wake)

        def close() -> None:
            for seat in group:
                self._set(seat, v.Dark(), LED_OFF)

        self._beat_now("call", close)
        self._beat_now("say", announce.sleep(roles))

    def _tally(self, e: Any) -> None:
        for seat in self.ui:
            if self.state is not None and seat in self.state.alive:
                self._set(seat, v.Tally(e.tally, e.out, e.tied))

    def _show_end(self) -> None:
        assert self.state is not None
        self.stage = "over"
        self.voice.masking(False)
        winner = self.state.winner or "draw"
        for seat in self.ui:
            side = self.state.side_of(seat)
            won = None if winner == "draw" else side == winner
            self._set(seat, v.GameOver(winner, self.state.role_of(seat), won), LED_OFF)
        self.story_cursor = 0
        self._remote_status()  # the whole story, UP/DOWN scroll it
        self._note("table", f"game over: {winner} ({self.state.end_reason})")
        for cb in self.on_over:
            cb(self)

    # ==== beats: things said and shown one after another ======================================================
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

    # ==== windows: the engine waits, the table counts down ====================================================
    def _key(self) -> str:
        assert self.state is not None
        w = self.state.waiting
        head = self.state.queue[0] if w is not None and self.state.queue else 0
        return f"{self.opened}:{w.step if w else '-'}:{head}"

    def _where(self) -> str:
        assert self.state is not None
        w = self.state.waiting
        return f"{self.state.phase} {self.state.night}/{self.state.day}, {w.step if w else 'over'}"

    def _open(self, left: float | None = None) -> None:
        """Open the window for what the engine waits for now."""
        assert self.state is not None
        if self.window is not None or self.state.over:
            return
        p = engine.pending(self.state)
        if p is None:
            return
        kind = p.kind
        if kind in ("speeches", "last_words"):
            speaker = p.seats[0]
            total = (self.t.last_words_s if kind == "last_words"
                     else self.t.defence_s if p.step.startswith(("defence", "tie.")) else self.t.speech_s)
            say = last_words(speaker) if kind == "last_words" else speech_turn(speaker)
            self._say_then(say, lambda: self._start(p, total, left))
        elif kind == "night":
            step = self.config.variant.night_steps[p.step]
            self._beat("say", announce.wake(p.role, p.ability, step.optional))
            learnt = {seat: self.unseen.pop(seat) for seat in p.seats if seat in self.unseen}
            for seat, answers in learnt.items():  # V7.1: what they may see of the police's checks
                for target, answer in answers:
                    self._beat("call", lambda s=seat, t=target, a=answer: self._set(s, v.PoliceAnswer(t, a)))
                    self._beat("wait", self.t.answer_s)
            self._beat("call", lambda: self._start(p, self.t.night_action_s, left))
        elif kind == "recognition":
            self._say_then(announce.wake(p.role, "recognise", False),
                           lambda: self._start(p, self.t.recognition_s, left))
        elif kind == "vote" and p.step == TURN_VOTE:  # V4.8: the speaker votes at once, pointing like at night
            self._start(p, self.t.night_action_s, left)
        elif kind == "vote":
            self._say_then([prompt("vote.begins")], lambda: self._start_vote(p))
        elif kind == "defence_claim":
            self._say_then([prompt("speech.suspects_defend")], lambda: self._start(p, self.t.defence_claim_s, left))
        elif kind == "direction":
            self._start(p, self.t.direction_s, left)
        elif kind == cards.FIRST_IDENTITY:  # D1: each player puts one of the two cards face down as the first
            self._start(p, self.t.first_identity_s, left)

    def _say_then(self, parts: list[str], then: Callable[[], None]) -> None:
        self._beat("say", parts)
        self._beat("call", then)

    def _start(self, p: engine.Pending, total: float, left: float | None = None) -> None:
        assert self.state is not None
        if self.window is not None:
            return
        now = self.clock.now()
        remaining = left if left is not None else total
        w = Window(p.kind, p.step, p.seats, self._key(), total, now + remaining)
        self.window = w
        if p.kind == "vote":
            self.last_vote_step = p.step
        w.handles.append(self.clock.call_at(w.deadline, self._deadline))
        for warn in self.t.warnings_s if p.kind in ("speeches", "last_words") else ():
            if remaining > warn:
                w.handles.append(self.clock.call_at(w.deadline - warn, self._warn))
        self._schedule_ticks(w)
        self._checkpoint()
        if p.kind in ("night", cards.FIRST_IDENTITY) or p.step == TURN_VOTE:
            for seat in p.seats:
                self.ui[seat].cursor = next((c for c in p.choices if c is not None), None)
        self._redraw_window()
        self._remote_status()
        for cb in self.listeners:
            cb(self, w)

    def _schedule_ticks(self, w: Window) -> None:
        """A redraw at every whole second of the countdown (no busy polling: an idle table sleeps between)."""
        now = self.clock.now()
        nxt = w.deadline - int(w.deadline - now)
        if nxt <= now:
            nxt += 1.0
        if nxt < w.deadline:
            w.handles.append(self.clock.call_at(nxt, lambda: self._tick(w)))

    def _tick(self, w: Window) -> None:
        if self.window is not w or self.paused:
            return
        self._redraw_window()
        if int(w.deadline - self.clock.now()) % int(self.t.checkpoint_s or 10) == 0:
            self._checkpoint()
        self._schedule_ticks(w)
        self._refresh()

    def _warn(self) -> None:
        self.voice.beep("warning")
        self._redraw_window()
        self._refresh()

    def _deadline(self) -> None:
        w = self.window
        if w is None or self.paused:
            return
        self.voice.beep("final")
        self.submit(Timeout())

    def _close_window(self) -> None:
        w = self.window
        if w is None:
            return
        for h in w.handles:
            h.cancel()
        self.window = None
        if w.step == TURN_VOTE and self.state is not None:  # V4.8: the vote is in; the pointer goes away
            for seat in w.seats:
                voted = v.Message(v.L10n("已投票", "Voted"), "")
                self._set(seat, voted if seat in self.state.alive else v.Dead(seat), LED_OFF)
        if w.kind == "last_words" and self.state is not None:
            # The last words are over: the speaker's screen and LED go dark, whatever comes next (night, a vote).
            for seat in self.ui:
                if seat not in self.state.alive:
                    self._set(seat, v.Dead(seat), LED_OFF)

    def _countdown(self) -> v.Countdown:
        """The countdown as the screens show it: whole seconds (rounded up, as :class:`v.Countdown` shows them).
        Between two ticks every press then finds the same countdown, so a view that did not change compares
        equal and is not redrawn, and a redrawn one is mostly cached (the press-to-screen latency)."""
        w = self.window
        assert w is not None
        if w.kind == "vote" and w.call is not None:
            _, end = w.call
            total = float(self.config.opt("vote.window_s"))
            return v.Countdown(_whole(end + total - self.clock.now()), total)
        left = self.paused_left if self.paused and self.paused_left is not None else w.deadline - self.clock.now()
        return v.Countdown(_whole(left), w.total)

    def _redraw_window(self) -> None:
        """Every seat's view for the open window."""
        w, s = self.window, self.state
        if w is None or s is None:
            return
        cd = self._countdown()
        if w.kind == "night":
            picks = s.picks
            for seat in w.seats:
                ui = self.ui[seat]
                partners = tuple((m, picks.get(m)) for m in w.seats if m != seat and m in picks)
                self._set(seat, v.NightChoice(self._action(w.step), ui.cursor, cd, partners, seat in picks))
        elif w.kind == "recognition":
            for seat in w.seats:
                self._set(seat, v.RoleReveal(seat, s.role_of(seat), s.partners(seat), hint=False))
        elif w.kind in ("speeches", "last_words"):
            speaker = s.queue[0]
            warning = cd.remaining <= min(self.t.warnings_s, default=0)
            for seat in self.ui:
                if seat == speaker:
                    self._set(seat, v.YourSpeech(cd, warning, w.kind == "last_words"), LED_SPEAKER)
                elif seat in s.alive:
                    self._set(seat, v.Speaking(speaker, cd, w.kind == "last_words"), LED_OFF)
                else:  # a dead seat whose last words are over goes dark again (no lit LED, no stale timer)
                    self._set(seat, v.Dead(seat), LED_OFF)
        elif w.kind == "vote" and w.step == TURN_VOTE:
            voter = w.seats[0]
            self._set(voter, v.NightChoice("vote", self.ui[voter].cursor, cd), LED_VOTE)
            for seat in s.alive:
                if seat != voter:
                    who = self.label(voter)
                    self._set(seat, v.Message(v.L10n("投票", "Vote"), v.L10n(f"{who}号投票", f"Seat {who} votes")),
                              LED_OFF)
        elif w.kind == "vote":
            for seat in s.alive:
                if w.call is not None and w.window_open:
                    self._set(seat, v.VoteCall(w.call[0], cd, seat in s.picks), LED_VOTE if seat in s.picks else LED_OFF)
                elif w.call is not None:
                    who = self.label(w.call[0])
                    self._set(seat, v.Message(v.L10n("投票", "Vote"), v.L10n(f"{who}号", f"Seat {who}")))
        elif w.kind == cards.FIRST_IDENTITY:
            for seat in w.seats:
                chosen = s.picks.get(seat) or self.ui[seat].cursor or 1
                self._set(seat, v.HandChoice(s.cards[seat - 1], int(chosen), cd, seat in s.picks))
        elif w.kind == "defence_claim":
            for seat in s.alive:
                claimed = seat in s.defence
                body = v.L10n("已申请辩护" if claimed else "按 OK 申请辩护", "defence claimed" if claimed else "OK = defend")
                self._set(seat, v.Message(v.L10n("辩护", "Defence"), body))
        self._remote_status()

    @staticmethod
    def _action(step: str) -> str:
        return {"kill": "kill", "check": "check", "inform": "check", "save": "save", "secret": "secret_kill"}.get(
            step, step)

    # ---- the vote: one call per candidate, hands within the window after the call (V2.5, V2.6) --------------
    def _start_vote(self, p: engine.Pending) -> None:
        now = self.clock.now()
        w = Window("vote", p.step, p.seats, self._key(), 0.0, now)
        self.last_vote_step = p.step
        w.calls = [c for c in p.choices if c is not None]
        # A vote opened again (after a power cut or a pause) goes on from the call that took the last hand: the
        # calls before it were made in full (a hand after its window is a follow-vote), so they are not made
        # again; the last one is, since its window may have been cut short.
        last = next((t for t in reversed(list(self.state.picks.values())) if t is not None), None) \
            if self.state is not None else None
        if last in w.calls:
            w.calls = w.calls[w.calls.index(last):]
        self.window = w
        self._checkpoint()
        for cb in self.listeners:
            cb(self, w)
        self._next_call(w)

    def _next_call(self, w: Window) -> None:
        if self.window is not w:
            return
        if w.call is not None:
            w.previous_call = w.call
        w.window_open = False
        if not w.calls:
            self.submit(Timeout())  # every candidate has been called: count the hands (V2.5)
            return
        candidate = w.calls.pop(0)
        parts = vote_call(candidate)
        seconds = self.voice.say(parts)
        self.last_prompts = parts
        self._note("voice", " ".join(parts))
        end = self.clock.now() + seconds
        w.call = (candidate, end)
        self._redraw_window()
        self._refresh()
        window = float(self.config.opt("vote.window_s"))
        w.handles.append(self.clock.call_at(end, lambda: self._call_open(w)))
        # V2.6's window is inclusive (the engine counts a hand ``window`` seconds after the call): the vote view
        # stays up through that very instant and leaves at the first moment a hand would be a follow-vote.
        w.handles.append(self.clock.call_at(math.nextafter(end + window, math.inf), lambda: self._call_closed(w)))
        w.handles.append(self.clock.call_at(end + window + self.t.vote_gap_s, lambda: self._next_call(w)))

    def _call_open(self, w: Window) -> None:
        if self.window is w:
            w.window_open = True
            self._redraw_window()
            self._refresh()
            for cb in self.listeners:
                cb(self, w)

    def _call_closed(self, w: Window) -> None:
        if self.window is w:
            w.window_open = False
            self._redraw_window()
            self._refresh()

    # ==== inputs ================================================================================================
    def handle(self, event: InputEvent) -> None:
        """The sink: every adapter's inputs arrive here, on the loop."""
        try:
            if isinstance(event, ButtonEvent):
                self._button(event)
            elif isinstance(event, CardEvent):
                if event.present:
                    self._card(event.seat, event.uid)
            elif isinstance(event, RemoteKeyEvent):
                if event.pressed:
                    self._remote_key(event.key)
            elif isinstance(event, LinkEvent):
                self._link(event)
        finally:
            self._refresh()

    def wants_input(self, seat: int) -> bool:
        """Whether the open window waits for ``seat`` now: a night choice or a first identity not yet made, a
        hand not yet raised while a vote call is open, the speaker's pass (D2's places: which card a seat acts
        for, controller/director/places.py)."""
        w, s = self.window, self.state
        if w is None or s is None or self.paused:
            return False
        p = engine.pending(s)
        if p is None or seat not in p.seats:
            return False
        if w.kind == "vote" and w.step != TURN_VOTE:
            return w.call is not None
        return seat not in s.picks

    def _button(self, e: ButtonEvent) -> None:
        seat = e.seat
        ui = self.ui.get(seat)
        if ui is None:
            log.warning("button from unknown seat %s ignored", seat)
            return
        if e.button is Button.OK and not e.pressed:
            ui.ok_down = False
            if ui.peek_handle is not None:
                ui.peek_handle.cancel()
                ui.peek_handle = None
            if ui.peeking:
                ui.peeking = False
            return
        if not e.pressed:
            return
        if e.button is Button.OK:
            ui.ok_down = True
        s = self.state
        if self.paused:
            self._notice(seat, v.Paused())
            return
        if self.stage == "deal" or s is None or self.stage == "over":
            if e.button is Button.OK and s is not None:
                self._arm_peek(seat)
            return
        w = self.window
        last_words = w is not None and w.kind == "last_words" and s.queue[:1] == (seat,)
        if seat not in s.alive and not last_words:
            self._notice(seat, v.Message(v.L10n("你已出局", "You are out"), v.L10n("请保持安静", "Please stay silent")))
            return
        if w is None:
            if e.button is Button.OK:
                self._arm_peek(seat)
            return
        if (w.kind in ("night", cards.FIRST_IDENTITY) or w.step == TURN_VOTE) and seat in w.seats:
            self._night_button(seat, e.button, w)
        elif (w.kind in ("speeches", "last_words") and s.queue and s.queue[0] == seat and e.button is Button.OK) or (w.kind == "recognition" and seat in w.seats and e.button is Button.OK):
            self.submit(Pass(seat), seat)
        elif w.kind == "defence_claim" and e.button is Button.OK:
            self.submit(Pick(seat, seat), seat)
        elif w.kind == "vote" and e.button is Button.OK:
            self._hand(seat, w)
        elif e.button is Button.OK:
            self._arm_peek(seat)
        elif s.phase == "day":
            self._notice(seat, v.Message(v.L10n("请稍候", "Not now"), v.L10n("现在不是你的回合", "It is not your turn")))

    def _night_button(self, seat: int, button: Button, w: Window) -> None:
        assert self.state is not None
        p = engine.pending(self.state)
        if p is None:
            return
        ui = self.ui[seat]
        choices = list(p.choices)
        if button in (Button.PREV, Button.NEXT):
            i = choices.index(ui.cursor) if ui.cursor in choices else 0
            i = (i + (1 if button is Button.NEXT else -1)) % len(choices)
            ui.cursor = choices[i]
            self._redraw_window()
        elif w.step == TURN_VOTE:
            self.submit(Vote(seat, ui.cursor), seat)
        elif w.kind == cards.FIRST_IDENTITY:  # D1: the player's own choice, never the judge's
            self.submit(Pick(seat, ui.cursor), seat)
        elif self.judge_entry:
            self._notice(seat, v.Message(v.L10n("请指给法官", "Point it out"), v.L10n("法官录入", "The judge enters it")))
        else:
            self.submit(Pick(seat, ui.cursor), seat)

    def _hand(self, seat: int, w: Window) -> None:
        now = self.clock.now()
        if w.call is not None and now >= w.call[1]:
            candidate, end = w.call
        elif w.previous_call is not None:
            candidate, end = w.previous_call  # a hand during the next call: late for the previous one
        else:
            self._notice(seat, v.Message(v.L10n("请等点名", "Wait for the call"), ""))
            return
        err = self.submit(Vote(seat, candidate, self._hand_delay(now, end)), seat)
        if err is None:
            self._notice(seat, v.VoteFeedback(v.VoteResult.COUNTED, candidate))

    def _hand_delay(self, now: float, end: float) -> float:
        """The hand's delay after the call, decided here at press time with the boundary the seat's screen
        shows (on time up to and including ``end + window``, V2.6), and handed to the engine as a number the
        engine's own test (``delay <= window``) classifies the same way whatever the float rounding."""
        window = float(self.config.opt("vote.window_s"))
        delay = max(0.0, now - end)
        if now <= end + window:
            return min(delay, window)
        return max(delay, math.nextafter(window, math.inf))

    # ---- the deal with cards (C1; D1-D3: two cards a player) ---------------------------------------------------
    def _ask_for_cards(self) -> None:
        """Every dealer's screen asks for its first card (the dual-card versions: "tap card 1")."""
        for seat, ui in self.ui.items():
            ui.cards = ()
            if ui.notice_handle is not None:
                ui.notice_handle.cancel()
            ui.notice, ui.notice_handle = None, None
            self._set(seat, self._tap_view(self.dealer_of[seat], 0))

    def _tap_view(self, dealer: int, read: int) -> v.TapCard:
        """What a dealer's screen asks for once ``read`` of its cards are in."""
        if self.hand == 1:
            return v.TapCard(dealer)
        return v.TapCard(self._card_seat(dealer, read + 1), card=read + 1)

    def _card_seat(self, dealer: int, card: int) -> int:
        """The number a screen names card ``card`` (1 or 2) of ``dealer`` by: in D2 each card is a place of its
        own (card 2 is the next place, "7-2"); elsewhere the dealer's seat."""
        return dealer + card - 1 if self.config.variant.live == "both" else dealer

    def _dealer_name(self, dealer: int) -> str:
        """The dealer as the judge's remote names it: the physical seat (D2's card 1 place is its seat)."""
        return str(seat_of(dealer)) if self.config.variant.live == "both" else str(dealer)

    def _reveal(self, dealer: int, role: str, card: int) -> None:
        """Show the card just read (or read again) on its dealer's screen, then hide it (:meth:`_card_read`)."""
        ui = self.ui[dealer]
        if ui.reveal_handle is not None:  # a card read meanwhile is shown its full time
            ui.reveal_handle.cancel()
        self._set(dealer, v.RoleReveal(self._card_seat(dealer, card), role, (), hint=True,
                                       card=card if self.hand > 1 else 0))
        ui.reveal_handle = self.clock.call_at(self.clock.now() + self.t.reveal_s, lambda: self._card_read(dealer))

    def _card(self, seat: int, uid: str) -> None:
        if self.stage != "deal" or self.deck is None:
            if self.state is not None and seat in self.ui:
                self._arm_peek(seat, now=True)  # tapping your own card again shows your role
            return
        dealer = self.dealer_of.get(seat)
        if dealer is None:
            log.warning("card from seat %s, which is not in this game, ignored", seat)
            return
        ui = self.ui[dealer]
        name = self._dealer_name(dealer)
        # Readers spell UIDs in either case; the deck's spelling is the card's name from here on.
        uid = next((u for u in (uid, uid.upper(), uid.lower()) if u in self.deck), uid)
        role = self.deck.get(uid)
        holder = next((d for d in self.dealers if uid in self.ui[d].cards), None)
        if role is None:
            self._notice(dealer, v.CardProblem(v.CardProblemKind.UNKNOWN), keep=True)
            self._beat("say", [prompt("error.unknown_card")])
            self._remote_line(f"seat {name}: card {uid} is not in this deck")
        elif holder == dealer:  # a card of one's own again: the player checks its role once more
            self._reveal(dealer, role, ui.cards.index(uid) + 1)
        elif len(ui.cards) >= self.hand:
            self._notice(dealer, v.CardProblem(v.CardProblemKind.TAPPED_TWICE, hand=self.hand))
            self._remote_line(f"seat {name}: tapped a {('second', 'third')[self.hand - 1]} card")
        elif holder is not None:
            other = self._card_seat(holder, self.ui[holder].cards.index(uid) + 1)
            self._notice(dealer, v.CardProblem(v.CardProblemKind.DUPLICATE, other_seat=other), keep=True)
            self._beat("say", [prompt("error.duplicate_card")])
            self._remote_line(f"seat {name}: card {uid} is already at seat {self._dealer_name(holder)}")
        else:
            if ui.notice_handle is not None:
                ui.notice_handle.cancel()
            ui.notice, ui.notice_handle = None, None
            ui.cards += (uid,)
            self._reveal(dealer, role, len(ui.cards))
            if all(len(self.ui[d].cards) == self.hand for d in self.dealers):
                self._cards_complete()
        self._pump()

    def _card_read(self, dealer: int) -> None:
        """The card was shown long enough: hide it again (if the deal is still on: a card may be re-tapped),
        and ask for the next card if the dealer has one to tap."""
        ui = self.ui[dealer]
        ui.reveal_handle = None
        if self.stage == "deal" and isinstance(ui.view, v.RoleReveal):
            if len(ui.cards) < self.hand:
                self._set(dealer, self._tap_view(dealer, len(ui.cards)))
            else:
                self._set(dealer, v.Message(v.L10n("已登记", "Card read"), v.L10n("等待其他人", "Waiting for others")))
            self._refresh()

    @property
    def dealt_cards(self) -> dict[int, str]:
        """Seat -> the card it tapped (the first one where a seat taps two): who holds what, for tests and tools."""
        return {d: self.ui[d].cards[0] for d in self.dealers if self.ui[d].cards}

    def _cards_complete(self) -> None:
        """Every card is in: the roles go to the engine in its order (seat by seat, card 1 then card 2: D1's
        hands, D2's places 2k-1 and 2k)."""
        assert self.deck is not None
        roles = [self.deck[uid] for d in self.dealers for uid in self.ui[d].cards]
        want: dict[str, int] = dict(self.config.composition)
        have: dict[str, int] = {}
        for r in roles:
            have[r] = have.get(r, 0) + 1
        missing = tuple((r, n - have.get(r, 0)) for r, n in want.items() if n > have.get(r, 0))
        extra = tuple((r, n - want.get(r, 0)) for r, n in have.items() if n > want.get(r, 0))
        if missing or extra:
            for seat in self.dealers:
                self._notice(seat, v.CardProblem(v.CardProblemKind.DECK_MISMATCH, missing=missing, extra=extra),
                             keep=True)
            self._beat("say", [prompt("error.deck_mismatch")])
            self._remote_line(f"deck mismatch: missing {missing}, extra {extra}; redeal")
            return
        try:
            state, events = engine.new_game(self.config, random.Random(self.seed), seed=self.seed, roles=roles)
        except Rejected as exc:  # D2 / D3 swap: a hand of killer and police voids the deal; the judge redeals
            self._deal_refused(exc, roles)
            return
        self._commit(None, state, events)
        self._beat("wait", self.t.reveal_s)
        self._beat("call", self._begin_play)

    def _deal_refused(self, exc: Rejected, roles: Sequence[str]) -> None:
        """The engine refused the cards as dealt: the judge's remote reads why, the seats whose hand is void
        (killer and police, D2/D3) say so, everyone else waits; nothing was started, the redeal starts over."""
        hands = {d: {roles[i * self.hand + j] for j in range(self.hand)} for i, d in enumerate(self.dealers)}
        void = [d for d, hand in hands.items() if {"killer", "police"} <= hand] or list(self.dealers)
        for d in void:
            self._notice(d, v.CardProblem(v.CardProblemKind.VOID_HAND), keep=True)
        self._note("table", f"deal refused: {exc.message}", public=False)
        self._beat("say", [prompt("error.void_hand")])
        self.deal_void = True
        self._remote_line(f"deal void ({exc.code}): {exc.message}")
        self._remote_line("redeal: menu > redeal")

    def redeal(self) -> None:
        """C1: the judge orders a redeal; every card is tapped again."""
        if self.stage != "deal" or (self.deck is not None and self.state is not None):
            return  # the engine has dealt from the cards: too late to redeal (undo is the judge's tool now)
        for ui in self.ui.values():
            if ui.reveal_handle is not None:
                ui.reveal_handle.cancel()
                ui.reveal_handle = None
        self._ask_for_cards()
        why = prompt("setup.deal_again") if self.deal_void else prompt("setup.redeal")
        self.deal_void = False
        self._beat("say", [why, self._tap_prompt()])
        self._pump()

    def _tap_prompt(self) -> str:
        """C1: tap your card; D1-D3: tap both your cards, one after the other."""
        return prompt("setup.tap_two_cards") if self.hand > 1 else prompt("setup.tap_card")

    def _arm_peek(self, seat: int, now: bool = False) -> None:
        """Holding OK (or tapping one's card) shows one's own role (C1: privately, on one's own screen)."""
        ui = self.ui[seat]
        if self.state is None or not self.state.roles:
            return

        def peek() -> None:
            ui.peek_handle = None
            ui.peeking = True
            self._refresh()
            if now:
                self.clock.call_at(self.clock.now() + self.t.reveal_s, unpeek)

        def unpeek() -> None:
            ui.peeking = False
            self._refresh()

        if now:
            peek()
        elif ui.peek_handle is None:
            ui.peek_handle = self.clock.call_at(self.clock.now() + self.t.peek_hold_s, peek)

    def _rejected(self, exc: Rejected, seat: int | None, action: Action) -> None:
        self._note(f"seat {seat}" if seat else "judge", f"refused {_describe(action)}: {exc.message}", public=False)
        if seat is None:
            self._remote_line(f"refused: {exc.message}")
            return
        if exc.code == "follow_vote" and isinstance(action, Vote) and action.target is not None:
            self._notice(seat, v.VoteFeedback(v.VoteResult.LATE, action.target))
        elif exc.code == "already_voted" and isinstance(action, Vote) and action.target is not None:
            self._notice(seat, v.VoteFeedback(v.VoteResult.ALREADY, action.target))
        else:
            self._notice(seat, v.Message(v.L10n("无效操作", "Not allowed"), exc.message))

    # ==== the judge ==============================================================================================
    def pause(self, reason: str = "judge") -> None:
        """Timers freeze; screens say "paused"."""
        if self.paused:
            return
        self.paused = True
        w = self.window
        if w is not None:
            self.paused_left = max(0.0, w.deadline - self.clock.now())
            for h in w.handles:
                h.cancel()
            w.handles.clear()
        if self.beat_handle is not None:
            self.beat_handle.cancel()
            self.beat_handle = None
        self.voice.say([prompt("game.paused")], urgent=True)
        self._note("judge", f"paused ({reason})")
        self._checkpoint()
        self._refresh()
        for cb in self.pause_listeners:
            cb(self, True)

    def resume_play(self) -> None:
        if not self.paused:
            return
        self.paused = False
        for ui in self.ui.values():  # a press during the pause was told "paused": that is no longer true
            if isinstance(ui.notice, v.Paused):
                if ui.notice_handle is not None:
                    ui.notice_handle.cancel()
                ui.notice, ui.notice_handle = None, None
        self.voice.say([prompt("game.resumed")], urgent=True)
        self._note("judge", "resumed")
        for cb in self.pause_listeners:
            cb(self, False)
        w = self.window
        if w is not None:
            left = self.paused_left or 0.0
            self.paused_left = None
            self.window = None
            if w.kind == "vote" and w.step != TURN_VOTE:
                self._start_vote(engine.pending(self.state))  # type: ignore[arg-type]
            else:
                self._start(engine.pending(self.state), w.total, left)  # type: ignore[arg-type]
        self._pump()

    def repeat(self) -> None:
        """Say the last prompt again."""
        if self.last_prompts:
            self.voice.say(self.last_prompts, urgent=True)

    def extend(self, seconds: float) -> None:
        w = self.window
        if w is None or w.kind == "vote":
            return
        for h in w.handles:
            h.cancel()
        w.handles.clear()
        w.deadline += seconds
        w.total += seconds
        w.handles.append(self.clock.call_at(w.deadline, self._deadline))
        self._schedule_ticks(w)
        self._note("judge", f"extended the timer by {seconds:g}s")
        self._checkpoint()
        self._redraw_window()
        self._refresh()

    def end_timer(self) -> None:
        if self.window is not None and not self.paused:
            self._note("judge", "ended the timer")
            self.submit(Timeout())

    def undo(self) -> bool:
        """Drop the last input and refold (the journal keeps both the input and the undo)."""
        if len(self.groups) <= 1:
            return False
        action, n = self.groups.pop()
        del self.events[len(self.events) - n:]
        if self.journal is not None:
            self.journal.record_undo()
        self.state = engine.fold(self.events)
        self.opened = sum(1 for e in self.events if isinstance(e, Opened))
        self._close_window()
        self.beats.clear()
        if self.beat_handle is not None:
            self.beat_handle.cancel()
            self.beat_handle = None
        self._note("judge", f"undid {_describe(action) if action else 'the set-up'}")
        self._beat("say", [prompt("game.undone")])
        for seat in self.ui:
            if seat not in self.state.alive:
                self._set(seat, v.Dead(seat), LED_OFF)
            elif self.state.phase == "night":
                self._set(seat, v.Dark(), LED_OFF)
        self._beat("call", self._open)
        self._pump()
        return True

    def eject(self, seat: int, reason: str = "") -> None:
        self.submit(Eject(seat, reason))

    def penalty(self, seat: int) -> None:
        self.submit(Penalty(seat))

    def surrender(self, seat: int) -> None:
        self.submit(Surrender(seat))

    def choose_direction(self, clockwise: bool) -> None:
        self.submit(ChooseDirection(clockwise))

    def judge_pick(self, target: int | None) -> None:
        """Judge entry mode: the judge enters the pointed-at seat for the waking group."""
        self.submit(GroupPick(target))

    def abort(self) -> None:
        self._close_window()
        self.beats.clear()
        self.stage = "over"
        self.voice.say([prompt("game.stopped_by_judge")], urgent=True)
        self._note("judge", "aborted the game")
        for cb in self.on_over:
            cb(self)

    _MENU = ("pause", "resume", "repeat", "extend", "end_timer", "undo", "redeal", "abort")

    def _remote_key(self, key: RemoteKey) -> None:
        """The handheld: MENU opens the command list; UP/DOWN move; CENTER runs (undo asks twice);
        LEFT/RIGHT in a night window with judge entry move the pointed-at seat."""
        if key is RemoteKey.MENU:
            self.menu = 0 if self.menu is None else None
        elif self.menu is not None and key in (RemoteKey.UP, RemoteKey.DOWN):
            self.menu = (self.menu + (1 if key is RemoteKey.DOWN else -1)) % len(self._MENU)
        elif self.menu is not None and key is RemoteKey.CENTER:
            command = self._MENU[self.menu]
            if command == "undo" and self.pending_confirm != "undo":
                self.pending_confirm = "undo"
                self._remote_line("undo: press again to confirm")
            else:
                self.pending_confirm = None
                self.menu = None
                {"pause": self.pause, "resume": self.resume_play, "repeat": self.repeat,
                 "extend": lambda: self.extend(30.0), "end_timer": self.end_timer, "undo": self.undo,
                 "redeal": self.redeal, "abort": self.abort}[command]()
        elif key is RemoteKey.BACK:
            self.menu = None
            self.pending_confirm = None
        elif self.menu is None and self.stage == "over" and key in (RemoteKey.UP, RemoteKey.DOWN):
            last = len(story(self.events, self.lang, self.label)) - 1
            self.story_cursor = max(0, min(last, self.story_cursor + (1 if key is RemoteKey.DOWN else -1)))
        self._remote_status()

    def _link(self, e: LinkEvent) -> None:
        """A seat (or the remote) stopped answering: pause with the seat named; carry on when it is back."""
        if not e.up:
            self.paused_for.add(e.seat)
            if e.seat:
                self.voice.say(phrase(seat_number(e.seat), prompt("error.seat_offline")), urgent=True)
            self._remote_line(f"seat {self.label(e.seat)} is not answering ({e.reason})")
            self.pause(f"seat {e.seat} offline")
        else:
            self.paused_for.discard(e.seat)
            ui = self.ui.get(e.seat)
            if ui is not None:
                ui.drawn = None  # redraw its screen and LED from scratch
                self.led_sent.pop(e.seat, None)
            if e.seat == 0:
                self.remote_drawn = None  # the remote is back: redraw it from scratch
            if e.seat:
                self.voice.say(phrase(seat_number(e.seat), prompt("error.seat_back")))
            if not self.paused_for:
                self.resume_play()

    # ==== output ================================================================================================
    def _set(self, seat: int, view: v.View, led: RGB | None = None) -> None:
        ui = self.ui[seat]
        ui.view = view
        if led is not None:
            ui.led = led

    def _notice(self, seat: int, view: v.View, keep: bool = False) -> None:
        """A message on one seat (where the press happened), for a moment (``keep``: until replaced)."""
        ui = self.ui[seat]
        if ui.notice_handle is not None:
            ui.notice_handle.cancel()
        ui.notice = view

        def clear() -> None:
            ui.notice = None
            ui.notice_handle = None
            self._refresh()

        ui.notice_handle = None if keep else self.clock.call_at(self.clock.now() + self.t.notice_s, clear)
        self._refresh()

    def _refresh(self) -> None:
        """Send every seat whatever changed since it was last drawn."""
        s = self.state
        for seat, ui in self.ui.items():
            view = ui.view
            if self.paused and not isinstance(view, v.Dead):
                view = v.Paused()
            elif ui.peeking and s is not None and s.roles:
                hand = s.cards[seat - 1] if s.cards else ()
                view = v.RoleReveal(seat, s.role_of(seat), s.partners(seat), hint=False, hand=hand)
            elif ui.notice is not None:
                view = ui.notice
            if view != ui.drawn:
                self.table.seats[seat].display(_draw(view, self.lang, self.label))
                ui.drawn = view
            if self.led_sent.get(seat) != ui.led:
                self.table.seats[seat].set_led(ui.led)
                self.led_sent[seat] = ui.led
        if self.board is not None:
            facts = public_facts(self.state, self.events, window=self.window, now=self.clock.now(),
                                 over=self.stage == "over", paused=self.paused)
            if facts != self.board_shown:
                self.board.show(facts)
                self.board_shown = facts

    def _remote(self, view: v.View) -> None:
        """The judge's screen, sent only when its view changed (a seat's press need not redraw the remote)."""
        remote = self.table.remote
        if remote is not None and view != self.remote_drawn:
            remote.display(_draw(view, self.lang, self.label))
            self.remote_drawn = view

    def _remote_line(self, text: str) -> None:
        self.remote_lines.append(text)
        self._remote_status()

    def _remote_status(self) -> None:
        """The judge sees everything: roles, tonight's picks, whose turn, the timer."""
        s = self.state
        if self.table.remote is None:
            return
        if self.menu is not None:
            items = tuple(("» " if i == self.menu else "") + c for i, c in enumerate(self._MENU))
            self._remote(v.JudgeList(v.L10n("法官菜单", "Judge menu"), items, self.menu))
            return
        if s is None or not s.roles:
            self._remote(v.JudgeList(v.L10n("发牌", "Deal"), tuple(self.remote_lines)[-6:] or ("…",), None))
            return
        if self.stage == "over":  # the game is over: roles and night choices may be told (C4)
            told = story(self.events, self.lang, self.label)
            self._remote(v.JudgeList(v.L10n("结局", "The end"), told, self.story_cursor))
            return
        w = self.window
        if w is not None and w.kind in ("speeches", "last_words") and s.queue:
            turn = f"{w.step}: {self.label(s.queue[0])}"
        elif w is not None and w.kind == "vote" and w.call is not None:
            turn = f"{w.step}: {self.label(w.call[0])}?"
        else:
            turn = w.step if w else (s.waiting.step if s.waiting else "-")
        # The panel has room for two status lines: tonight's picks first, else the latest remote messages.
        picks = tuple(f"{a.step}→{a.target if a.target is None else self.label(a.target)}"
                      for a in s.acts if a.ability != "recognise")  # V5.2: no pick
        lines = (picks + tuple(self.remote_lines))[-2:]
        cd = self._countdown() if w is not None and w.kind != "vote" else None
        self._remote(v.JudgeStatus(f"{s.phase} {s.night}/{s.day}", turn, cd, lines))

    def _checkpoint(self) -> None:
        if self.journal is None or self.window is None or self.state is None:
            return
        left = self.paused_left if self.paused else self.window.deadline - self.clock.now()
        self.journal.record_timer({"key": self.window.key, "remaining": round(max(0.0, left or 0.0), 3)})

    def _note(self, who: str, what: str, public: bool = True) -> None:
        self.transcript.append(Line(self.clock.now(), who, what, public))
        if public:
            log.info("%s: %s", who, what)
        else:
            log.debug("%s: %s", who, what)


def _whole(seconds: float) -> float:
    """Seconds left rounded up to a whole second (to the millisecond first, so float dust is not a second)."""
    return float(max(0, math.ceil(round(seconds, 3))))


def _describe(action: Action | None) -> str:
    if action is None:
        return "set-up"
    name = type(action).__name__
    fields = ", ".join(f"{k}={getattr(action, k)}" for k in action.__dataclass_fields__)
    return f"{name}({fields})"
