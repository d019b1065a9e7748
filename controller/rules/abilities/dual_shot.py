"""D3: each sniper card's shot (the dual-card dawn in cards.py decides it)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("dual_shot", ("D3", "V4.2"), effect="cards"))
