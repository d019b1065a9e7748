"""The witch's poison (W6): once per game, any living player dies ("poisoned"); nothing prevents it (no ability
protects from "poisoned"). At most one potion a night (the set "potion"): not on a night she saved. W8: a
poisoned hunter does not shoot (his role's ``unless``)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("poison", ("W6",), effect="lethal", cause="poisoned", rank=1, once_mark="poison",
                           one_of="potion"))
