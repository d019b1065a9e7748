"""The 狼人杀 board werewolf-9 (RULES.md W2) as data only: the witch's two potions (W6) are two registered
abilities, the hunter's shot (W8) a role hook, 屠边 (W14) a win table. Played to the end by every bot policy; each
W rule checked on the events."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from controller.bots import POLICIES
from controller.rules import engine
from controller.rules.actions import Rejected, SelfDestruct
from controller.rules.events import (
    Acted,
    BadgeChanged,
    Candidacy,
    CardShown,
    Dawn,
    Died,
    ElectionClosed,
    Event,
    GameEnded,
    NightFell,
    Opened,
)
from controller.rules.setup import configure
from controller.rules.state import GameState
from controller.rules.variant import load_variant
from tests.rules import roles as boards

BOARD = "werewolf-9"
GODS = ("seer", "witch", "hunter")


def games(policy: str, n: int) -> Iterator[tuple[tuple[str, ...], list[Event]]]:
    return boards.games("werewolf-9", 9, policy, n, 5, talk=False)


@pytest.mark.parametrize("policy", ["uninformed", "random", "heuristic"])
def test_the_witch_has_one_antidote_and_one_poison_and_uses_one_potion_a_night(policy: str) -> None:
    saves = poisons = 0
    for roles, events in games(policy, 60):
        witch = roles.index("witch") + 1
        used: dict[str, int] = {}
        night_potions = 0
        victim: int | None = None
        for e in events:
            if isinstance(e, NightFell):
                night_potions, victim, night = 0, None, e.night
            elif isinstance(e, Acted) and e.step == "kill":
                victim = e.target
            elif isinstance(e, Opened) and e.step == "antidote":
                # W6: shown the night's victim alone; herself only on the first night (witch.self_save)
                shown = victim is not None and (victim != witch or night == 1)
                assert e.choices == ((victim, None) if shown else (None,))  # a no-kill night: nothing to save
            elif isinstance(e, Acted) and e.ability in ("antidote", "poison") and e.target is not None:
                used[e.ability] = used.get(e.ability, 0) + 1
                night_potions += 1
                assert night_potions == 1  # W6: at most one potion a night
                saves += e.ability == "antidote"
                poisons += e.ability == "poison"
        assert all(n <= 1 for n in used.values())  # W6: each potion once a game
    # the heuristic witch poisons only a claimed werewolf still alive at night, whom the day's vote has usually
    # taken already
    assert saves > 10 and (poisons > 10 or policy == "heuristic")


def test_a_saved_victim_lives_and_a_poisoned_player_dies_whatever_else() -> None:
    for _, events in games("random", 60):
        acts: list[Acted] = []
        for e in events:
            if isinstance(e, NightFell):
                acts = []
            elif isinstance(e, Acted):
                acts.append(e)
            elif isinstance(e, Dawn):
                dead = dict(e.deaths)
                by = {a.ability: a.target for a in acts if a.target is not None}
                if "antidote" in by:
                    assert by["antidote"] not in dead  # W6: saved (no guard on this board)
                if "poison" in by:
                    assert dead.get(by["poison"]) in ("poisoned", "killed")  # W6: nothing prevents it


def test_a_poisoned_hunter_takes_nobody_along_and_any_other_dead_hunter_may() -> None:
    poisoned = shot = 0
    for roles, events in games("uninformed", 200):
        hunter = roles.index("hunter") + 1
        causes = [c for e in events if isinstance(e, Dawn) for s, c in e.deaths if s == hunter]
        causes += [e.cause for e in events if isinstance(e, Died) and e.seat == hunter]
        asked = any(isinstance(e, Opened) and e.step == "on_death.hunter" for e in events)
        if causes == ["poisoned"]:
            poisoned += 1
            assert not asked  # W8
        shot += asked
    assert poisoned > 3 and shot > 10


@pytest.mark.parametrize("policy", ["uninformed", "heuristic"])
def test_the_werewolves_win_by_killing_one_side_of_the_good_the_good_by_killing_every_wolf(policy: str) -> None:
    ends = {"good": 0, "killers": 0}
    for roles, events in games(policy, 80):
        end = events[-1]
        assert isinstance(end, GameEnded)
        dead = {s for e in events if isinstance(e, Dawn) for s, _ in e.deaths}
        dead |= {e.seat for e in events if isinstance(e, Died)}
        alive = [r for seat, r in enumerate(roles, 1) if seat not in dead]
        if end.winner == "good":
            assert "werewolf" not in alive
        else:
            assert end.winner == "killers"  # W14 屠边: no villager left, or no god left
            assert "villager" not in alive or not any(r in GODS for r in alive)
        ends[end.winner] += 1
    assert ends["good"] and ends["killers"]


def test_the_seer_learns_werewolf_or_good_in_the_board_s_words() -> None:
    variant = load_variant(str(BOARD))
    assert variant.words["answers"]["nod"] == ("狼人", "Werewolf")  # W1
    assert variant.words["sides"]["killers"] == ("狼人", "Werewolves")
    for roles, events in games("random", 20):
        for e in events:
            if isinstance(e, Acted) and e.step == "check" and e.target is not None:
                assert e.result == ("nod" if roles[e.target - 1] == "werewolf" else "shake")


def guard_games(policy: str, n: int, same_save: str) -> Iterator[tuple[tuple[str, ...], list[Event]]]:
    return boards.games("werewolf-12-guard", 12, policy, n, 8, {"guard.same_save": same_save}, talk=False)


@pytest.mark.parametrize("same_save", ["dies", "lives"])
def test_the_guard_never_guards_one_player_two_nights_running_and_guarded_and_saved_is_the_option_s(
        same_save: str) -> None:
    both = 0
    for _, events in guard_games("random", 80, same_save):
        last: int | None = None
        acts: dict[str, int | None] = {}
        for e in events:
            if isinstance(e, NightFell):
                acts = {}
            elif isinstance(e, Opened) and e.step == "guard" and last is not None:
                assert last not in e.choices  # W7
            elif isinstance(e, Acted) and e.step in ("guard", "kill", "antidote", "poison"):
                acts[e.step] = e.target
                if e.step == "guard":
                    last = e.target
            elif isinstance(e, Dawn) and acts.get("kill") is not None:
                victim = acts["kill"]
                guarded, saved = acts.get("guard") == victim, acts.get("antidote") == victim
                dies = victim in dict(e.deaths)
                if guarded and saved:  # W7 decision 同守同救, or the option's other reading
                    both += 1
                    assert dies == (same_save == "dies")
                elif (guarded or saved) and acts.get("poison") != victim:  # W6: nothing prevents a poisoning
                    assert not dies
    assert both > 0


def test_werewolf_12_s_idiot_shows_the_card_when_voted_out_and_the_board_plays_to_the_end() -> None:
    shown = 0
    for dealt, events in boards.games("werewolf-12", 12, "heuristic", 60, 2, talk=False):
        idiot = dealt.index("idiot") + 1
        shown += sum(1 for e in events if isinstance(e, CardShown) and e.seat == idiot)  # W9
        assert not any(isinstance(e, Died) and e.seat == idiot and e.cause == "executed" for e in events)
    assert shown > 5


def _to_first_vote(seed: int) -> tuple[GameState, list[Event]]:
    """A werewolf-9 game played by the bots up to the first day's vote."""
    config = configure(load_variant(str(BOARD)), 9, talk=True)
    rng = random.Random(seed)
    state, events = engine.new_game(config, rng)
    policy = POLICIES["uninformed"]()
    while True:
        p = engine.pending(state)
        assert p is not None, "the game ended before a day's vote"
        if state.phase == "day" and p.kind == "vote":
            return state, events
        for action in policy.actions(state, p, rng):
            state, more = engine.step(state, action, rng)
            events.extend(more)


def test_a_werewolf_who_self_destructs_is_out_at_once_and_night_falls_with_no_vote() -> None:
    state, events = _to_first_vote(3)
    wolf = next(s for s in sorted(state.alive) if state.roles[s - 1] == "werewolf")
    after, more = engine.step(state, SelfDestruct(wolf))
    assert more[:2] == [CardShown(wolf, "werewolf", "self_destruct"), Died(wolf, "self_destruct")]  # W11
    if not after.over:
        assert isinstance(more[2], NightFell) and more[2].night == state.night + 1  # no vote that day
        assert not any(isinstance(e, Opened) and e.kind == "last_words" and wolf in e.seats for e in more)
    assert engine.fold([*events, *more]) == after


def test_only_a_role_that_may_self_destructs_and_only_by_day() -> None:
    state, _ = _to_first_vote(4)
    villager = next(s for s in sorted(state.alive) if state.roles[s - 1] != "werewolf")
    with pytest.raises(Rejected) as refused:
        engine.step(state, SelfDestruct(villager))
    assert refused.value.code == "not_allowed"
    config = configure(load_variant(str(BOARD)), 9, talk=True)
    night, _ = engine.new_game(config, random.Random(1))
    wolf = night.roles.index("werewolf") + 1
    with pytest.raises(Rejected) as refused:
        engine.step(night, SelfDestruct(wolf))
    assert refused.value.code == "not_now"


def test_the_bots_run_for_sheriff_elect_one_pass_the_badge_and_a_werewolf_self_destructs_the_same_for_a_seed() -> None:
    seen: dict[str, int] = {}
    for _, events in boards.games("werewolf-12", 12, "heuristic", 60, 9, talk=False):
        for e in events:
            if isinstance(e, BadgeChanged):
                seen[e.how] = seen.get(e.how, 0) + 1  # W10
            elif isinstance(e, ElectionClosed):
                seen[e.outcome] = seen.get(e.outcome, 0) + 1
            elif isinstance(e, Died) and e.cause == "self_destruct":
                seen["self_destruct"] = seen.get("self_destruct", 0) + 1  # W11
    assert seen.get("elected", 0) > 30 and seen.get("passed", 0) > 10
    assert seen.get("postponed", 0) > 0 and seen.get("self_destruct", 0) > seen["postponed"]  # also by day
    first = [events for _, events in boards.games("werewolf-12", 12, "random", 5, 4)]
    again = [events for _, events in boards.games("werewolf-12", 12, "random", 5, 4)]
    assert first == again  # deterministic from the seed
    assert any(isinstance(e, Candidacy) and not e.running for events in first for e in events)
