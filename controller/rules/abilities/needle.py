"""The doctor's needle (V4.5, V4.6): saves from exactly one lethal effect (killed *and* shot dies anyway;
``needle.no_save_from_shot``: never from a shot); a needle on a player with no lethal effect is empty, and the
second empty needle kills ("needles")."""

from controller.rules.ability import Ability, register

ABILITY = register(Ability("needle", ("V4.5", "V4.6"), effect="cure", cause="needles", rank=2, mark="empty_needles",
                           overdose=2, cure_spares_option="needle.no_save_from_shot", cure_spares="shot"))
