"""The angel's revival (V7.1): once per game, before dawn and without knowing the victim (the angel points at
itself), every kill of the night is undone."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("revive", ("V7.1",), effect="protect", protects_from=("killed",), scope="night",
                           choose="self", once_mark="revived"))
