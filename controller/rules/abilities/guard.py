"""The guard's protection (W7): one player (self allowed, by the step's ``targets = "living"``) is safe from the
werewolves' kill only; never the same player two nights running; may protect nobody. Decision (同守同救, option
``guard.same_save``): a victim both guarded and saved by the witch dies (the set "guard_save")."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("guard", ("W7",), effect="protect", protects_from=("killed",), not_twice_running=True,
                           overprotect="guard_save"))
