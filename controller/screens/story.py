"""The whole story of a finished game, in words, for the judge's remote (issue: "the remote shows the whole
story").

Built from the game's events alone (the journal *is* the game), so a resumed table tells the same story. It is
for after the end: it names roles and night choices, so the director shows it only once the game is over
(C4). Lines are wrapped to the remote's 128 px width so the list scrolls line by line instead of cutting a
sentence off with "…".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controller.rules.events import (
    Acted,
    BadgeChanged,
    Candidacy,
    Dawn,
    DayBroke,
    Dealt,
    Died,
    ElectionClosed,
    Event,
    GameCreated,
    GameEnded,
    NightFell,
    Opened,
    Penalised,
    TieRound,
    VoteClosed,
    Voted,
)
from controller.rules.sheriff import VOTES as SHERIFF_VOTES
from controller.rules.words import KILLER_GAME
from controller.rules.words import shared as shared_words
from controller.screens.canvas import W, wrap
from controller.screens.fonts import SMALL
from controller.screens.numbering import Label, labels, plain
from controller.screens.strings import Lang, action_name, own_word, own_words, role_name, winner_name

#: The remote's list leaves 4 px for its scrollbar.
WIDTH = W - 4

_WORDS: dict[str, tuple[str, str]] = {
    "night": ("第{n}夜", "Night {n}"),
    "day": ("第{n}天", "Day {n}"),
    "skipped": ("不行动", "no action"),
    "forfeited": ("超时放弃", "forfeited (time)"),
    "random": ("随机", "at random"),
    "judge": ("法官录入", "judge entry"),
    # a check's answer (V2.2) in the killer game's shared words; a variant's own [words.answers] win (W5: 狼人)
    **{answer: shared_words(KILLER_GAME).table("answers")[answer] for answer in ("nod", "shake", "none")},
    "recognised": ("认同伴", "met"),
    "dawn_none": ("天亮：平安夜", "Dawn: nobody died"),
    "dawn": ("天亮：{seats}号死亡", "Dawn: {seats} died"),
    "votes_for": ("{n}号←{voters}", "#{n} <- {voters}"),
    "abstain": ("弃权：{voters}", "abstained: {voters}"),
    "out": ("投票：{n}号出局", "Vote: {n} is out"),
    "tie": ("平票：{seats}", "Tie: {seats}"),
    "nobody": ("投票：无人出局", "Vote: nobody out"),
    "tie_revote": ("平票程序：重新投票", "Tie: revote"),
    "tie_nobody_out": ("平票程序：无人出局", "Tie: nobody out"),
    "tie_draw": ("三次平票：平局", "Third tie: draw"),
    "executed": ("{n}号被投出", "{n} voted out"),
    "ejected": ("{n}号被罚出局", "{n} ejected"),
    "surrendered": ("{n}号投降", "{n} surrendered"),
    "died": ("{n}号死亡", "{n} died"),
    "penalty": ("{n}号罚分（共{t}）", "{n} penalty ({t} in all)"),
    "winner": ("结局：{side}胜", "The end: {side} won"),
    "draw": ("结局：平局", "The end: a draw"),
    "sheriff_run": ("上警：{seats}号", "Candidates: {seats}"),
    "sheriff_withdrew": ("{n}号退水", "{n} withdrew"),
    "sheriff_postponed": ("自爆：警长竞选推迟到明天", "Self-destruct: the election waits a day"),
    "sheriff_none": ("本局无警长", "No sheriff this game"),
    "sheriff_elected": ("{n}号当选警长", "{n} is sheriff"),
    "badge_passed": ("警徽移交{n}号", "Badge passed to {n}"),
    "badge_torn": ("警徽被撕毁", "Badge torn"),
    "roles": ("身份", "Roles"),
    "role": ("{n}号 {role}", "{n} {role}"),
}


def _w(key: str, lang: Lang, **fields: object) -> str:
    zh, en = _WORDS[key]
    return (zh if lang is Lang.ZH else en).format(**fields)


def story(events: Sequence[Event], lang: Lang | str = Lang.ZH, label: Label = plain) -> tuple[str, ...]:
    """The game as the judge would tell it: the result, every night's choices and their answers, each dawn,
    each vote (who raised a hand for whom), the deaths by day, then every seat's role. Seats are written
    through ``label`` (D2: a card place as seat and card, "7-1")."""
    lang = Lang.parse(lang)

    def _seats(seats: Sequence[int]) -> str:
        return labels(seats, label)

    roles: tuple[str, ...] = ()
    lines: list[str] = []
    hands: dict[int | None, list[int]] = {}
    ending: str | None = None
    variant = ""  # the version played, whose file names the winning side (its [words.sides])
    sheriff_vote = race = False  # W10: the open vote elects the sheriff; the candidates are speaking
    for e in events:
        if isinstance(e, GameCreated):
            variant = str(e.variant.get("id", "")) if isinstance(e.variant, Mapping) else ""
        elif isinstance(e, Dealt):
            roles = e.roles
        elif isinstance(e, NightFell):
            lines.append(_w("night", lang, n=e.night))
        elif isinstance(e, Acted) and e.ability != "defence":
            lines.extend(_acted(e, roles, lang, label, variant))
        elif isinstance(e, Dawn):
            lines.append(_w("dawn", lang, seats=_seats([s for s, _ in e.deaths])) if e.deaths
                         else _w("dawn_none", lang))
            lines.append(_w("day", lang, n=e.night))
        elif isinstance(e, DayBroke):
            lines.append(_w("day", lang, n=e.day))
        elif isinstance(e, Voted):
            hands.setdefault(e.target, []).append(e.seat)
        elif isinstance(e, VoteClosed):
            for target, voters in sorted(hands.items(), key=lambda tv: (tv[0] is None, tv[0] or 0)):
                key = "abstain" if target is None else "votes_for"
                n = None if target is None else label(target)
                lines.append(_w(key, lang, n=n, voters=_seats(sorted(voters))))
            hands = {}
            if sheriff_vote and not e.tied:
                pass  # W10: the election's result has its own line
            elif e.out is not None:
                lines.append(_w("out", lang, n=label(e.out)))
            elif e.tied:
                lines.append(_w("tie", lang, seats=_seats(e.tied)))
            else:
                lines.append(_w("nobody", lang))
        elif isinstance(e, Opened) and e.kind == "vote":
            sheriff_vote = e.step in SHERIFF_VOTES
        elif isinstance(e, Candidacy) and race and not e.running:
            lines.append(_w("sheriff_withdrew", lang, n=label(e.seat)))
        elif isinstance(e, ElectionClosed):
            race = e.outcome == "run"
            key = {"run": "sheriff_run", "postponed": "sheriff_postponed"}.get(e.outcome, "sheriff_none")
            lines.append(_w(key, lang, seats=_seats(e.candidates)))
        elif isinstance(e, BadgeChanged):
            race = False
            key = {"elected": "sheriff_elected", "passed": "badge_passed"}.get(e.how, "badge_torn")
            lines.append(_w(key, lang, n=label(e.seat)))
        elif isinstance(e, TieRound) and e.outcome != "no_sheriff":
            lines.append(_w({"draw": "tie_draw", "nobody_out": "tie_nobody_out"}.get(e.outcome, "tie_revote"), lang))
        elif isinstance(e, Died):
            key = e.cause if e.cause in ("executed", "ejected", "surrendered") else "died"
            lines.append(_w(key, lang, n=label(e.seat)))
        elif isinstance(e, Penalised):
            lines.append(_w("penalty", lang, n=label(e.seat), t=e.total))
        elif isinstance(e, GameEnded):
            ending = (_w("draw", lang) if e.winner == "draw"
                      else _w("winner", lang, side=winner_name(e.winner, lang, variant)))
    head = [ending] if ending else []
    tail = [_w("roles", lang)] + [_w("role", lang, n=label(i), role=role_name(r, lang))
                                  for i, r in enumerate(roles, 1)]
    return tuple(part for line in (*head, *lines, *tail) for part in wrap(line, SMALL, WIDTH))


def _acted(e: Acted, roles: tuple[str, ...], lang: Lang, label: Label = plain, variant: str = "") -> list[str]:
    """"杀手 1 2 杀人 → 5"; "Police 3 4 Check -> 2" and the answer on a line of its own ("  = killer")."""
    who = "+".join(role_name(r, lang) for r in sorted({roles[a - 1] for a in e.actors if 0 < a <= len(roles)}))
    head = f"{who} {labels(e.actors, label)}".strip()
    if e.ability == "recognise":
        return [f"{head} {_w('recognised', lang)}"]
    arrow = "→" if lang is Lang.ZH else "->"
    what = action_name(e.ability, lang, variant)
    if e.target is None:
        return [f"{head} {what}: {_w(e.how if e.how in ('forfeited',) else 'skipped', lang)}"]
    lines = [f"{head} {what} {arrow} {label(e.target)}"]
    if e.how in ("random", "judge"):
        lines[0] += f" ({_w(e.how, lang)})"
    if e.result in ("nod", "shake", "none"):
        answer = own_word(own_words(variant, "answers", e.result), lang) or _w(e.result, lang)  # W5: 狼人
        lines.append(f"  = {answer}")
    return lines
