"""What a seat's cards say in the dual-card versions (D1-D3): the card names, the copy and layer of a seat's
current card, the cards still living, and how the hand events change the state.

Apart from cards.py (the deal, the dawn's card rules) because the win check, the night and the transaction all ask
these questions and cards.py itself needs them: this module imports only the state and the events, so everything
above it may import it without a circle.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from controller.rules.events import CardLost, HandsDealt, HandsSettled
from controller.rules.state import EMPTY, GameState


def base(card: str) -> str:
    """The role of a card name ("doctor#2" -> "doctor")."""
    return card.split("#", 1)[0]


def copy_of(s: GameState, seat: int) -> int:
    """The copy number of ``seat``'s current card (0: not a numbered card)."""
    if not s.cards:
        return 0
    card = s.cards[seat - 1][0]
    return int(card.split("#", 1)[1]) if "#" in card else 0


def layer(s: GameState, seat: int) -> int:
    """0 while the first identity plays, 1 once the second has taken over."""
    return 2 - len(s.cards[seat - 1]) if s.cards else 0


def living_cards(s: GameState) -> dict[str, int]:
    """Role -> cards not yet dead (the current and the second cards of the living)."""
    cards = s.cards
    return dict(Counter(base(c) for seat in s.alive for c in cards[seat - 1]))


# ---- apply -------------------------------------------------------------------------------------------------------

def _card_lost(s: GameState, e: CardLost) -> None:
    cards = list(s.cards)
    cards[e.seat - 1] = cards[e.seat - 1][1:]
    roles = list(s.roles)
    roles[e.seat - 1] = base(cards[e.seat - 1][0])
    s.cards, s.roles = tuple(cards), tuple(roles)


def _hands_dealt(s: GameState, e: HandsDealt) -> None:
    s.cards, s.alive = e.hands, frozenset(range(1, len(e.hands) + 1))


def _hands_settled(s: GameState, e: HandsSettled) -> None:
    s.cards, s.waiting, s.picks = e.cards, None, EMPTY


#: How these events change the engine's draft of the state (tx._APPLY).
APPLY: dict[type, Any] = {HandsDealt: _hands_dealt, HandsSettled: _hands_settled, CardLost: _card_lost}
