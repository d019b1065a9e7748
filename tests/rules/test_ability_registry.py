"""Abilities as data (controller/rules/ability.py): every built-in ability is one registered module, the engine
asks for none by name, and night's fast paths are derived from the fields, so a new ability cannot be offered
the wrong players by omission (the failure of a hand-kept chain of special cases)."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.rules import abilities, engine, night
from controller.rules.ability import KINDS, REGISTRY, Ability, register, unregister
from controller.rules.actions import GroupPick
from controller.rules.events import Opened
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import builtin_ids, load_variant, parse_variant

ROOT = Path(abilities.__file__).parent


def test_every_built_in_ability_is_a_module_of_its_own_that_registers_it() -> None:
    modules = sorted(p.stem for p in ROOT.glob("*.py") if p.stem != "__init__")
    assert sorted(abilities.BUILT_IN) == modules
    for name in modules:
        assert REGISTRY[name].name == name and REGISTRY[name].rules  # each cites its RULES IDs
        assert REGISTRY[name].effect in KINDS


def test_every_ability_a_variant_file_names_is_registered() -> None:
    for vid in builtin_ids():
        for st in load_variant(vid).night:
            assert st.ability in REGISTRY, (vid, st.id)


def test_a_second_module_cannot_take_a_registered_name() -> None:
    with pytest.raises(ValueError, match="'kill' is registered twice"):
        register(Ability("kill", ("C2",)))


@pytest.mark.parametrize(("fields", "message"), [
    ({"effect": "poison"}, "unknown effect kind 'poison'"),
    ({"effect": "lethal"}, "needs the cause"),
    ({"choose": "custom"}, "needs choices exactly when 'custom'"),
    ({"learns": "custom"}, "needs learn exactly when 'custom'"),
    ({"awake_when": "full_moon"}, "unknown awake_when 'full_moon'"),
])
def test_an_ability_that_cannot_work_is_refused_when_its_module_is_imported(fields: dict[str, str],
                                                                            message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Ability("x_test", ("C2",), **fields)  # type: ignore[arg-type]


@pytest.fixture
def lookout() -> Iterator[Ability]:
    """A test ability on a ``living`` step that may only look at the seats its module names (seat 1)."""
    ability = register(Ability("x_lookout", ("C2",), choose="custom", choices=lambda s, actors: (1,)))
    yield ability
    unregister("x_lookout")


def _with_lookout() -> GameConfig:
    data = tomllib.loads((Path(__file__).parent / "roles" / "gravekeeper-2.0.toml").read_text("utf-8"))
    data["night"][-1].update(ability="x_lookout", targets="living", optional=True)
    return configure(parse_variant(data, "lookout.toml"), 12, talk=False)


def test_a_new_ability_on_a_living_step_is_offered_its_own_choices_not_every_living_player(lookout: Ability) -> None:
    config = _with_lookout()
    plan = night._StepPlan(config.variant.night_steps["read_grave"], config)
    assert plan.all_living and not plan.plain_living  # the fast path is derived, not listed by hand
    roles = ["killer"] * 3 + ["police"] * 3 + ["gravekeeper"] + ["civilian"] * 5
    state, events = engine.new_game(config, roles=roles)
    state, more = engine.step(state, GroupPick(9))  # the killers
    state, more2 = engine.step(state, GroupPick(2))  # the police
    opened = [e for e in (*events, *more, *more2) if isinstance(e, Opened) and e.step == "read_grave"]
    assert [e.choices for e in opened] == [(1, None)]


def test_the_plain_living_fast_path_stays_for_the_abilities_that_take_the_step_s_rule() -> None:
    config = configure(load_variant("v4.0"), 13)
    plans = {st.id: night._StepPlan(st, config) for st in config.variant.night}
    assert plans["needle"].plain_living and plans["silence"].plain_living
