"""What the voice says for each rule event: prompt IDs only (controller/voice/prompts.py), never a role that
is not public. Pure functions, so the secrecy of every announcement is tested without a table."""

from __future__ import annotations

from controller.rules.events import (
    CardLost,
    Dawn,
    Died,
    DirectionChosen,
    Event,
    GameEnded,
    NightFell,
    Reasked,
    TieRound,
    VoteClosed,
)
from controller.voice.prompts import night_deaths, phrase, prompt, role_prompt, seat_number, seats_list, tally


def wake(roles: str, ability: str, optional: bool) -> list[str]:
    """A waking step: "杀手请睁眼，杀手请杀人" (each role named in the step, C2)."""
    out: list[str] = []
    for role in roles.split("+"):
        out.append(role_prompt(role, "wake"))
        if ability == "recognise":
            out.append(role_prompt(role, "recognize"))
        elif ability == "take":  # V7.1: the angel takes someone along
            out.append(role_prompt(role, "take_along"))
        elif optional and role in ("secret_police", "sniper"):
            out.append(role_prompt(role, "ask"))
        else:
            out.append(role_prompt(role, "act"))
    return out


def sleep(roles: str) -> list[str]:
    return [role_prompt(role, "sleep") for role in roles.split("+")]


_ENDINGS = {"killers": prompt("ending.killers_win"), "good": prompt("ending.good_win"),
            "draw": prompt("ending.draw")}
_TIE_STEPS = {
    ("club", 1): prompt("tie.tied_speak_again"), ("club", 2): prompt("tie.others_speak"),
    ("revote", 1): prompt("tie.revote"), ("top2", 1): prompt("tie.top_two_debate"),
    ("debate_first", 1): prompt("tie.debate"),
}


def for_event(event: Event) -> list[str]:
    """The prompts a public event is announced with (empty: nothing is said)."""
    if isinstance(event, NightFell):
        return [prompt("night.falls")]
    if isinstance(event, Reasked):
        return [prompt("night.choose_again")]
    if isinstance(event, Dawn):
        return phrase(prompt("dawn.breaks"), night_deaths([seat for seat, _ in event.deaths]))
    if isinstance(event, VoteClosed):
        if not event.tally:
            return [prompt("vote.nobody_voted")]
        parts: list[str] = []
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
        return [_TIE_STEPS.get((event.procedure, event.stage)) or prompt("tie.defend")]
    if isinstance(event, Died):
        if event.cause == "executed":
            return phrase(seat_number(event.seat), prompt("execution.voted_out"))
        if event.cause == "executed.killer":  # V4.8: the judge says which side was voted out
            return phrase(seat_number(event.seat), prompt("execution.killer_out"))
        if event.cause == "executed.good":
            return phrase(seat_number(event.seat), prompt("execution.good_out"))
        if event.cause == "ejected":
            return phrase(seat_number(event.seat), prompt("eject.ejected"))
        if event.cause == "surrendered":
            return phrase(seat_number(event.seat), prompt("surrender.surrenders"))
        return phrase(seat_number(event.seat), prompt("death.died"))
    if isinstance(event, CardLost):
        # D3: a player voted out shows the first identity (public, C4) and plays on; a card lost at night is
        # not a death and is not announced (D1).
        if event.cause == "executed":
            shown = [role_prompt(event.shown, "name")] if event.shown else []
            return phrase(seat_number(event.seat), prompt("execution.voted_out"), shown)
        return []
    if isinstance(event, DirectionChosen):
        return [prompt("speech.clockwise") if event.direction > 0 else prompt("speech.counterclockwise")]
    if isinstance(event, GameEnded):
        return [_ENDINGS.get(event.winner) or prompt("ending.game_over"), prompt("ending.game_over")]
    return []
