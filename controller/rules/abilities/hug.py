"""The butterfly's hug (V4.4): every effect aimed at the hugged player is void, every effect aimed at the
butterfly reaches the hugged too; V4.3 a check on the hugged answers nothing."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("hug", ("V4.3", "V4.4"), effect="void"))
