"""The angel's take-along (V7.1): on the night the angel dies it takes one player along ("taken_along", no last
words), decided after the rest of the night; by day it is asked before the execution (turns.py)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("take", ("V7.1",), effect="lethal", cause="taken_along", after=True, rank=4,
                           awake_when="dying_tonight"))
