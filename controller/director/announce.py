"""What the voice says for each rule event and each turn: prompt IDs only (controller/voice/prompts.py), never
a role that is not public. Pure functions, so the secrecy of every announcement is tested without a table.

The words are the seeds' judge's words, in the seeds' order: seed 004 §3 is the script of 2.0 (「天黑了，请大家
低头闭眼」, 「杀手请睁眼，杀手请杀人」, 「警察请睁眼，警察请指认」, 「天亮了，请大家睁眼」); 4.0 calls its roles out and
back (V4.2: 「花蝴蝶出动」 … 「花蝴蝶回去」, the variant's ``night_call = "out_back"``), 6.0 calls them to come out
(000 6.0: 「法官叫杀手出来」 … 「杀手回去」, ``night_call = "come_back"``), and 4.0 runs its defence round with
「辩护开始」 and 「杀手被投死，没有遗言」 / 「好人被投死，请留遗言」 (V4.8).
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules import clash, turns
from controller.rules.engine import Pending
from controller.rules.events import (
    BadgeChanged,
    Candidacy,
    CardLost,
    CardShown,
    Dawn,
    Died,
    DirectionChosen,
    ElectionClosed,
    Event,
    GameEnded,
    NightFell,
    Opened,
    Penalised,
    Reasked,
    TieRound,
    VoteClosed,
)
from controller.rules.night import recognition_first
from controller.rules.state import GameState
from controller.rules.variant import Variant
from controller.voice.prompts import (
    ROLE_PROMPTS,
    PromptError,
    canonical_role,
    ending,
    last_words,
    night_deaths,
    phrase,
    prompt,
    role_prompt,
    seat_number,
    seats_list,
    speech_turn,
    tally,
)
from controller.voice.variant_lines import ending_line, role_line


def wake(roles: str, ability: str, optional: bool, call: str = "eyes", *, variant: Variant | None = None,
         step: str = "") -> list[str]:
    """A waking step: "杀手请睁眼，杀手请杀人" (each role named in the step, C2, 004 §3); with ``call = "out_back"``
    (V4.2) only "杀手出动": the 4.0 judge calls a role out and says nothing more; with ``call = "come_back"``
    (D3, 000 6.0: 法官叫杀手出来 … 问狙击是否行使权利) "杀手出来", a sniper also asked whether to shoot.
    A role whose words ``variant``'s file gives (``[words.calls]``) is woken in them: its ``wake`` line, then the
    step's own question (by the step's id, else its ability, else ``act``: W6 "昨晚他被杀了，你要用解药救他吗？")."""
    out: list[str] = []
    for role in roles.split("+"):
        if variant is not None and _own_words(variant, role):
            out += [p for p in (role_line(variant, role, "wake"), role_line(variant, role, step, ability, "act")) if p]
            continue
        style = _call(role, call)
        if style == "out_back":
            out.append(role_prompt(role, "out"))
            continue
        if style == "come_back":
            out.append(role_prompt(role, "come"))
            if optional and _asks(role):
                out.append(role_prompt(role, "ask"))
            continue
        out.append(role_prompt(role, "wake"))
        if ability == "recognise":
            out.append(role_prompt(role, "recognize"))
        elif ability == "take":  # V7.1: the angel takes someone along
            out.append(role_prompt(role, "take_along"))
        elif optional and _asks(role):
            out.append(role_prompt(role, "ask"))
        else:
            out.append(role_prompt(role, "act"))
    return out


def sleep(roles: str, call: str = "eyes", *, variant: Variant | None = None) -> list[str]:
    """"杀手请闭眼" (C2); V4.2 and D3: "杀手回去"; in the variant's own words where its file gives them (the
    hunter's shot has no sleep line: he is not woken, W8)."""
    out: list[str] = []
    for role in roles.split("+"):
        if variant is not None and _own_words(variant, role):
            out += [p for p in (role_line(variant, role, "sleep"),) if p]
        else:
            out.append(role_prompt(role, "sleep" if _call(role, call) == "eyes" else "back"))
    return out


def _asks(role: str) -> bool:
    """Whether the catalogue asks ``role`` if it uses its optional power rather than telling it to act (V3.3 the
    secret police, D3 the snipers: the roles with an ``ask`` prompt)."""
    return "ask" in ROLE_PROMPTS[canonical_role(role)]


def _own_words(variant: Variant, role: str) -> bool:
    """Whether ``variant``'s file gives ``role`` its judge's words (then none of the catalogue's are used)."""
    return any(key.partition(".")[0] == role for key in variant.words.get("calls", {}))


_CALL_WORD = {"eyes": "wake", "out_back": "out", "come_back": "come"}


def unspoken_role(variant: Variant) -> str | None:
    """A role of ``variant`` that wakes (or acts on dying) but that the voice has no words for, neither the
    catalogue's nor the variant file's (``[words.calls]``), if any: the table refuses such a variant before the game
    rather than falling silent in its first night. (It plays in the simulator meanwhile: tianhei simulate.)"""
    steps = (*variant.night, *variant.death_steps.values())
    for st in steps:
        for role in st.call or st.roles:
            if _own_words(variant, role):
                continue
            try:
                canonical_role(role)
            except PromptError:
                return role
    return None


def _call(role: str, call: str) -> str:
    """``call``, or the call the role has prompts for: a club's own variant may wake the forest elder, whom the
    seeds only call out (V4.2), with the eyes call."""
    whats = ROLE_PROMPTS[canonical_role(role)]
    if _CALL_WORD.get(call, "wake") in whats:
        return call
    return next((c for c, word in _CALL_WORD.items() if word in whats), call)


_TIE_STEPS = {
    ("club", 1): prompt("tie.tied_speak_again"), ("club", 2): prompt("tie.others_speak"),
    ("revote", 1): prompt("tie.revote"), ("top2", 1): prompt("tie.top_two_debate"),
    ("debate_first", 1): prompt("tie.debate"),
    # W13 and W10: the tied speak again and the others vote among them
    ("others_revote", 1): prompt("tie.tied_speak_again"), ("sheriff", 1): prompt("tie.tied_speak_again"),
}
#: The day steps after which the dead leave last words (V2.3, V4.7); without one (D2) nobody is told "no words".
_LAST_WORDS_STEPS = frozenset({"last_words", "last_words.in_turn"})


def for_event(event: Event, after: GameState | None = None, variant: Variant | None = None) -> list[str]:
    """The prompts a public event is announced with (empty: nothing is said). ``after`` is the state the input
    led to (the engine has run on to its next wait): what it waits for says who leaves last words. ``variant``:
    the table's, whose file gives the words (a state replayed from a journal has its rules, not its words)."""
    words = variant if variant is not None else after.config.variant if after is not None else None
    if isinstance(event, NightFell):
        if after is not None and event.night == 1 and recognition_first(after.config):
            return [prompt("night.falls"), prompt("night.recognition_only")]  # V2.10
        return [prompt("night.falls")]
    if isinstance(event, Reasked):
        return [prompt("night.choose_again")]
    if isinstance(event, Dawn):
        dead = [seat for seat, _ in event.deaths]
        parts = phrase(prompt("dawn.breaks"), night_deaths(dead))
        if after is not None:
            for seat in sorted(dead):
                if _no_last_words(after, seat):  # V2.3: 其后死的人没有遗言; V4.8 silenced; V7.1 taken along
                    parts += phrase(seat_number(seat), prompt("lastwords.none"))
            for seat in sorted(after.alive):  # V4.8: 被禁言的人不允许说话
                if clash.silenced(after, seat):
                    parts += phrase(seat_number(seat), prompt("speech.silenced"))
        return parts
    if isinstance(event, VoteClosed):
        if not event.tally:
            return [prompt("vote.nobody_voted")]
        parts = []
        for seat, n in event.tally:
            parts += tally(seat, n)
        if event.tied:
            parts += phrase(prompt("tie.between"), seats_list(event.tied))
        return parts
    if isinstance(event, TieRound):
        if event.outcome == "draw":
            return [prompt("tie.third_tie_draw")]
        if event.outcome == "nobody_out":
            return [prompt("tie.nobody_out")]
        if event.outcome == "no_sheriff":
            return []  # W10: a second tie; the election's close says there is no sheriff
        return [_TIE_STEPS.get((event.procedure, event.stage)) or prompt("tie.defend")]
    if isinstance(event, Died):
        return _died(event, after)
    if isinstance(event, Penalised):  # V2.11 §5.4: out-of-turn speech after a warning costs a penalty point
        return phrase(seat_number(event.seat), prompt("speech.out_of_turn"))
    if isinstance(event, CardLost):
        # D3: a player voted out shows the first identity (public, C4) and plays on; a card lost at night is
        # not a death and is not announced (D1).
        if event.cause == "executed":
            shown = phrase(seat_number(event.seat), prompt("identity.is"), role_prompt(event.shown, "name")) \
                if event.shown else []
            return phrase(seat_number(event.seat), prompt("execution.voted_out"), shown)
        return []
    if isinstance(event, ElectionClosed):
        return _election(event)
    if isinstance(event, BadgeChanged):  # W10: "5号当选警长" / "警徽移交给5号" / "警徽被撕毁"
        if event.how == "torn":
            return [prompt("sheriff.badge_torn")]
        what = prompt("sheriff.elected") if event.how == "elected" else prompt("sheriff.badge_passed")
        return phrase(seat_number(event.seat), what)
    if isinstance(event, DirectionChosen):
        return [prompt("speech.clockwise") if event.direction > 0 else prompt("speech.counterclockwise")]
    if isinstance(event, GameEnded):
        if words is not None and (line := ending_line(words, event.winner or "")):
            return [line, prompt("ending.game_over")]  # C4 in the words of the variant's file (a seed's, W14)
        return ending(event.winner, after.config.variant.id if after is not None else None)  # C4, in the seed's words
    if isinstance(event, CardShown) and words is not None:  # W9 the idiot's reveal, W11 a self-destruct
        line = role_line(words, event.role, event.why)
        return phrase(seat_number(event.seat), [line] if line else [])
    return []


def _election(event: ElectionClosed) -> list[str]:
    """W10/W11: "竞选的玩家：3号、5号，请依次发言" as the call closes; "本局没有警长" (nobody ran, a second tie, a
    second self-destruct); "警长竞选推迟到明天" (a first self-destruct)."""
    if event.outcome == "run":
        return phrase(prompt("sheriff.candidates"), seats_list(event.candidates), prompt("sheriff.candidates_speak"))
    if event.outcome == "postponed":
        return [prompt("sheriff.postponed")]
    return [prompt("sheriff.none")]


def withdrawal(event: Candidacy, before: Sequence[Event]) -> list[str]:
    """W10 退水: "5号退水" when a candidate leaves the race during the candidates' speeches; nothing when a seat
    declines the call to run (that press is its own, and the room hears the candidates when the call closes).
    ``before``: the game's events before this one (a withdrawal comes after the call closed, since the last
    call opened)."""
    for e in reversed(before):
        if isinstance(e, ElectionClosed):
            return phrase(seat_number(event.seat), prompt("sheriff.withdraws")) if e.outcome == "run" else []
        if isinstance(e, Opened) and e.kind == "candidacy":
            return []
    return []


def _died(event: Died, after: GameState | None) -> list[str]:
    seat = seat_number(event.seat)
    if event.cause == "executed.killer":  # V4.8: 「杀手被投死，没有遗言」
        return phrase(seat, prompt("execution.killer_out"), prompt("lastwords.none"))
    if event.cause == "executed.good":  # V4.8: 「好人被投死，请留遗言」 (the call for the words follows)
        silent = after is not None and _no_last_words(after, event.seat)
        return phrase(seat, prompt("execution.good_out"), [prompt("lastwords.none")] if silent else [])
    if event.cause == "executed":
        silent = after is not None and _no_last_words(after, event.seat)  # V2.3 quota, V2.8 killer_silent
        return phrase(seat, prompt("execution.voted_out"), [prompt("lastwords.none")] if silent else [])
    if event.cause == "taken_along":  # V7.1: 「此人沒有遺言」
        return phrase(seat, prompt("death.taken_along"))
    if event.cause == "ejected":
        return phrase(seat, prompt("eject.ejected"))
    if event.cause == "surrendered":
        return phrase(seat, prompt("surrender.surrenders"))
    return phrase(seat, prompt("death.died"))


def _no_last_words(after: GameState, seat: int) -> bool:
    """Whether the dead ``seat`` leaves no last words, as the engine decided: it waits for last words and
    ``seat`` is not among the speakers. Not said where the day has no last words at all (D2), nor at the end."""
    if after.over or _LAST_WORDS_STEPS.isdisjoint(after.config.variant.day_script):
        return False
    w = after.waiting
    return not (w is not None and w.kind == "last_words" and seat in w.seats)


def turn(state: GameState, p: Pending) -> list[str]:
    """What the voice says when a speech or a V4.8 defence vote opens for its one seat: "5号请留遗言",
    "5号请发言", a defence (C3, V2.7) "5号请为自己辩解"; in the 4.0 defence round (V4.8) first 「辩护开始」 and
    that every living player must vote (每个人都必须投一个人，可以投自己), then each turn "5号请辩护，然后投票", or
    for a silenced player "5号被禁言" (the turn is a vote only)."""
    seat = p.seats[0]
    if p.kind == "last_words":
        return last_words(seat)
    v4_8 = "defence.votes" in state.config.variant.day_script
    if v4_8 and p.step in ("defence", turns.TURN_VOTE):
        silenced = clash.silenced(state, seat)
        if p.step == turns.TURN_VOTE and not silenced:
            return []  # the player who just spoke votes at once
        order = turns.defence_order(state)
        opening = [prompt("defence.begins"), prompt("vote.everyone_must_vote")] if order[:1] == (seat,) else []
        what = prompt("speech.silenced") if silenced else prompt("speech.defend_and_vote")
        return phrase(opening, seat_number(seat), what)
    if p.step in ("defence", "tie.defence"):
        return phrase(seat_number(seat), prompt("speech.defend"))
    return speech_turn(seat)
