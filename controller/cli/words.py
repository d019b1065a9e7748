"""The lines the command line prints around a game, in both of the table's languages.

``tianhei run --lang zh`` once printed an English header and footer around a Chinese transcript: every line a
person reads comes from here (or the screens' own tables) in the language the table speaks. Each entry is
(zh, en); ``tests/cli/test_words.py`` walks every catalogue and fails on a key missing in either language.
"""

from __future__ import annotations

import os
import shlex

from controller.screens.strings import Lang

WORDS: dict[str, tuple[str, str]] = {
    "run_header": ("{variant}，{players}人，种子 {seed}，机器人「{policy}」",
                   "{variant}, {players} players, seed {seed}, bots '{policy}'"),
    "run_winner": ("{winner}获胜，共{days}天（{events}个事件，牌桌时间{seconds}秒）",
                   "winner: {winner} after {days} days ({events} events, {seconds}s of table time)"),
    "run_no_winner": ("没有胜方，共{days}天（{events}个事件，牌桌时间{seconds}秒）",
                      "no winner after {days} days ({events} events, {seconds}s of table time)"),
    "run_stopped": ("在{seconds}秒处停止；用同一个 --journal 再运行即可继续",
                    "stopped at {seconds}s; run again with the same --journal to resume"),
    "run_replay": ("重放这局：{command}", "to play it again: {command}"),
    "saved_closed": ("存档的对局（{where}）已关闭，标记为放弃并保留在日志中；开始新的一局",
                     "the saved game ({where}) was closed, kept in the journal marked abandoned; a new game starts"),
    "saved_resumed_same": ("从日志继续未完成的对局（{where}；同一局）",
                           "resuming the journal's unfinished game from what it holds ({where}; the same game)"),
    "saved_resumed_own": ("从日志继续未完成的对局（{where}；按它自己的设置继续）",
                          "resuming the journal's unfinished game from what it holds ({where}; going on with it "
                          "under its own settings)"),
    "table_head": ("模拟牌桌：{variant}，{n}人，机器人按“{policy}”策略玩（没有显示器；在桌面上运行会打开窗口）",
                   "Simulated table: {variant}, {n} players, bots playing '{policy}' (no display; on a desktop a "
                   "window opens)"),
    "table_seed": ("种子 {seed}（用 --seed {seed} 重玩这一局）", "Seed {seed} (replay this game with --seed {seed})"),
    "table_over": ("游戏结束：{winner}", "Game over: {winner}"),
    "table_closed": ("牌桌停了，这一局还没下完（种子 {seed}）",
                     "The table stopped before the end of the game (seed {seed})"),
    "table_end": ("共{days}天，牌桌时间{minutes}分钟。重玩：{replay}",
                  "{days} days, {minutes} minutes of table time. Replay: {replay}"),
    "evening_read": ("这个晚上的记录在 {club}：{command}", "the evening's records are in {club}: {command}"),
}

#: Set by ``./dev`` to the path it was called by: after the README's setup ``tianhei`` is not on PATH, and a hint
#: naming it would not work where the person stands.
COMMAND_ENV = "TIANHEI_COMMAND"


def command(*words: object) -> str:
    """A command line the person can paste where they stand: ``./dev records ...`` when they came through
    ``./dev``, ``tianhei records ...`` when the console script is what they ran."""
    head = os.environ.get(COMMAND_ENV) or "tianhei"
    return " ".join([shlex.quote(head), *(shlex.quote(str(w)) for w in words)])


def say(key: str, lang: Lang | str, **fields: object) -> str:
    """``key``'s line in ``lang`` ("zh"/"en" or a :class:`Lang`), its fields filled in."""
    zh, en = WORDS[key]
    chinese = lang is Lang.ZH or lang == "zh"
    return (zh if chinese else en).format(**fields)
