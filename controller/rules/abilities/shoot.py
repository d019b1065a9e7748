"""The sniper's shot (V4.2): lethal ("shot"); nothing protects from it but the doctor's needle (V4.5)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("shoot", ("V4.2",), effect="lethal", cause="shot", rank=1))
