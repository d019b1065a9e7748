"""D3: each doctor card's needle, counted apart (the dual-card dawn in cards.py decides it)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("dual_needle", ("D3", "V4.5", "V4.6"), effect="cards"))
