"""D2: the butterfly card's hug of seed 001's dual-card 5.0 (cards.resolve_d2 decides it)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("d2_hug", ("D2", "V4.4"), effect="cards"))
