"""What the console's pages are sent, as plain JSON-able mappings: the judge's view and the public view.

The judge's view is what the handheld remote shows, with room for more: every seat's role and state, tonight's
choices as they are made, whose turn it is with its countdown, the messages the remote would show, and the story
of the game so far (the judge knows everything; C4 only limits what the room hears). It is read from the director
the way the remote's screen is drawn, and goes only to a paired phone's socket.

The public view is the board's, exactly: :func:`controller.board.public.public_facts` decides what the room may
see, and this module passes it on without adding anything (the pairing code stays on the board in the room, never
on a page anyone on the network can open).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from controller.board.words import board_lines
from controller.rules import sheriff
from controller.rules.turns import TURN_VOTE
from controller.screens.story import story
from controller.screens.strings import UI, Lang, action_name, role_name, side_name, ui, winner_name
from controller.screens.views import L10n, Text

if TYPE_CHECKING:
    from controller.director.director import Director
    from controller.director.lobby import Lobby

#: Words the judge's view needs that the screens' table (controller/screens/strings.py) does not have; the rest
#: are the handheld's own words (``turn_speech``, ``game_over``, ...).
WORDS: dict[str, tuple[str, str]] = {
    "vote_call": ("投票：{n}号？", "Vote: seat {n}?"),
    "night": ("{who} {seats} {what}", "{who} {seats}: {what}"),
    "direction": ("法官选择发言方向", "The judge picks the direction"),
    "first_identity": ("选择先手身份", "Choosing the first card"),
    "recognition": ("{who} 认同伴", "{who}: meet partners"),
    "deal": ("发牌中", "Dealing"),
    "waiting": ("等待", "Waiting"),
    "announcing": ("播报中…", "Announcing…"),
}


def _w(key: str, lang: Lang, **fields: object) -> str:
    zh, en = WORDS[key]
    return (zh if lang is Lang.ZH else en).format(**fields)


def public_view(facts: Mapping[str, object] | None, lang: Lang | str) -> dict[str, object]:
    """The board's facts as the public page gets them, with the board's own lines in ``lang`` (the words the big
    screen in the room shows; nothing added, nothing from the judge's side)."""
    board = dict(facts) if facts is not None else {"gesture": "deal"}
    lines = [{"text": line.text, "size": line.size.value, "tone": line.tone.value, "items": list(line.items)}
             for line in board_lines(board, lang)]
    return {"kind": "public", "board": board, "lines": lines}


def judge_view(director: Director | None, lang: Lang | str, *, lobby: Lobby | None = None,
               phones: int = 0, now: float | None = None) -> dict[str, Any]:
    """Everything the judge may know now, in ``lang``."""
    lang = Lang.parse(lang)
    if director is None:
        return _lobby_view(lobby, lang, phones)
    d = director
    s = d.state
    label = d.label
    now = d.clock.now() if now is None else now
    view: dict[str, Any] = {"kind": "judge", "stage": d.stage, "paused": d.paused, "phones": phones,
                            "variant": d.config.variant.id, "players": d.config.players,
                            "lines": [_text(line, lang) for line in list(d.remote_lines)[-6:]],
                            "judge_entry": d.judge_entry}
    if s is None or not s.roles:
        view.update(headline=_w("deal", lang), seats=[], story=[], turn=None, countdown=None,
                    commands=commands_open(d))
        return view
    w = d.window
    picks = s.picks if w is not None and w.kind == "night" else {}
    waking = set(w.seats) if w is not None else set()
    seats = []
    for n in range(1, s.players + 1):
        target = picks.get(n)
        seats.append({
            "seat": n, "label": label(n), "role": role_name(s.role_of(n), lang), "role_id": s.role_of(n),
            "side": side_name(s.side_of(n), lang), "alive": n in s.alive,
            "penalties": int(s.penalties.get(n, 0)),
            "pick": None if n not in picks else ("-" if target is None else label(target)),
            "acting": n in waking and (w is not None and w.kind in ("night", "recognition")),
        })
    when = ui("night", lang, d=s.night) if s.phase == "night" else ui("day", lang, d=s.day)
    commands = commands_open(d)
    view.update(phase=s.phase, night=s.night, day=s.day, seats=seats, headline=when,
                turn=_turn(d, lang), countdown=_countdown(d, now),
                story=_story(d, lang), commands=commands)
    choices = _choices(d, commands)
    view.update(choices=[label(c) if c is not None else None for c in choices], choice_seats=choices)
    if d.stage == "deal":  # a digital deal: the roles are known, the players are still looking at theirs
        view["headline"] = _w("deal", lang)
    if d.stage == "over" or s.over:
        winner = s.winner or "draw"
        view["headline"] = ui("draw", lang) if winner == "draw" else ui("winner", lang, side=winner_name(winner, lang, d.config.variant))
    return view


_told: dict[tuple[int, int, int, Lang], list[str]] = {}


def _story(d: Director, lang: Lang) -> list[str]:
    """The story so far, told again only when an event was added or undone (it is most of a view's cost, and a
    view is built every second while a countdown runs)."""
    key = (id(d), len(d.events), id(d.events[-1]) if d.events else 0, lang)
    told = _told.get(key)
    if told is None:
        if len(_told) > 8:
            _told.clear()
        told = _told[key] = list(story(d.events, lang, d.label))
    return told


def _text(line: Text, lang: Lang) -> str:
    """A remote line as text: plain, or in both languages (an ``L10n``), of which ``lang``'s."""
    if isinstance(line, L10n):
        return line.zh if lang is Lang.ZH else line.en
    return line


def _lobby_view(lobby: Lobby | None, lang: Lang, phones: int) -> dict[str, Any]:
    """Before the deal (``tianhei table --checkin``): who checked in and the deck to lay out."""
    view: dict[str, Any] = {"kind": "judge", "stage": "checkin" if lobby is not None else "idle",
                            "paused": False, "phones": phones, "seats": [], "story": [], "turn": None,
                            "countdown": None, "lines": [], "headline": ui("lobby_checkin", lang) if lobby else
                            _w("waiting", lang)}
    if lobby is not None and not lobby.started:
        view["lines"] = [_text(line, lang) for line in lobby.remote_lines[-6:]]  # e.g. lines that will be silent
        view.update(variant=lobby.variant.id, players=lobby.players(), joined=sorted(lobby.joined),
                    deck=_deck(lobby, lang), problem=lobby.problem(lang),
                    commands={"start": lobby.ready() is None, "players": True})
    else:
        view["commands"] = {}
    return view


def _deck(lobby: Lobby, lang: Lang) -> str:
    """The cards to lay out for the count checked in, in ``lang`` ("2 杀手, 2 警察, 4 平民"), or why that count
    cannot play."""
    from controller.rules.setup import configure
    from controller.rules.variant import VariantError

    n = lobby.players()
    if n == 0:
        return ""  # nobody checked in yet: no deck to lay out (the problem line says so)
    try:
        config = configure(lobby.variant, n, lobby.options)
    except VariantError as exc:
        return UI["lobby_cannot"][0].format(n=n) if lang is Lang.ZH else exc.problem
    return ", ".join(f"{count} {role_name(role, lang)}" for role, count in config.composition)


def _turn(d: Director, lang: Lang) -> str:
    s, w = d.state, d.window
    assert s is not None
    if d.stage == "over":
        return ui("game_over", lang)
    if w is None:
        return _w("announcing", lang)
    if w.kind in ("speeches", "last_words") and s.queue:
        return ui("turn_last_words" if w.kind == "last_words" else "turn_speech", lang, n=d.label(s.queue[0]))
    if w.kind == "vote" and w.step == TURN_VOTE:
        return ui("turn_vote", lang) + " " + ui("seat", lang, n=d.label(w.seats[0]))
    if w.kind == "vote":
        return _w("vote_call", lang, n=d.label(w.call[0])) if w.call is not None else ui("turn_vote", lang)
    if w.kind == "night":
        who = "+".join(sorted({role_name(s.role_of(n), lang) for n in w.seats}))
        what = action_name(d._action(w.step), lang, d.config.variant)
        return _w("night", lang, who=who, seats=" ".join(d.label(n) for n in w.seats), what=what)
    if w.kind == "recognition":
        return _w("recognition", lang, who="+".join(sorted({role_name(s.role_of(n), lang) for n in w.seats})))
    if w.kind == "defence_claim":
        return ui("turn_defence_claim", lang)
    if w.kind == "candidacy":  # W10: the sheriff election's waits, in the handheld's words
        return ui("turn_candidacy", lang)
    if w.kind == sheriff.BADGE:
        return ui("turn_badge", lang, n=d.label(w.seats[0]))
    if w.kind == "direction" and w.step == sheriff.DIRECTION:
        return ui("turn_sheriff_direction", lang, n=d.label(w.seats[0]))
    if w.kind in ("direction", "first_identity"):
        return _w(w.kind, lang)
    return w.step


def _countdown(d: Director, now: float) -> dict[str, float] | None:
    w = d.window
    if w is None or (w.kind == "vote" and w.step != TURN_VOTE):
        return None
    left = d.paused_left if d.paused and d.paused_left is not None else w.deadline - now
    return {"remaining": round(max(0.0, left), 1), "total": round(w.total, 1)}


def commands_open(d: Director) -> dict[str, bool]:
    """Which commands are open now, by the director's table (controller/director/judge_commands.py), the same
    that draws the handheld's menu: the page greys out the others, and the director checks again."""
    return {offer.command.name: offer.open for offer in d.judge_menu()}


def _choices(d: Director, commands: Mapping[str, bool]) -> list[int | None]:
    """The targets the judge may enter for the waking group (judge entry), by the director's table: the seats,
    and ``None`` to skip."""
    if not d.judge_entry or not commands.get("judge_pick", False):
        return []
    return [c.value for c in d.judge_choices("judge_pick")]
