"""The judge's commands, as one table every remote drives: pause, resume, repeat, extend, end the timer, undo,
eject, penalty, surrender (V2.11), the judge's own entry of a pick, the direction (V2.4), redeal (C1) and abort.

Why one table: the handheld's menu (remote_screens.py), the phone's console and any other ``Remote`` adapter
must offer the same commands with the same limits, confirmations and results, so none of them holds a rule of
its own. A new front end reads the table and calls :meth:`JudgeCommands.judge`; it adds no director code.

The table (:data:`COMMANDS`, in menu order; :data:`BY_NAME`) gives for each command:

- ``name``: its stable id ("eject"), the same in every front end, the transcript and the tests;
- ``label``: the menu's words (an :class:`~controller.screens.views.L10n`, zh and en);
- ``takes``: what it needs: ``""`` nothing, ``"seat"`` a seat number, ``"target"`` a seat or ``None`` (skip),
  ``"direction"`` ``True`` for clockwise, ``"seconds"`` a number of seconds;
- ``confirm``: whether the front end must ask before running it (the handheld: a second centre press; the
  phone: a question, :meth:`JudgeCommands.judge_question`). :meth:`~JudgeCommands.judge` does not ask again:
  asking is the front end's part, the table says where it is owed;
- ``heard``: what the room hears when it is done (prompt IDs; nothing private is ever said: a refusal and a
  night entry are silent);
- ``rule``: the RULES ID it carries out.

The calls, all made on the table's loop (an adapter on another thread hands them over with
``loop.call_soon_threadsafe``, like its inputs):

- ``d.judge_menu() -> tuple[Offer, ...]``: every command with whether it is open now and its choices now (the
  seats that may be ejected, the targets the waking group may be given, ...); a front end greys out the rest;
- ``d.judge_choices(name) -> tuple[Choice, ...]``: the choices of one command now (empty: ``takes`` is ``""``);
- ``d.judge_question(name, value) -> L10n``: the question to ask before a ``confirm`` command ("请出场：5号？");
- ``d.judge(name, value=None) -> Outcome``: run it. Never raises for bad input: an unknown name, a command not
  open now, a value not among the choices, or the rules' refusal (a surrender while partners are alive, V2.11)
  comes back as ``Outcome(ok=False, message=..., code=...)`` in both languages, and changes nothing.

Every outcome is also written on the remote's screen (the handheld shows what the phone did, and the other way
round), noted in the transcript, and every input the rules take is journalled before it takes effect, so undo
takes it back. What the seat concerned sees (ejected, a penalty point) is drawn on that seat alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.director.game_loop import describe
from controller.director.judge_table import (  # noqa: F401 (the table's names are this module's too)
    _OURS,
    BY_NAME,
    COMMANDS,
    EXTEND_CHOICES,
    EXTEND_RANGE,
    Choice,
    JudgeCommand,
    Offer,
    Outcome,
    refusal,
    words,
)
from controller.director.seams import Parts, Setup
from controller.director.seat_output import dead_view
from controller.ports import LED_OFF
from controller.rules import engine, sheriff
from controller.rules.actions import (
    Action,
    Ballot,
    ChooseDirection,
    Eject,
    GroupPick,
    Pass,
    Penalty,
    Pick,
    Rejected,
    SelfDestruct,
    Surrender,
    Timeout,
    Vote,
)
from controller.rules.state import GameState
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v
from controller.voice.prompts import prompt


class JudgeCommands:
    """What the judge can order the table to do, and the one door every remote comes in by."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.config = setup.config
        self.deck = setup.deck
        self.journal = setup.journal
        self.label = setup.label
        self.voice = setup.voice
        self.paused = False
        self.paused_left: float | None = None

    # ==== the door ==========================================================================================
    def judge_menu(self) -> tuple[Offer, ...]:
        """Every command in menu order, open or not now, with its choices now."""
        return tuple(Offer(c, self._open_now(c.name), self.judge_choices(c.name)) for c in COMMANDS)

    def judge_choices(self, name: str) -> tuple[Choice, ...]:
        """The values ``name`` may take now (empty when it takes none, or none is possible)."""
        s = self.parts.loop.state

        def seat(n: int) -> Choice:
            return Choice(n, words("seat", n=self.label(n)))

        if name in ("eject", "surrender", "self_destruct"):
            return tuple(seat(n) for n in sorted(s.alive)) if s is not None and s.roles else ()
        if name == "penalty":
            return tuple(seat(n) for n in range(1, self.config.players + 1))
        if name == "judge_pick":
            p = engine.pending(s) if s is not None and self.parts.windows.window is not None else None
            if p is None or p.kind != "night":
                return ()
            return tuple(Choice(None, words("skip")) if t is None else seat(t) for t in p.choices)
        if name == "direction":
            return (Choice(True, words("clockwise")), Choice(False, words("counterclockwise")))
        if name == "extend":
            return tuple(Choice(n, words("n_seconds", s=n)) for n in EXTEND_CHOICES)
        return ()

    def judge_question(self, name: str, value: Any = None) -> v.L10n:
        """What a front end asks before a ``confirm`` command: "请出场：5号？" / "Eject: Seat 5?"."""
        c = BY_NAME.get(name)
        if c is None:
            return words("ask_plain", cmd=name)
        if not c.takes:
            return words("ask_plain", cmd=c.label)
        return words("ask", cmd=c.label, what=self._value_words(name, value))

    def judge(self, name: str, value: Any = None) -> Outcome:
        """Run the judge's command ``name`` (with ``value`` where it takes one). See the module's docstring."""
        c = BY_NAME.get(name)
        if c is None:
            return self._told(Outcome(False, v.L10n(f"没有“{name}”这个指令", f"No command {name!r}"), "unknown"))
        if not self._open_now(name):
            return self._told(Outcome(False, words("not_now", cmd=c.label), "not_now"))
        if c.takes == "seconds":
            value = EXTEND_CHOICES[0] if value is None else value
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not EXTEND_RANGE[0] <= value <= EXTEND_RANGE[1]:
                return self._told(Outcome(False, words("not_a_choice", what=value), "not_a_choice"))
        elif c.takes and not any(type(ch.value) is type(value) and ch.value == value
                                 for ch in self.judge_choices(name)):  # True is not seat 1
            return self._told(Outcome(False, words("not_a_choice", what=value), "not_a_choice"))
        outcome = self._run(name, value)
        # the rules' refusal is on the remote already (input_routing.py tells every refused input where it was)
        return self._told(outcome) if outcome.code in _OURS else outcome

    # ==== what each command does ===========================================================================
    def pause(self, reason: str = "judge") -> None:
        """Timers freeze; screens say "paused"."""
        if self.paused:
            return
        self.paused = True
        w = self.parts.windows.window
        if w is not None:
            self.paused_left = max(0.0, w.deadline - self.clock.now())
            for h in w.handles:
                h.cancel()
            w.handles.clear()
        self.parts.loop.hold_beats()
        self.voice.say([prompt("game.paused")], urgent=True)
        self.parts.loop.note("judge", f"paused ({reason})")
        self.parts.loop.checkpoint()
        self.parts.seats.refresh()
        self.parts.follow.pause(True)

    def resume_play(self) -> None:
        if not self.paused:
            return
        self.paused = False
        for ui in self.parts.seats.ui.values():  # a press during the pause was told "paused": that is no longer true
            if isinstance(ui.notice, v.Paused):
                if ui.notice_handle is not None:
                    ui.notice_handle.cancel()
                ui.notice, ui.notice_handle = None, None
        self.voice.say([prompt("game.resumed")], urgent=True)
        self.parts.loop.note("judge", "resumed")
        self.parts.follow.pause(False)
        w = self.parts.windows.window
        if w is not None:
            left = self.paused_left or 0.0
            self.paused_left = None
            self.parts.windows.forget()
            if w.kind == "vote" and w.step != TURN_VOTE:
                self.parts.votes.start_vote(engine.pending(self.parts.loop.state))  # type: ignore[arg-type]
            else:
                self.parts.windows.start(engine.pending(self.parts.loop.state), w.total, left)  # type: ignore[arg-type]
        self.parts.loop.pump()

    def repeat(self) -> None:
        """Say the last prompt again."""
        if self.parts.loop.last_prompts:
            self.voice.say(self.parts.loop.last_prompts, urgent=True)

    def extend(self, seconds: float) -> None:
        w = self.parts.windows.window
        if w is None or w.kind == "vote":
            return
        for h in w.handles:
            h.cancel()
        w.handles.clear()
        w.deadline += seconds
        w.total += seconds
        w.handles.append(self.clock.call_at(w.deadline, self.parts.windows.deadline))
        self.parts.windows.schedule_ticks(w)
        self.parts.loop.note("judge", f"extended the timer by {seconds:g}s")
        self.parts.loop.checkpoint()
        self.parts.windows.redraw_window()
        self.parts.seats.refresh()

    def end_timer(self) -> None:
        self.parts.loop.settle()  # for the wait the room sees: an input in flight may have ended it already
        if self.parts.windows.window is not None and not self.paused:
            self.parts.loop.note("judge", "ended the timer")
            self.parts.loop.submit(Timeout())

    def undo(self) -> bool:
        """Drop the last input and refold (the journal keeps both the input and the undo)."""
        self.parts.loop.settle()  # the last input is the last one in effect, not one still on its way to the disk
        if len(self.parts.loop.groups) <= 1:
            return False
        action = self.parts.loop.take_back()
        self.parts.windows.close_window()
        self.parts.loop.drop_beats()
        self.parts.loop.note("judge", f"undid {describe(action) if action else 'the set-up'}")
        self.parts.loop.beat("say", [prompt("game.undone")])
        state = self.parts.loop.state
        assert state is not None
        for seat in self.parts.seats.ui:
            if seat not in state.alive:
                self.parts.seats.set(seat, dead_view(state, seat), LED_OFF)
            elif state.phase == "night":
                self.parts.seats.set(seat, v.Dark(), LED_OFF)
            elif isinstance(self.parts.seats.ui[seat].view, v.Dead):  # back in the game (an ejection undone)
                self.parts.seats.set(seat, v.Message(words("day", d=state.day)), LED_OFF)
        self.parts.loop.beat("call", self.parts.windows.open)
        self.parts.loop.pump()
        return True

    def eject(self, seat: int, reason: str = "") -> Rejected | None:
        """V2.11 §5.14/§5.15: the seat is out of this game; the step going on goes on without it."""
        return self.parts.loop.submit(Eject(seat, reason))

    def penalty(self, seat: int) -> Rejected | None:
        """V2.11 §5.4: one penalty point; the seat is told on its own screen."""
        refused = self.parts.loop.submit(Penalty(seat))
        if refused is None and seat in self.parts.seats.ui:
            points = self.parts.loop.state.penalties.get(seat, 0) if self.parts.loop.state is not None else 0
            self.parts.seats.notice(seat, v.Message(words("penalty_title"), words("penalty_body", p=points)))
        return refused

    def surrender(self, seat: int) -> Rejected | None:
        """V2.11: only the last living member of a killer or police team; the other side wins."""
        return self.parts.loop.submit(Surrender(seat))

    def choose_direction(self, clockwise: bool) -> Rejected | None:
        return self.parts.loop.submit(ChooseDirection(clockwise))

    def judge_pick(self, target: int | None) -> Rejected | None:
        """Judge entry mode: the judge enters the pointed-at seat for the waking group."""
        return self.parts.loop.submit(GroupPick(target))

    def redeal(self) -> None:
        """C1: the judge orders a redeal; every card is tapped again."""
        if not self._redeal_open():
            return  # the engine has dealt from the cards: too late to redeal (undo is the judge's tool now)
        self.parts.deal.again()
        self.parts.loop.pump()

    def abort(self) -> None:
        self.parts.loop.settle()  # nothing still on its way to the disk takes effect after the game is stopped
        self.parts.windows.close_window()
        self.parts.loop.drop_beats(current=False)
        self.parts.loop.finish()
        self.voice.say([prompt("game.stopped_by_judge")], urgent=True)
        self.parts.loop.note("judge", "aborted the game")
        self.parts.follow.over()

    # ==== the table's workings ==============================================================================
    def _redeal_open(self) -> bool:
        return self.parts.loop.stage == "deal" and not (self.deck is not None and self.parts.loop.state is not None)

    def _open_now(self, name: str) -> bool:
        """Whether ``name`` may run now (the same test for every front end)."""
        s, w = self.parts.loop.state, self.parts.windows.window
        playing = self.parts.loop.stage == "play" and s is not None and not s.over
        running = playing and not self.paused
        return {
            "pause": self.parts.loop.stage in ("deal", "play") and not self.paused,
            "resume": self.paused,
            "repeat": bool(self.parts.loop.last_prompts),
            "extend": running and w is not None and w.kind != "vote",
            "end_timer": running and w is not None,
            "undo": playing and len(self.parts.loop.groups) > 1,
            "eject": playing,
            "penalty": playing,
            "surrender": playing,
            "self_destruct": running and s is not None and self_destruct_now(s),
            "judge_pick": running and w is not None and w.kind == "night",
            # W10: the sheriff's own choice is the sheriff's (the judge may end its timer: the rule's direction)
            "direction": running and w is not None and w.kind == "direction" and w.step != sheriff.DIRECTION,
            "redeal": self._redeal_open(),
            "abort": self.parts.loop.stage in ("deal", "play"),
        }.get(name, False)

    def _value_words(self, name: str, value: Any) -> v.L10n:
        if name == "extend":
            return words("n_seconds", s=value)
        return next((c.label for c in self.judge_choices(name) if c.value == value), v.L10n(str(value), str(value)))

    def _told(self, outcome: Outcome) -> Outcome:
        """The outcome on the remote's screen (whichever remote asked) and in the transcript."""
        self.parts.loop.note("judge", outcome.message.en, public=False)
        self.parts.remote.remote_line(outcome.message)
        return outcome

    def _rules_said(self, refused: Rejected | None, done: v.L10n, action: Action) -> Outcome:
        if refused is None:
            return Outcome(True, done)
        return Outcome(False, refusal(refused, action, self.label), refused.code)

    def _run(self, name: str, value: Any) -> Outcome:
        """Carry out a command already checked open and given a value among its choices."""
        if name in ("eject", "penalty", "surrender", "self_destruct"):
            return self._run_seat(name, value)
        if name == "judge_pick":
            done = words("done_judge_pick", what=self._value_words(name, value))
            return self._rules_said(self.judge_pick(value), done, GroupPick(value))
        if name == "direction":
            done = words("done_direction", what=self._value_words(name, value))
            return self._rules_said(self.choose_direction(value), done, ChooseDirection(value))
        if name == "undo":
            last = self.parts.loop.groups[-1][0] if self.parts.loop.groups else None
            if not self.undo():
                return Outcome(False, words("nothing_to_undo"), "nothing_to_undo")
            return Outcome(True, words("done_undo", what=_action_words(last, self.label)))
        if name == "extend":
            self.extend(float(value))
            return Outcome(True, words("done_extend", s=f"{value:g}"))
        plain: dict[str, Callable[[], object]] = {
            "pause": self.pause, "resume": self.resume_play, "repeat": self.repeat, "end_timer": self.end_timer,
            "redeal": self.redeal, "abort": self.abort}
        plain[name]()
        return Outcome(True, words(f"done_{name}"))

    def _run_seat(self, name: str, seat: int) -> Outcome:
        n = self.label(seat)
        if name == "eject":
            return self._rules_said(self.eject(seat), words("done_eject", n=n), Eject(seat))
        if name == "penalty":
            refused = self.penalty(seat)
            points = self.parts.loop.state.penalties.get(seat, 0) if self.parts.loop.state is not None else 0
            return self._rules_said(refused, words("done_penalty", n=n, p=points), Penalty(seat))
        if name == "self_destruct":
            refused = self.parts.loop.submit(SelfDestruct(seat))
            return self._rules_said(refused, words("done_self_destruct", n=n), SelfDestruct(seat))
        return self._rules_said(self.surrender(seat), words("done_surrender", n=n), Surrender(seat))


def self_destruct_now(s: GameState) -> bool:
    """W11: a role of this game may self-destruct, and it is day or the sheriff election."""
    return (s.phase == "day" or sheriff.in_election(s)) and any(
        r.day_action == "self_destruct" for r in s.config.variant.roles.values())


def _action_words(action: Action | None, label: Callable[[int], str]) -> v.L10n:
    """An input as the judge's screen names it ("请出场：5号", "Seat 3 → 7")."""
    if action is None:
        return words("cmd_redeal")
    if isinstance(action, (Eject, Penalty, Surrender, SelfDestruct)):
        name = {Eject: "eject", Penalty: "penalty", Surrender: "surrender", SelfDestruct: "self_destruct"}[type(action)]
        return _pair(words(f"cmd_{name}"), words("seat", n=label(action.seat)))
    if isinstance(action, GroupPick):
        what = words("skip") if action.target is None else words("seat", n=label(action.target))
        return _pair(words("cmd_judge_pick"), what)
    if isinstance(action, ChooseDirection):
        return _pair(words("cmd_direction"), words("clockwise" if action.clockwise else "counterclockwise"))
    if isinstance(action, (Pick, Vote)):
        what = words("skip") if action.target is None else words("seat", n=label(action.target))
        return _pair(words("seat", n=label(action.seat)), what, "→")
    if isinstance(action, Pass):
        return words("seat", n=label(action.seat))
    if isinstance(action, Timeout):
        return words("done_end_timer")
    if isinstance(action, Ballot):
        return words("turn_vote")
    return v.L10n(describe(action), describe(action))


def _pair(a: v.L10n, b: v.L10n, sep: str = "：") -> v.L10n:
    return v.L10n(f"{a.zh}{sep}{b.zh}", f"{a.en}{': ' if sep == '：' else ' ' + sep + ' '}{b.en}")
