"""The judge's choice on the remote when the journal's unfinished game is not the game the table was asked for.

The remote lists what differs and the two ways forward; UP/DOWN choose, CENTER confirms. The seats say that the
judge is deciding (they show no role: nothing of the saved game is on them until it is resumed). A table whose
remote never answers waits, as every table waits for its judge: never a crash, never a restart loop.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.director.saved import ABANDON, FLAGS, RESUME, SavedGame
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


def question_lines(saved: SavedGame, lang: str, *, window: bool, remote: bool, terminal: bool) -> list[str]:
    """The question as the person who started the table reads it, in the table's language: what is saved, what
    differs, and every way out that works where they are (the window's keys, the remote, the terminal, the
    flags). ``tianhei table --seat 3`` after an interrupted game once waited silently with one English log line."""
    zh = lang == "zh"
    identity = saved.replay.identity
    what = identity.summary() if identity is not None else ("一局游戏" if zh else "a game")
    differs = ("；" if zh else "; ").join(saved.differences)
    lines = [f"日志里有一局未完成的游戏，不是这次要开的这局：{differs}" if zh else
             f"The journal holds an unfinished game that is not the one asked for: {differs}",
             f"  {what}；{saved.where()}" if zh else f"  {what}; {saved.where()}"]
    ways = []
    if window:
        ways.append("在窗口里按 R 继续它，按 A 结束它（保留在日志中）并开新局" if zh else
                    "in the window: R goes on with it, A closes it (kept in the journal) and starts the new game")
    if remote:
        ways.append("在法官遥控器上用 ▲▼ 选择、按中键确认" if zh else
                    "on the judge's remote: ▲▼ to choose, the centre key to confirm")
    if terminal:
        ways.append("在这里输入 r（继续）或 a（结束并开新局）再按回车" if zh else
                    "here: type r (go on) or a (close it, start new) and Enter")
    ways.append(f"或者用 {FLAGS[RESUME]} / {FLAGS[ABANDON]} 重新运行" if zh else
                f"or run again with {FLAGS[RESUME]} / {FLAGS[ABANDON]}")
    lines += ["  " + way for way in ways]
    return lines
