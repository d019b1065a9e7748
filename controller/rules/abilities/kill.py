"""The killers' kill (V2.2, C6): lethal at dawn ("killed"), stopped by a protection from "killed" (V3.2 the
doctor, V7.1 the angel's revival) or by an unspent secret-police power (V3.3). V2.12: with ``killers.selfkill``
the killers may point at one of their own, by strict majority only. V2.11: the first kill night's victim may not
repeat the last games' run."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("kill", ("V2.2", "V2.11", "V2.12", "C6"), effect="lethal", cause="killed", rank=0,
                           selfkill_option="killers.selfkill", night_kill=True))
