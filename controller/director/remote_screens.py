"""The judge's handheld remote: its menu and its screens, in the table's language.

The judge sees everything (roles, tonight's picks, whose turn, the timer); once the game is over, the whole story
(C4). The keys drive the judge's command table (judge_commands.py), so the handheld offers exactly what every
other remote offers:

- MENU opens the list of the commands open now; UP/DOWN move; CENTER takes one;
- a command that needs a seat (eject, penalty, surrender), a target (the judge's entry of a pick), a direction or
  a number of seconds shows the value big: ◀/▶ (or UP/DOWN) change it, CENTER takes it;
- a command that cannot be taken back lightly asks again: the second CENTER runs it;
- the outcome (done, or refused with the rule: "5号还有同伴在场，不能投降（V2.11）") stays on the screen until
  the next key or a few seconds; BACK leaves at any point and changes nothing;
- with the menu closed, ◀/▶ go straight to the judge's entry while a night group waits in judge-entry mode, and
  to the direction while the table waits for it (V2.4).

Kept apart from the seats' output because the remote is the one screen allowed every secret.
"""

from __future__ import annotations

from collections import deque

from controller.director.clock import Handle
from controller.director.judge_table import BY_NAME, EXTEND_CHOICES, JudgeCommand, words
from controller.director.records import RemoteAsk
from controller.director.seams import Parts, Setup
from controller.director.seat_output import draw
from controller.ports import RemoteKey
from controller.rules import engine, sheriff
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v
from controller.screens.canvas import W, wrap
from controller.screens.fonts import SMALL
from controller.screens.render import LIST_ROWS
from controller.screens.story import story
from controller.screens.strings import Lang, action_name, role_name


class RemoteScreens:
    """The remote's menu, keys and status screens."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.judge_entry = setup.judge_entry
        self.label = setup.label
        self.lang = setup.lang
        self.t = setup.t
        self.table = setup.table
        #: What the remote was told (a card problem, a seat gone quiet, a command's outcome), newest last.
        self.remote_lines: deque[v.Text] = deque(maxlen=40)
        #: The remote's menu: the cursor in the commands open now (None: closed), the command being chosen for
        #: or confirmed, and the outcome shown until the next key.
        self.menu: int | None = None
        self.asking: RemoteAsk | None = None
        self.remote_result: tuple[v.L10n, v.L10n, bool] | None = None
        self.remote_result_handle: Handle | None = None
        self.remote_drawn: v.View | None = None
        #: The line of the game's story shown once it is over (UP/DOWN scroll it).
        self.story_cursor = 0

    @property
    def menu_rows(self) -> tuple[str, ...]:
        """The commands open now, in the table's order: the menu's rows."""
        return tuple(o.command.name for o in self.parts.judge.judge_menu() if o.open)

    def show_story(self) -> None:
        """The game is over: the whole story from its first line (UP/DOWN scroll it)."""
        self.story_cursor = 0
        self.remote_status()

    def redraw(self) -> None:
        """The remote is back: its next screen is sent whole, whatever it showed."""
        self.remote_drawn = None

    def remote_key(self, key: RemoteKey) -> None:
        """Every key of the handheld (see the module's docstring)."""
        if self.remote_result is not None:  # any key puts the outcome away
            self._drop_result()
            if key is not RemoteKey.MENU:
                self.remote_status()
                return
        if key is RemoteKey.BACK:
            self.menu, self.asking = None, None
        elif self.asking is not None:
            self._asking_key(key, self.asking)
        elif key is RemoteKey.MENU:
            self.menu = 0 if self.menu is None else None
        elif self.menu is not None:
            rows = self.menu_rows
            if not rows:
                self.menu = None
            elif key in (RemoteKey.UP, RemoteKey.DOWN):
                self.menu = (self.menu + (1 if key is RemoteKey.DOWN else -1)) % len(rows)
            elif key is RemoteKey.CENTER:
                self._take(BY_NAME[rows[min(self.menu, len(rows) - 1)]])
        elif key in (RemoteKey.LEFT, RemoteKey.RIGHT):
            shortcut = next((n for n in ("judge_pick", "direction") if self._shortcut(n)), None)
            if shortcut is not None:
                self._take(BY_NAME[shortcut])
        elif self.parts.loop.stage == "over" and key in (RemoteKey.UP, RemoteKey.DOWN):
            last = len(story(self.parts.loop.events, self.lang, self.label)) - 1
            self.story_cursor = max(0, min(last, self.story_cursor + (1 if key is RemoteKey.DOWN else -1)))
        self.remote_status()

    def _shortcut(self, name: str) -> bool:
        offer = next(o for o in self.parts.judge.judge_menu() if o.command.name == name)
        return offer.open and (name != "judge_pick" or self.judge_entry)

    def _take(self, c: JudgeCommand) -> None:
        """The judge took ``c`` from the menu: choose its value, confirm it, or run it now."""
        self.menu = None
        if c.takes:
            choice = EXTEND_CHOICES.index(30) if c.name == "extend" else 0
            if c.name == "judge_pick":  # start from the group's own pointer, where there is one
                values = [ch.value for ch in self.parts.judge.judge_choices(c.name)]
                w = self.parts.windows.window
                first = next((self.parts.seats.ui[s].cursor for s in (w.seats if w else ())
                              if s in self.parts.seats.ui and self.parts.seats.ui[s].cursor in values), None)
                choice = values.index(first) if first in values else 0
            self.asking = RemoteAsk(c.name, choice)
        elif c.confirm:
            self.asking = RemoteAsk(c.name, confirming=True)
        else:
            self._finish(c, None)

    def _asking_key(self, key: RemoteKey, ask: RemoteAsk) -> None:
        c = BY_NAME[ask.command]
        choices = self.parts.judge.judge_choices(c.name) if c.takes else ()
        if c.takes and not choices:  # the moment passed (the night group has picked, the seat is gone)
            self.asking = None
            return
        if key in (RemoteKey.LEFT, RemoteKey.RIGHT, RemoteKey.UP, RemoteKey.DOWN) and choices:
            step = 1 if key in (RemoteKey.RIGHT, RemoteKey.DOWN) else -1
            ask.choice = (ask.choice + step) % len(choices)
            ask.confirming = False  # a new value is confirmed anew
        elif key is RemoteKey.CENTER:
            value = choices[min(ask.choice, len(choices) - 1)].value if choices else None
            if c.confirm and not ask.confirming:
                ask.confirming = True
            else:
                self.asking = None
                self._finish(c, value)
        elif key is RemoteKey.MENU:
            self.asking = None

    def _finish(self, c: JudgeCommand, value: object) -> None:
        outcome = self.parts.judge.judge(c.name, value)
        self._drop_result()
        self.remote_result = (c.label, outcome.message, outcome.ok)
        # a running timer: back to the status by itself
        if self.parts.loop.stage != "over" and self.parts.windows.window is not None:
            self.remote_result_handle = self.clock.call_at(self.clock.now() + self.t.notice_s, self._result_done)

    def _result_done(self) -> None:
        self.remote_result_handle = None
        self.remote_result = None
        self.remote_status()

    def _drop_result(self) -> None:
        if self.remote_result_handle is not None:
            self.remote_result_handle.cancel()
            self.remote_result_handle = None
        self.remote_result = None

    def display(self, view: v.View) -> None:
        """The judge's screen, sent only when its view changed (a seat's press need not redraw the remote)."""
        remote = self.table.remote
        if remote is not None and view != self.remote_drawn:
            remote.display(draw(view, self.lang, self.label))
            self.remote_drawn = view

    def remote_line(self, text: v.Text) -> None:
        self.remote_lines.append(text)
        self.remote_status()

    def remote_status(self) -> None:
        """The judge sees everything: roles, tonight's picks, whose turn, the timer."""
        s = self.parts.loop.state
        if self.table.remote is None:
            return
        if self.remote_result is not None:
            title, message, ok = self.remote_result
            self.display(v.JudgeAsk(title, message, done=ok))
            return
        if self.asking is not None:
            self.display(self._ask_view(self.asking))
            return
        if self.menu is not None:
            rows = self.menu_rows
            self.menu = min(self.menu, max(0, len(rows) - 1))
            items = tuple(BY_NAME[n].label for n in rows)
            self.display(v.JudgeList(words("judge_menu"), items, self.menu if items else None))
            return
        if s is None or not s.roles:
            self.display(v.JudgeList(words("judge_deal"), self._newest_told() or ("…",), None))
            return
        if self.parts.loop.stage == "over":  # the game is over: roles and night choices may be told (C4)
            told = story(self.parts.loop.events, self.lang, self.label)
            self.display(v.JudgeList(words("judge_end"), told, self.story_cursor))
            return
        phase = words("night", d=s.night) if s.phase == "night" else words("day", d=s.day)
        # The panel has room for two status lines: tonight's picks first, then the newest of what it was told.
        picks = tuple(self._pick_words(a.ability, a.target) for a in s.acts if a.ability != "recognise")  # V5.2
        lines = (picks + tuple(self.remote_lines))[-2:]
        w = self.parts.windows.window
        cd = self.parts.windows.countdown() if w is not None and w.kind != "vote" else None
        self.display(v.JudgeStatus(phase, self._turn_words(), cd, lines))

    def _newest_told(self) -> tuple[v.Text, ...]:
        """The newest lines the remote was told that its list shows whole, wrapped as the table's language
        wraps them (a long line takes two rows; the oldest give way)."""
        lang = Lang.parse(self.lang)
        shown: list[v.Text] = []
        rows = 0
        for line in reversed(self.remote_lines):
            words_ = line if isinstance(line, str) else line.zh if lang is Lang.ZH else line.en
            rows += len(wrap(words_, SMALL, W - 4))
            if rows > LIST_ROWS and shown:
                break
            shown.insert(0, line)
        return tuple(shown)

    def _ask_view(self, ask: RemoteAsk) -> v.JudgeAsk:
        c = BY_NAME[ask.command]
        choices = self.parts.judge.judge_choices(c.name) if c.takes else ()
        if ask.confirming:
            value = choices[min(ask.choice, len(choices) - 1)].value if choices else None
            return v.JudgeAsk(c.label, self.parts.judge.judge_question(c.name, value), words("press_again"))
        if not choices:
            return v.JudgeAsk(c.label, words("cmd_closed"), words("back_cancels"))
        return v.JudgeAsk(c.label, choices[min(ask.choice, len(choices) - 1)].label, words("choose_seat"))

    def _pick_words(self, ability: str, target: int | None) -> v.L10n:
        variant = self.setup.config.variant  # the board's own words first (开枪, W8), a variant file's too (解药)
        act = (action_name(ability, Lang.ZH, variant), action_name(ability, Lang.EN, variant))
        if target is None:
            return v.L10n(f"{act[0]}：不行动", f"{act[1]}: skip")
        n = self.label(target)
        return v.L10n(f"{act[0]}→{n}号", f"{act[1]}→{n}")

    def _turn_words(self) -> v.Text:
        """Whose turn it is, as the table's own screens say it ("4号发言", "杀手杀人", "投5号？")."""
        s, w = self.parts.loop.state, self.parts.windows.window
        assert s is not None
        p = engine.pending(s) if s.waiting is not None else None
        if p is None:
            return words("turn_none")
        kind = w.kind if w is not None else p.kind
        if kind in ("speeches", "last_words") and s.queue:
            n = self.label(s.queue[0])
            key = "turn_last_words" if kind == "last_words" else \
                "turn_defence" if p.step.startswith(("defence", "tie.")) else "turn_speech"
            return words(key, n=n)
        if kind == "vote" and p.step == TURN_VOTE:
            return words("turn_vote_of", n=self.label(p.seats[0]))
        if kind == "vote":
            return words("turn_vote_call", n=self.label(w.call[0])) if w is not None and w.call else words("turn_vote")
        if kind in ("night", "recognition"):
            roles = p.role.split("+") if p.role else []
            zh = "、".join(role_name(r, Lang.ZH) for r in roles)
            en = " & ".join(role_name(r, Lang.EN) for r in roles)
            if kind == "recognition" or p.ability == "recognise":
                return v.L10n(f"{zh}认同伴", f"{en}: meet")
            variant = self.setup.config.variant
            return v.L10n(f"{zh}{action_name(p.ability, Lang.ZH, variant)}", f"{en}: {action_name(p.ability, Lang.EN, variant)}")
        if kind == "candidacy":  # W10
            return words("turn_candidacy")
        if kind == sheriff.BADGE:
            return words("turn_badge", n=self.label(p.seats[0]))
        if kind == "direction" and p.step == sheriff.DIRECTION:
            return words("turn_sheriff_direction", n=self.label(p.seats[0]))
        if kind == "direction":
            return words("turn_direction")
        if kind == "defence_claim":
            return words("turn_defence_claim")
        if kind == "first_identity":
            return words("turn_first_identity")
        return v.L10n(p.step, p.step)
