"""The forest elder's silence (V4.8 decision): the target gives no defence and no last words the coming day,
but votes (the mark ``silenced:<seat>`` holds that day's number)."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("silence", ("V4.8",), effect="mark", mark="silenced"))
