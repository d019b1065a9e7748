"""The judge's handheld remote: its menu and its screens.

The judge sees everything (roles, tonight's picks, whose turn, the timer); once the game is over, the whole story
(C4). MENU opens the command list, UP/DOWN move, CENTER runs a command (undo asks twice). Kept apart from the
seats' output because the remote is the one screen allowed every secret.
"""

from __future__ import annotations

from controller.director.base import DirectorBase
from controller.director.seat_output import draw
from controller.ports import RemoteKey
from controller.screens import views as v
from controller.screens.story import story


class RemoteScreens(DirectorBase):
    """The remote's menu, keys and status screens."""

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

    def _remote(self, view: v.View) -> None:
        """The judge's screen, sent only when its view changed (a seat's press need not redraw the remote)."""
        remote = self.table.remote
        if remote is not None and view != self.remote_drawn:
            remote.display(draw(view, self.lang, self.label))
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
