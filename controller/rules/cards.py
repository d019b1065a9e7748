"""The dual-card versions, D1 and D3 (version 6.0): every player holds two cards.

The model: ``GameState.cards[seat - 1]`` lists the cards the seat still has to play, the current one first, and
``GameState.roles`` keeps the current card's role. Everything that asks "what is this seat now?" (who wakes,
what a check answers, whom the killers count as partners) therefore works on the current card unchanged, which
is D1's "night kills and checks hit the target's current card". What changes is what a death means: when a
seat's current card dies and a second card is left, a :class:`CardLost` event turns the second card up and the
player plays on; only the last card's death takes the player out. The win tables count every card not yet dead
(D3: "three police cards dead").

A card is named by its role; a role listed in the variant's ``numbered`` key has numbered copies
("doctor#1", "doctor#2"), and a night step with ``copy = 2`` wakes only the holder of copy 2 (D3: doctor 1 and
doctor 2 act independently).

The deal (C1, D1, D3): the hands are dealt (:class:`HandsDealt`); a police+killer hand is swapped by the judge
(option ``dual.police_killer = swap``) or left to its player (``choose``); then every player chooses which card
is the first identity (an input at the deal, ``Pick(seat, 1)`` or ``Pick(seat, 2)``; at the deadline the card
dealt first is the first identity), and :class:`HandsSettled` plus an ordinary ``Dealt`` of the first
identities start the game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from controller.rules import win
from controller.rules.actions import Rejected
from controller.rules.agenda import day_agenda
from controller.rules.draws import choice, shuffle
from controller.rules.events import CardLost, DayBroke, Dealt, HandsDealt, HandsSettled, Picked
from controller.rules.hands import base, layer
from controller.rules.state import GameState

if TYPE_CHECKING:
    from controller.rules.setup import GameConfig
    from controller.rules.tx import Tx


#: The wait for the players' choice of their first identity.
FIRST_IDENTITY: Final = "first_identity"


# ---- the deal ----------------------------------------------------------------------------------------------------

def _number(config: GameConfig, deck: Sequence[str]) -> list[str]:
    numbered = config.variant.numbered
    seen: Counter[str] = Counter()
    out = []
    for role in deck:
        if role in numbered:
            seen[role] += 1
            out.append(f"{role}#{seen[role]}")
        else:
            out.append(role)
    return out


def _clash(hand: Sequence[str]) -> bool:
    """D3: police and killer in one hand. (The seed's rule names these two cards: role names here are the seed's
    rule D3, not a default of the engine.)"""
    roles = {base(c) for c in hand}
    return "police" in roles and "killer" in roles


def _swap(hands: list[tuple[str, ...]], rng: random.Random) -> list[tuple[str, ...]]:
    """D3 ``swap``: the judge swaps the killer card of a police+killer hand with a card of another hand chosen at
    random among those that leave neither hand holding police and killer."""
    for i, hand in enumerate(hands):
        if not _clash(hand):
            continue
        k = next(n for n, c in enumerate(hand) if base(c) == "killer")
        options = []
        for j, other in enumerate(hands):
            for m, card in enumerate(other):
                if j == i:
                    continue
                mine = tuple(card if n == k else c for n, c in enumerate(hand))
                theirs = tuple(hand[k] if n == m else c for n, c in enumerate(other))
                if not _clash(mine) and not _clash(theirs):
                    options.append((j, m))
        if not options:
            raise Rejected("police_killer_hand", f"seat {i + 1} holds police and killer and no swap can fix it")
        j, m = choice(rng, options)
        card, other = hands[j][m], hands[j]
        hands[j] = tuple(hand[k] if n == m else c for n, c in enumerate(other))
        hands[i] = tuple(card if n == k else c for n, c in enumerate(hand))
    return hands


def deal(tx: Tx, config: GameConfig, rng: random.Random, given: Sequence[str] | None, start: str) -> None:
    """C1/D1: deal two cards a seat (shuffled, or ``given`` seat by seat: seat 1's two cards first) and wait for
    the choice of first identities."""
    deck = config.deck()
    if given is None:
        shuffle(rng, deck)
        cards = _number(config, deck)
    else:
        if sorted(base(c) for c in given) != sorted(deck):
            raise Rejected("deck_mismatch", f"the dealt cards do not match the configuration ({len(deck)} cards, "
                                            f"{config.variant.hand} a player)")
        cards = _number(config, [base(c) for c in given])
    hands = [tuple(cards[i:i + 2]) for i in range(0, len(cards), 2)]
    if config.opt("dual.police_killer") == "swap" and any(_clash(h) for h in hands):
        if given is not None:
            seat = next(i + 1 for i, h in enumerate(hands) if _clash(h))
            raise Rejected("police_killer_hand", f"seat {seat} holds police and killer: the judge swaps one of "
                                                 "them with another player's card before the game (D3)")
        hands = _swap(hands, rng)
    tx.emit(HandsDealt(tuple(hands)))
    tx.agenda = [("dual_day_one",)] if start == "day" else [("night",)]
    tx.open(FIRST_IDENTITY, FIRST_IDENTITY, range(1, config.players + 1), (1, 2))


def choose_first(tx: Tx, seat: int, which: int | None) -> None:
    """D1: ``seat`` puts card ``which`` (1 or 2, in the order dealt) face down as the first identity. D3
    ``choose``: with police and killer in the hand, the chosen card is kept and the other becomes a civilian."""
    s = tx.s
    if not isinstance(seat, int) or not 1 <= seat <= s.players:
        raise Rejected("unknown_seat", f"there is no seat {seat}")
    if which not in (1, 2):
        raise Rejected("bad_target", f"seat {seat}: choose card 1 or card 2 as the first identity (D1)")
    if seat in s.picks:
        raise Rejected("already_answered", f"seat {seat} has already chosen the first identity")
    tx.emit(Picked(seat, which))
    if len(tx.s.picks) == s.players:
        settle(tx)


def settle(tx: Tx) -> None:
    """The choices are in (or the deadline passed: the card dealt first is the first identity)."""
    s = tx.s
    civilian = next((r for r, spec in s.config.variant.roles.items() if spec.civilian), "civilian")
    order = []
    for seat, hand in enumerate(s.cards, start=1):
        first = s.picks.get(seat) or 1
        cards = hand if first == 1 else tuple(reversed(hand))
        if _clash(cards):  # D3 choose: the kept identity first, the other becomes a civilian
            cards = (cards[0], civilian)
        order.append(cards)
    tx.emit(HandsSettled(tuple(order)))
    tx.emit(Dealt(tuple(base(c[0]) for c in order)))


def task_day_one(tx: Tx) -> None:
    tx.emit(DayBroke(1))
    tx.agenda[:] = day_agenda(tx.s)


TASKS: dict[str, Any] = {"dual_day_one": task_day_one}


# ---- deaths: a card, or the player ------------------------------------------------------------------------------

def turn(tx: Tx, deaths: tuple[tuple[int, str], ...]) -> tuple[tuple[int, str], ...]:
    """C8/D1 at dawn: a dying current card with a second card behind it turns the second card up (the player
    plays on); the rest are players out of the game."""
    out = []
    for seat, cause in deaths:
        if len(tx.s.cards[seat - 1]) > 1:
            tx.emit(CardLost(seat, cause))
        else:
            out.append((seat, cause))
    return tuple(out)


def has_second(s: GameState, seat: int) -> bool:
    return bool(s.cards) and len(s.cards[seat - 1]) > 1


def lose_card(tx: Tx, seat: int, cause: str) -> None:
    """D3: a player voted out shows the first identity and plays on with the second."""
    tx.emit(CardLost(seat, cause, tx.s.role_of(seat) if cause == "executed" else ""))
    result = win.check(tx.s)
    if result:
        tx.end(*result)


# ---- dawn (D3) ---------------------------------------------------------------------------------------------------

def resolve(s: GameState) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    """D3, all at once (C8):

    - each doctor's needle saves the card from the killers' kill; each doctor's needles on one card are counted
      separately, and a card's second needle from the same doctor kills it (decision: a needle that saves counts
      too); doctors may needle each other;
    - a sniper's shot kills the card (decision: a needle does not save from a shot; the seed says only that the
      doctors save);
    - two snipers, two doctors act independently: their effects simply add up.
    """
    deaths: dict[int, str] = {}
    marks: list[tuple[str, int]] = []
    needled: set[int] = set()
    for a in s.acts:
        if a.ability == "dual_needle" and a.target is not None:
            t = a.target
            needled.add(t)
            key = f"needles:{a.step}:{t}.{layer(s, t)}"
            n = s.mark(key) + 1
            marks.append((key, n))
            if n >= 2:
                deaths.setdefault(t, "needles")
    for a in s.acts:
        if a.target is None:
            continue
        if a.ability == "kill" and a.target not in needled:
            deaths.setdefault(a.target, "killed")
        elif a.ability == "dual_shot":
            deaths.setdefault(a.target, "shot")
    return tuple(sorted(deaths.items())), tuple(marks)


# ---- D2: both cards live (seed 001's 5.0) --------------------------------------------------------------------------
# Each card is a place of its own at the table: player k holds places 2k-1 and 2k. A kill or a check points at
# one card, every card acts in its role, every living card votes, and a player is out when both places are.

def player_of(place: int) -> int:
    """D2: the player holding card place ``place``."""
    return (place + 1) // 2


def _killer_and_police(cards: Sequence[str]) -> int:
    """D2: the first player holding killer and police (0: none). The seed's rule names these two cards."""
    for k in range(0, len(cards) - 1, 2):
        if {cards[k], cards[k + 1]} == {"killer", "police"}:
            return k // 2 + 1
    return 0


def deal_live(config: GameConfig, rng: random.Random, given: Sequence[str] | None) -> list[str]:
    """D2: shuffle until no player holds killer and police ("the deal is void, deal again"); a physical deal
    with such a hand is refused back to the judge."""
    if given is not None:
        bad = _killer_and_police(given)
        if bad:
            raise Rejected("killer_police_hand", f"player {bad} (cards {2 * bad - 1} and {2 * bad}) holds killer "
                                                 "and police: the deal is void, deal again (D2)")
        return list(given)
    deck = config.deck()
    for _ in range(10_000):
        shuffle(rng, deck)
        if not _killer_and_police(deck):
            return deck
    raise Rejected("killer_police_hand", "no deal without a killer+police hand exists for this composition (D2)")


def each_check(tx: Tx, final: bool) -> None:
    """D2: every card of the step points on its own (each killer card its own victim): once all have pointed,
    or at the deadline, each pick is settled by itself; a card that did not point forfeits."""
    from controller.rules.events import Acted

    s = tx.s
    w = s.waiting
    assert w is not None
    members = [m for m in w.seats if m in s.alive]
    if not final and not all(m in s.picks for m in members):
        return
    ability = s.config.variant.night_steps[w.step].ability
    picks = s.picks  # as pointed: each Acted below clears the draft's picks
    for m in members:
        target = picks.get(m)
        how = "chosen" if target is not None else ("skipped" if m in picks else "forfeited")
        marks = ((f"spent:{m}", 1),) if ability == "secret_kill" and target is not None else ()
        tx.emit(Acted(w.step, ability, (m,), target, how, "", marks))


def resolve_d2(s: GameState) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[str, int], ...]]:
    """D2, all at once (C8). The butterfly's hugged card cannot be killed (by the killers or a secret police:
    decision); a hugged killer's kill fails (unless another killer card points at the same victim); a hugged
    doctor cannot save; a hugged secret police cannot use the power that night (decision: the power is not
    spent); if the butterfly dies, the hugged card dies with it. The doctor saves the killers' victim (a wrong
    save has no effect, no empty needles). A secret police with the power unspent comes back from the killers'
    kill (decision as V3.3: also on the night it uses it); its one kill hits anyone."""
    acts = s.acts
    hug = next((a for a in acts if a.ability == "d2_hug" and a.target is not None), None)
    hugged = hug.target if hug is not None else None
    butterfly = hug.actors if hug is not None else ()
    saved = {a.target for a in acts if a.ability == "protect" and hugged not in a.actors}
    shooters = {x for a in acts if a.ability == "secret_kill" and a.target is not None for x in a.actors}
    deaths: dict[int, str] = {}
    marks: list[tuple[str, int]] = []
    for a in acts:
        t = a.target
        if t is None or t == hugged:
            continue
        if a.ability == "kill":
            if all(x == hugged for x in a.actors) or t in saved:
                continue
            # D2's own dawn (a seed rule, by the seed's card names, as this whole function is)
            if s.roles[t - 1] == "secret_police" and (s.mark(f"spent:{t}") == 0 or t in shooters):
                continue
            deaths.setdefault(t, "killed")
        elif a.ability == "secret_kill":
            if hugged in a.actors:
                marks += [(f"spent:{x}", 0) for x in a.actors]
                continue
            deaths.setdefault(t, "secret_police")
    if hugged is not None and any(b in deaths for b in butterfly):
        deaths.setdefault(hugged, "with_butterfly")
    return tuple(sorted(deaths.items())), tuple(marks)
