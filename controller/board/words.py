"""The board's public facts as lines of words, in Chinese (the default) or English.

Pure and separate from drawing so the wording can be read and tested without a display, and so the drawing module
knows nothing of the game. Words come from :mod:`controller.screens.strings` where the seat screens already say
the same thing (role, side and seat phrases), so the room and the seats never disagree; the few board-only words
are here. Input is only what :func:`controller.board.public.public_facts` let through (004 §3.10, C4).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from controller.screens.numbering import Label, plain, seat_and_card
from controller.screens.strings import Lang, role_name, ui, winner_name

#: Words for the judge's gestures (004 §3.10, §3.13), Chinese first.
GESTURES: dict[str, tuple[str, str]] = {
    "deal": ("发牌", "Deal"), "eyes_closed": ("天黑请闭眼", "Night: eyes closed"), "day": ("天亮了", "Day breaks"),
    "speech": ("发言", "Speech"), "last_words": ("遗言", "Last words"), "vote": ("投票", "Vote"),
    "paused": ("暂停", "Paused"), "over": ("游戏结束", "Game over"),
    "sheriff_election": ("警长竞选", "Sheriff election"),  # W10
    "standings": ("今晚积分榜", "Tonight's standings"),  # between games (V2.13, controller/club)
}

#: Board-only phrases; ``{n}`` is a seat number.
BOARD: dict[str, tuple[str, str]] = {
    "speaker": ("{n}号  {s}秒", "Seat {n}  {s}s"),
    "candidate": ("投{n}号？", "Vote for seat {n}?"),
    "dead": ("出局：", "Out: "),
    "votes": ("计票：", "Votes: "),
    "vote_item": ("{n}号{v}票", "{n}:{v}"),
    "tied": ("平票：", "Tie: "),
    "shown": ("亮牌：", "Shown: "),  # W9, W11
    "running": ("上警：", "Running: "),  # W10
    "withdrawn": ("退水：", "Withdrew: "),
    "sheriff": ("警长：{n}号", "Sheriff: seat {n}"),
    "role_item": ("{n}号 {role}", "{n}: {role}"),
    "standing": ("{rank}. {member}  {points}分", "{rank}. {member}  {points}"),
    "no_standings": ("今晚还没有结束的游戏", "No game has ended tonight"),
    # the judge's console (controller/web/): shown while a phone may pair
    "pairing": ("法官手机配对码 {code}  {url}", "Judge's phone: code {code} at {url}"),
    # the start of the console's certificate fingerprint (HTTPS), which the judge compares on the phone
    "fingerprint": ("证书指纹 SHA-256 {fp} …", "Certificate SHA-256 {fp} …"),
}

#: The board shows this many of the evening's standings (the rest are in ``tianhei records standings``).
STANDINGS_SHOWN = 10


class Size(enum.Enum):
    """How loud a line is: a headline the back of the room reads, or a detail line."""

    BIG = "big"
    SMALL = "small"


class Tone(enum.Enum):
    """A line's colour role (the drawing module picks the colours)."""

    ACCENT = "accent"
    TEXT = "text"
    DIM = "dim"


@dataclass(frozen=True)
class Line:
    """One line of the board. ``items`` set means: a list the drawer may wrap between items (never inside one),
    after the ``text`` lead-in."""

    text: str
    size: Size
    tone: Tone
    items: tuple[str, ...] = ()


def _w(table: Mapping[str, tuple[str, str]], key: str, lang: Lang, **fields: object) -> str:
    zh, en = table[key]
    return (zh if lang is Lang.ZH else en).format(**fields)


def board_lines(public: Mapping[str, object], lang: Lang | str = Lang.ZH) -> list[Line]:
    """What the board says for ``public`` (the mapping a :class:`controller.ports.Board` is shown), top down."""
    lang = Lang.parse(lang)
    # D2: the facts count card places; the room knows seats, so a place is written as its seat and card (7-1).
    label = seat_and_card if public.get("numbering") == "seat_and_card" else plain
    gesture = str(public.get("gesture", ""))
    head = _w(GESTURES, gesture, lang) if gesture in GESTURES else gesture
    if "day" in public and gesture != "deal":
        when = ui("night", lang, d=public.get("night")) if gesture == "eyes_closed" else \
            ui("day", lang, d=public.get("day"))
        head = f"{when} · {head}"
    lines = [Line(head, Size.BIG, Tone.ACCENT)]
    standings = public.get("standings")
    if gesture == "standings" and isinstance(standings, list):
        for row in standings[:STANDINGS_SHOWN]:
            if isinstance(row, Mapping):
                lines.append(Line(_w(BOARD, "standing", lang, rank=row.get("rank", ""), member=row.get("member", ""),
                                     points=f"{round(float(str(row.get('points', 0))), 1):g}"), Size.SMALL, Tone.TEXT))
        if not standings:
            lines.append(Line(_w(BOARD, "no_standings", lang), Size.SMALL, Tone.DIM))
    if "speaker" in public:
        lines.append(Line(_w(BOARD, "speaker", lang, n=_as(label, public["speaker"]), s=public.get("seconds", "")),
                          Size.BIG, Tone.TEXT))
    if "candidate" in public:
        lines.append(Line(_w(BOARD, "candidate", lang, n=_as(label, public["candidate"])), Size.BIG, Tone.TEXT))
    for key in ("running", "withdrawn"):  # W10: the election under way
        seats = public.get(key)
        if isinstance(seats, list) and seats:
            lines.append(Line(_w(BOARD, key, lang), Size.SMALL, Tone.TEXT,
                              tuple(ui("seat_short", lang, n=_as(label, s)) for s in seats)))
    if "sheriff" in public:
        lines.append(Line(_w(BOARD, "sheriff", lang, n=_as(label, public["sheriff"])), Size.SMALL, Tone.TEXT))
    dead = public.get("dead")
    if isinstance(dead, list) and dead:
        lines.append(Line(_w(BOARD, "dead", lang), Size.SMALL, Tone.DIM, tuple(_as(label, d) for d in dead)))
    shown = public.get("shown")
    if isinstance(shown, Mapping) and shown:
        lines.append(Line(_w(BOARD, "shown", lang), Size.SMALL, Tone.TEXT,
                          tuple(_w(BOARD, "role_item", lang, n=_as(label, k), role=role_name(str(r), lang))
                                for k, r in shown.items())))
    tally = public.get("tally")
    if isinstance(tally, list) and tally:
        lines.append(Line(_w(BOARD, "votes", lang), Size.SMALL, Tone.DIM,
                          tuple(_w(BOARD, "vote_item", lang, n=_as(label, s), v=n) for s, n in tally)))
        tied = public.get("tied")
        if isinstance(tied, list) and tied:
            lines.append(Line(_w(BOARD, "tied", lang), Size.SMALL, Tone.TEXT,
                              tuple(ui("seat_short", lang, n=_as(label, s)) for s in tied)))
        elif public.get("out") is not None:
            lines.append(Line(ui("tally_out", lang, n=_as(label, public["out"])), Size.SMALL, Tone.TEXT))
    if "winner" in public:
        winner = str(public["winner"])
        side = winner_name(winner, lang, str(public.get("variant", "")))  # in the version's own words
        said = ui("draw", lang) if winner == "draw" else ui("winner", lang, side=side)
        lines.append(Line(said, Size.BIG, Tone.ACCENT))
        roles = public.get("roles")
        if isinstance(roles, Mapping):
            lines.append(Line("", Size.SMALL, Tone.TEXT,
                              tuple(_w(BOARD, "role_item", lang, n=_as(label, k), role=role_name(str(r), lang))
                                    for k, r in roles.items())))
    pairing = public.get("pairing")
    if isinstance(pairing, Mapping):
        lines.append(Line(_w(BOARD, "pairing", lang, code=pairing.get("code", ""), url=pairing.get("url", "")),
                          Size.SMALL, Tone.DIM))
        if pairing.get("fingerprint"):
            lines.append(Line(_w(BOARD, "fingerprint", lang, fp=pairing["fingerprint"]), Size.SMALL, Tone.DIM))
    return lines


def _as(label: Label, number: object) -> str:
    """A seat (or D2 place) number from the facts, written for the room."""
    return label(int(str(number)))


def every_word() -> list[str]:
    """Every fixed phrase the board may show (both languages), for the glyph-coverage test."""
    return [w for table in (GESTURES, BOARD) for pair in table.values() for w in pair]
