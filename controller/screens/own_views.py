"""Views that carry the played version's own words (a variant file's ``[words]``): the police's or seer's
answer and the game's end. Built here, once, so the director and the bus's screen reader draw the same thing,
and so a screen says 狼人 on a W board (W1, W5) with no killer names built into the renderer.
"""

from __future__ import annotations

from controller.rules.variant import Variant
from controller.screens import views as v
from controller.screens.strings import own_words


def answer_words(variant: Variant, answer: v.Answer) -> tuple[str, ...]:
    """The answer's ``(zh, en)`` in the variant's ``[words.answers]`` ("nod", "shake", "none"), or ``()`` for
    the seeds' 是杀手 / 不是杀手 (V2.2)."""
    return own_words(variant, "answers", answer.value)


def police_answer(variant: Variant, target: int, answer: v.Answer) -> v.PoliceAnswer:
    """What a checking seat is shown: the target and the answer in the version's words."""
    return v.PoliceAnswer(target, answer, answer_words(variant, answer))


def game_over(winner: str, role: str, won: bool | None, variant: Variant) -> v.GameOver:
    """The end (C4) with the winning side named as the variant names it (``[words.sides]``)."""
    return v.GameOver(winner, role, won, variant.id, own_words(variant, "sides", winner))
