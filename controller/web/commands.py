"""The judge's commands from the console: asked about, then run, through the director's one door for every remote.

The console holds no command table and no rule of its own: which commands are open, the choices they take, the
question asked before one that cannot be taken back lightly, and the outcome in words all come from the
director's table (``judge_menu``/``judge_question``/``judge``, controller/director/judge_commands.py), the same
the handheld's menu draws on, so the two remotes never disagree and the director does not know which one called.

The console's own part is the asking: where the table says a command must be confirmed (the handheld's second
press), the page gets the question ("Eject: Seat 5?") and sends the command again, confirmed. An unconfirmed one
is never run: it is asked about, or, when the door would refuse it anyway (not open now, a value not among its
choices), handed on only to be refused in the door's words. A page that skipped the question changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.ports import RemoteKey, RemoteKeyEvent
from controller.screens.strings import Lang
from controller.screens.views import L10n

if TYPE_CHECKING:
    from controller.director.director import Director
    from controller.director.judge_commands import Offer
    from controller.director.lobby import Lobby


@dataclass(frozen=True)
class Answer:
    """What the page is answered: done, refused (with the rule or the reason), or a question to confirm."""

    ok: bool
    message: L10n
    status: int = 200
    confirm: bool = False

    def as_json(self) -> dict[str, object]:
        key = "confirm" if self.confirm else "message" if self.ok else "error"
        return {"ok": self.ok, key: {"en": self.message.en, "zh": self.message.zh}}


#: Lobby commands (``tianhei table --checkin``): the handheld's centre key and ◀/▶ on the check-in page.
LOBBY = ("start", "players")

#: Where each kind of value a command takes (the table's ``takes``) is found in the page's ``args``.
_VALUE = {"seat": "seat", "target": "target", "direction": "clockwise", "seconds": "seconds"}

#: The table's refusals of a malformed call (the page's fault: 400); any other refusal is the game's (409).
_BAD_CALL = ("unknown", "not_a_choice")


def run(director: Director | None, lobby: Lobby | None, name: str, args: Mapping[str, Any],
        confirmed: bool) -> Answer:
    """Run one command (on the loop, between two director steps)."""
    if name in LOBBY:
        return _lobby(lobby, director, name, args)
    if director is None:
        return Answer(False, L10n("游戏尚未开始", "the game has not been dealt yet"), 409)
    offer = next((o for o in director.judge_menu() if o.command.name == name), None)
    value = _value(offer, args)
    if offer is not None and offer.command.confirm and not confirmed and _runs(offer, value):
        return Answer(True, director.judge_question(name, value), confirm=True)
    # an unknown name, a command not open now or a value not among its choices: the door refuses it, unchanged
    done = director.judge(name, value)
    return Answer(done.ok, done.message, 200 if done.ok else 400 if done.code in _BAD_CALL else 409)


def _value(offer: Offer | None, args: Mapping[str, Any]) -> Any:
    key = _VALUE.get(offer.command.takes) if offer is not None else None
    return args.get(key) if key else None


def _runs(offer: Offer, value: Any) -> bool:
    """Whether the door may take ``value`` now, so the question is worth asking. When this says no, the door
    refuses for certain (closed, or a value not among the choices, compared as the door compares them: ``True``
    is not seat 1), so the unconfirmed call that goes on to the door changes nothing. Seconds are any number in
    a range, not only the handheld's choices: asked about, and checked by the door once confirmed."""
    return offer.open and (offer.command.takes in ("", "seconds") or any(
        type(c.value) is type(value) and c.value == value for c in offer.choices))


def _lobby(lobby: Lobby | None, director: Director | None, name: str, args: Mapping[str, Any]) -> Answer:
    """The check-in page: start the game, or set the count (the handheld's ◀/▶)."""
    if lobby is None or lobby.started or director is not None:
        return Answer(False, L10n("当前没有签到", "there is no check-in going on"), 409)
    if name == "players":
        step = args.get("step")
        if step not in (-1, 1):
            return Answer(False, L10n("参数错误：step 应为 -1 或 1", "step must be -1 or 1"), 400)
        key = RemoteKey.RIGHT if step == 1 else RemoteKey.LEFT
    else:
        if lobby.ready() is not None:  # the lobby's reason in each language, never English inside the Chinese
            zh, en = lobby.problem(Lang.ZH), lobby.problem(Lang.EN)
            return Answer(False, L10n(f"无法开始：{zh}", f"cannot start: {en}"), 409)
        key = RemoteKey.CENTER
    if lobby.page != "checkin":
        lobby.handle(RemoteKeyEvent(RemoteKey.MENU, True, 0.0))
    lobby.handle(RemoteKeyEvent(key, True, 0.0))
    return Answer(True, L10n("已执行", "Done"))
