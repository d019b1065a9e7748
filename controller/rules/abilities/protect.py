"""The doctor's protection (V3.2): the target is safe from the killers' kill (and from nothing else)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("protect", ("V3.2",), effect="protect", protects_from=("killed",)))
