"""Role rules as data hooks (controller/rules/hooks.py): the hunter's shot on dying (W8) and the idiot's reveal
when voted out (W9), written in a variant file (``roles/hunter-idiot-2.0.toml``) as ``on_death = "shoot"``,
``unless = [...]`` and ``on_voted_out = "reveal"``, with one public CardShown event."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.rules.events import Acted, CardShown, Dawn, Died, Event, GameEnded, NightFell, Opened, Spoke
from controller.rules.variant import Variant, VariantError, load_variant, parse_variant
from tests.rules import roles as boards

TOML = Path(__file__).parent / "roles" / "hunter-idiot-2.0.toml"


def games(variant: Variant, policy: str, n: int, talk: bool = True) -> Iterator[tuple[tuple[str, ...], list[Event]]]:
    return boards.games(variant, 12, policy, n, 11, talk=talk)


def seat_of(roles: tuple[str, ...], role: str) -> int:
    return roles.index(role) + 1


def with_roles(**changes: dict[str, Any]) -> Variant:
    data = tomllib.loads(TOML.read_text(encoding="utf-8"))
    for role, keys in changes.items():
        data["roles"][role].update(keys)
    return parse_variant(data, str(TOML))


@pytest.mark.parametrize("policy", ["uninformed", "random", "heuristic"])
def test_the_idiot_voted_out_shows_the_card_stays_and_never_votes_again(policy: str) -> None:
    shown = 0
    for roles, events in games(load_variant(str(TOML)), policy, 40):
        idiot = seat_of(roles, "idiot")
        revealed = False
        for e in events:
            if isinstance(e, CardShown):
                assert (e.seat, e.role, e.why) == (idiot, "idiot", "voted_out")
                assert not revealed  # once
                revealed = True
                shown += 1
            elif isinstance(e, Died) and e.seat == idiot:
                assert e.cause != "executed"  # W9: a vote never takes the idiot out
            elif revealed and isinstance(e, Opened) and e.kind == "vote":
                assert idiot not in e.seats and idiot not in e.choices  # W9: neither votes nor is voted for
    assert shown > 3


@pytest.mark.parametrize("policy", ["uninformed", "random", "heuristic"])
def test_the_hunter_shoots_once_on_dying_by_night_or_by_vote_unless_his_death_ends_the_game(policy: str) -> None:
    shots = {"killed": 0, "executed": 0}
    for roles, events in games(load_variant(str(TOML)), policy, 60):
        hunter = seat_of(roles, "hunter")
        died_of = ""
        for i, e in enumerate(events):
            if isinstance(e, Dawn) and hunter in dict(e.deaths):
                died_of = dict(e.deaths)[hunter]
            elif isinstance(e, Died) and e.seat == hunter:
                died_of = e.cause
            elif isinstance(e, Opened) and e.step == "on_death.hunter":
                assert died_of and e.seats == (hunter,) and hunter not in e.choices and None in e.choices
                # W8 decision: after any last words of the same death
                assert not any(isinstance(x, Opened) and x.kind == "last_words" and hunter in x.seats
                               for x in events[i + 1:])
            elif isinstance(e, Acted) and e.step == "on_death.hunter":
                shots[died_of] += 1
                after = events[i + 1]
                if e.target is not None:
                    assert after == Died(e.target, "shot") or isinstance(after, GameEnded)
        opened = sum(1 for e in events if isinstance(e, Opened) and e.step == "on_death.hunter")
        assert opened <= 1
        if died_of and not opened:  # no shot: only when his own death ended the game
            assert isinstance(events[-1], GameEnded)
    assert shots["killed"] > 3 and shots["executed"] > 3


def test_a_cause_in_unless_takes_the_shot_away() -> None:
    variant = with_roles(hunter={"unless": ["executed"]})
    voted_out = 0
    for roles, events in games(variant, "uninformed", 60, talk=False):
        hunter = seat_of(roles, "hunter")
        for i, e in enumerate(events):
            if isinstance(e, Died) and e.seat == hunter and e.cause == "executed":
                voted_out += 1
                assert not any(isinstance(x, Opened) and x.step == "on_death.hunter" for x in events[i:])
    assert voted_out > 3


def test_the_shot_player_has_no_act_of_his_own_unless_his_role_has_one() -> None:
    for roles, events in games(load_variant(str(TOML)), "random", 30, talk=False):
        shot = [e.seat for e in events if isinstance(e, Died) and e.cause == "shot"]
        assert all(roles[s - 1] != "hunter" for s in shot)  # a hunter never shoots himself
        assert not any(isinstance(e, Spoke) and e.seat in shot for e in events if not isinstance(e, NightFell))


def test_a_role_rule_that_is_not_a_killing_ability_is_refused_with_its_key() -> None:
    with pytest.raises(VariantError, match=r"roles\.hunter\.on_death: 'check' is not an ability that kills"):
        with_roles(hunter={"on_death": "check"})
    with pytest.raises(VariantError, match=r"roles\.idiot\.on_voted_out: unknown value 'hide'"):
        with_roles(idiot={"on_voted_out": "hide"})
