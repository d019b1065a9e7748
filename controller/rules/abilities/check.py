"""The police's check (V2.2): the actors learn a nod (a role whose ``nod`` is set: the killers, F2 the
informant, V5.3 as the variant says) or a shake; V4.3 nothing on the player the butterfly hugs. Every use is
counted in ``checks_used``; the ``checks`` option caps them (V2.10)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("check", ("V2.2", "V2.10", "V4.3"), learns="nod", count_mark="checks_used",
                           count_option="checks"))
