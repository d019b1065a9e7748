"""A recognition step of the night script (V5.2): the actors open their eyes and see each other; nothing is
chosen and nothing happens at dawn."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("recognise", ("V5.2",), recognition=True))
