"""The judge's choice on the remote when the journal's unfinished game is not the game the table was asked for.

The remote lists what differs and the two ways forward; UP/DOWN choose, CENTER confirms. The seats say that the
judge is deciding (they show no role: nothing of the saved game is on them until it is resumed). A table whose
remote never answers waits, as every table waits for its judge: never a crash, never a restart loop.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.director.saved import ABANDON, RESUME, SavedGame
from controller.ports import InputEvent, RemoteKey, RemoteKeyEvent, Table
from controller.screens import views as v
from controller.screens.render import render

#: The two rows the judge chooses between, in the order shown.
CHOICES = ((RESUME, v.L10n("继续保存的游戏", "go on with saved game")),
           (ABANDON, v.L10n("结束它, 开新游戏", "close it, start new")))


class SavedGameChoice:
    def __init__(self, table: Table, saved: SavedGame, on_choice: Callable[[str], None], *,
                 lang: str = "zh") -> None:
        self.table = table
        self.saved = saved
        self.on_choice = on_choice
        self.lang = lang
        self.row = 0
        self.chosen: str | None = None

    def start(self) -> None:
        self.table.start(self.handle)
        self._draw()

    def handle(self, event: InputEvent) -> None:
        if self.chosen is not None or not isinstance(event, RemoteKeyEvent) or not event.pressed:
            return  # the seats' buttons and cards mean nothing yet
        if event.key in (RemoteKey.UP, RemoteKey.DOWN):
            self.row = (self.row + (1 if event.key is RemoteKey.DOWN else -1)) % len(CHOICES)
            self._draw()
        elif event.key is RemoteKey.CENTER:
            self.chosen = CHOICES[self.row][0]
            self.on_choice(self.chosen)

    def items(self) -> tuple[v.Text, ...]:
        """What the remote lists: the saved game, each difference, then the two choices (the cursor's rows)."""
        identity = self.saved.replay.identity
        head: tuple[v.Text, ...] = (identity.summary() if identity else "saved game", self.saved.where())
        return head + self.saved.differences + tuple(label for _, label in CHOICES)

    def _draw(self) -> None:
        for _seat, port in self.table.seats.items():
            port.display(render(v.Message(v.L10n("请稍候", "Please wait"),
                                          v.L10n("法官正在选择", "The judge is choosing")), self.lang))
        remote = self.table.remote
        if remote is not None:
            items = self.items()
            cursor = len(items) - len(CHOICES) + self.row
            remote.display(render(v.JudgeList(v.L10n("保存的游戏不同", "Saved game differs"), items, cursor),
                                  self.lang))
