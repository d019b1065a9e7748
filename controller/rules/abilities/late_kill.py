"""The devil's late kill (V7.1): lethal as the killers' kill ("killed"), but only once every killer is dead;
it does nothing to a role immune to it (the angel)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("late_kill", ("V7.1",), effect="lethal", cause="killed", rank=0,
                           awake_when="no_killers_left"))
