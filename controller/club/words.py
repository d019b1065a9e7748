"""A version's own words as a game's record keeps them: its name and its name for the side that won, [zh, en].

Neither the hall nor the league has a club's own variant file, and neither opens a file a message named, so a
game of one is shown by the words that came with it. The record keeps them from the game itself, so history says
what was played even after the club changes or removes the file: the name from the variant data the journal
holds (``GameCreated``), the sides' words from the check-in note (the journal records no ``[words]``:
``Variant.words``), written when the game is dealt. The same cut applies to every pair: a variant file does not
limit its words, the hall's and the league's door does (controller/hall/schema.py refuses a longer one), and a
record must get through it: a table cuts them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.rules.variant import Variant

#: The longest of a version's own words a door takes; longer ones are cut where they are written.
WORDS_MAX = 80
#: The check-in note's key for the version's [words.sides] (side ID -> [zh, en]).
SIDES_NOTE = "side_words"


def words_pair(words: Sequence[str]) -> list[str]:
    """[zh, en] cut to what the doors take (:data:`WORDS_MAX`)."""
    return [w[:WORDS_MAX] for w in words]


def pair(value: Any) -> tuple[str, str] | None:
    """A [zh, en] pair of text, cut to :data:`WORDS_MAX`; None for anything else (a hand-edited note or file
    gives no words rather than a record that fails)."""
    if not isinstance(value, list | tuple) or len(value) != 2 or not all(isinstance(w, str) for w in value):
        return None
    zh, en = words_pair(value)
    return (zh, en) if zh or en else None


def side_words(variant: Variant) -> dict[str, list[str]]:
    """The version's words for its sides (its ``[words.sides]``), as the check-in note carries them."""
    out = {}
    for side, words in variant.words.get("sides", {}).items():
        cut = pair(words)
        if cut is not None:
            out[str(side)] = list(cut)
    return out


def record_words(variant: Variant, winner: str, note: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the version's name, the winning side's words) for a record; ``()`` where there are none (the page then
    says what it says for a game recorded before records kept words)."""
    name = pair((variant.name_zh, variant.name)) or ()
    sides = note.get(SIDES_NOTE)
    won = pair(sides.get(winner)) if isinstance(sides, Mapping) else None
    return name, won or ()
