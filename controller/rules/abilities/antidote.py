"""The witch's antidote (W6): once per game she may save the night's victim, whom she is shown while she holds
it (no victim on a no-kill night: nothing to offer, so she is not asked). It protects from the werewolves' kill
only ("killed"). Self-save by the option ``witch.self_save`` (never | first_night | always; decision:
first_night). At most one potion a night (the set "potion")."""

from __future__ import annotations

from typing import Any

from controller.rules.ability import REGISTRY, Ability, register


def tonight_s_victims(s: Any, actors: tuple[int, ...]) -> tuple[int, ...]:
    """W6: the players the night's kill has chosen so far (the werewolves wake before the witch, W3)."""
    return tuple(a.target for a in s.acts if a.target is not None and REGISTRY[a.ability].night_kill)


ABILITY = register(Ability("antidote", ("W6", "W7"), effect="protect", protects_from=("killed",), choose="custom",
                           choices=tonight_s_victims, once_mark="antidote", one_of="potion",
                           self_option="witch.self_save", overprotect="guard_save"))
