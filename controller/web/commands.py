"""The judge's commands from the console, with the handheld's confirmations, called on the director.

Each command names the director's method it calls, whether it takes a seat, and the question asked before it
runs when it cannot be taken back lightly (undo, eject, penalty, surrender, end the timer, redeal, abort: the
handheld asks for a second press; the page asks "Eject seat 5?" and sends the command again, confirmed). The
server refuses an unconfirmed one, so a page that skipped the question changes nothing.

The director does not know which remote called: these are the same methods the handheld's menu calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.ports import RemoteKey, RemoteKeyEvent
from controller.web.views import commands_open

if TYPE_CHECKING:
    from controller.director.director import Director
    from controller.director.lobby import Lobby


@dataclass(frozen=True)
class Outcome:
    """What the page shows after a command: done, refused (with the rule or the reason), or a question."""

    ok: bool
    en: str
    zh: str
    status: int = 200
    confirm: bool = False

    def as_json(self) -> dict[str, object]:
        key = "confirm" if self.confirm else "message" if self.ok else "error"
        return {"ok": self.ok, key: {"en": self.en, "zh": self.zh}}


@dataclass(frozen=True)
class Command:
    method: str
    #: (en, zh) question asked before running, with ``{seat}`` filled in; None: runs at once.
    confirm: tuple[str, str] | None = None
    seat: bool = False


COMMANDS: dict[str, Command] = {  # the questions in the words of the handheld's menu
    "pause": Command("pause"),
    "resume": Command("resume_play"),
    "repeat": Command("repeat"),
    "extend": Command("extend"),
    "end_timer": Command("end_timer", ("End timer?", "结束计时？")),
    "undo": Command("undo", ("Undo last input?", "撤销上一步？")),
    "eject": Command("eject", ("Eject: Seat {seat}?", "请出场：{seat}号？"), seat=True),
    "penalty": Command("penalty", ("Penalty point: Seat {seat}?", "罚分：{seat}号？"), seat=True),
    "surrender": Command("surrender", ("Surrender: Seat {seat}?", "投降：{seat}号？"), seat=True),
    "judge_pick": Command("judge_pick"),
    "direction": Command("choose_direction"),
    "redeal": Command("redeal", ("Redeal?", "重新发牌？")),
    "abort": Command("abort", ("Abort game?", "中止游戏？")),
}

#: Lobby commands (``tianhei table --checkin``): the handheld's centre key and ◀/▶ on the check-in page.
LOBBY = ("start", "players")

DONE = ("Done", "已执行")


def run(director: Director | None, lobby: Lobby | None, name: str, args: Mapping[str, Any],
        confirmed: bool) -> Outcome:
    """Run one command (on the loop, between two director steps)."""
    if name in LOBBY:
        return _lobby(lobby, director, name, args)
    if director is not None and hasattr(director, "judge_menu"):
        return _by_the_door(director, name, args, confirmed)
    spec = COMMANDS.get(name)
    if spec is None:
        return Outcome(False, f"unknown command {name!r}", f"未知指令 {name!r}", 400)
    if director is None:
        return Outcome(False, "the game has not been dealt yet", "游戏尚未开始", 409)
    if not commands_open(director).get(name, False):
        return Outcome(False, f"{name.replace('_', ' ')} is not possible now", "现在不能执行该指令", 409)
    try:
        call = _bind(director, name, spec, args)
    except ValueError as exc:
        return Outcome(False, str(exc), f"参数错误：{exc}", 400)
    if spec.confirm is not None and not confirmed:
        seat = director.label(int(args["seat"])) if spec.seat else ""
        en, zh = spec.confirm
        return Outcome(True, en.format(seat=seat), zh.format(seat=seat), 200, confirm=True)
    before = len(director.transcript)
    result = call()
    refused = next((line.what for line in director.transcript[before:] if line.what.startswith("refused")), None)
    if refused is not None or result is False:
        why = refused or f"{name} refused"
        return Outcome(False, why, f"被拒绝：{why}", 409)
    return Outcome(True, *DONE)


#: Where each kind of value a command takes is found in the page's ``args``.
_VALUE = {"seat": "seat", "target": "target", "direction": "clockwise", "seconds": "seconds"}


def _by_the_door(d: Any, name: str, args: Mapping[str, Any], confirmed: bool) -> Outcome:
    """Through the director's one door for every remote (``judge_menu``/``judge_question``/``judge``, the table of
    commands in controller/director/judge_commands.py): the same limits, questions and outcomes as the handheld.
    A command not open now, or a value not among its choices, goes straight to the door, which refuses it and
    changes nothing; a command the table says must be asked about is asked about first."""
    offer = next((o for o in d.judge_menu() if o.command.name == name), None)
    if offer is None:
        return Outcome(False, f"unknown command {name!r}", f"未知指令 {name!r}", 400)
    key = _VALUE.get(offer.command.takes)
    value = args.get(key) if key else None
    valid = offer.command.takes in ("", "seconds") or value in [c.value for c in offer.choices]
    if offer.open and valid and offer.command.confirm and not confirmed:
        question = d.judge_question(name, value)
        return Outcome(True, question.en, question.zh, 200, confirm=True)
    done = d.judge(name, value)
    status = 200 if done.ok else 400 if done.code in ("unknown", "not_a_choice") else 409
    return Outcome(done.ok, done.message.en, done.message.zh, status)


def _bind(d: Director, name: str, spec: Command, args: Mapping[str, Any]) -> Callable[[], Any]:
    """The director call with its checked arguments (a bad argument is a ValueError naming it)."""
    method = getattr(d, spec.method)
    if spec.seat:
        seat = _seat(args.get("seat"), d.config.players, "seat")
        return lambda: method(seat)
    if name == "extend":
        seconds = args.get("seconds", 30)
        if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not 5 <= seconds <= 600:
            raise ValueError("seconds must be a number from 5 to 600")
        return lambda: method(float(seconds))
    if name == "judge_pick":
        target = args.get("target")
        chosen = None if target is None else _seat(target, d.config.players, "target")
        return lambda: method(chosen)
    if name == "direction":
        clockwise = args.get("clockwise")
        if not isinstance(clockwise, bool):
            raise ValueError("clockwise must be true or false")
        return lambda: method(clockwise)
    return method


def _seat(value: object, players: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= players:
        raise ValueError(f"{what} must be a seat from 1 to {players}")
    return value


def _lobby(lobby: Lobby | None, director: Director | None, name: str, args: Mapping[str, Any]) -> Outcome:
    """The check-in page: start the game, or set the count (the handheld's ◀/▶)."""
    if lobby is None or lobby.started or director is not None:
        return Outcome(False, "there is no check-in going on", "当前没有签到", 409)
    if name == "players":
        step = args.get("step")
        if step not in (-1, 1):
            return Outcome(False, "step must be -1 or 1", "参数错误：step 应为 -1 或 1", 400)
        key = RemoteKey.RIGHT if step == 1 else RemoteKey.LEFT
    else:
        problem = lobby.ready()
        if problem is not None:
            return Outcome(False, f"cannot start: {problem}", f"无法开始：{problem}", 409)
        key = RemoteKey.CENTER
    if lobby.page != "checkin":
        lobby.handle(RemoteKeyEvent(RemoteKey.MENU, True, 0.0))
    lobby.handle(RemoteKeyEvent(key, True, 0.0))
    return Outcome(True, *DONE)
