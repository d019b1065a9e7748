"""The deal with real cards (C1; D1-D3: two cards a player) and the peek at one's own role.

Every dealer taps its card(s); each card is shown on its dealer's screen for a moment and hidden again; unknown,
duplicate and extra cards are caught on the seat that tapped them; once every card is in, the roles go to the
engine, which may still refuse the deal (a void hand, D2/D3). Holding OK (or tapping one's card again) later
shows one's own role on one's own screen only. Kept apart because the deal is a game before the game, with its
own screens and its own mistakes.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence

from controller.director.judge_table import words
from controller.director.places import seat_of
from controller.director.seams import Parts, Setup
from controller.rules import engine
from controller.rules.actions import Rejected
from controller.screens import views as v
from controller.screens.strings import UI, Lang, role_name
from controller.voice.prompts import prompt

log = logging.getLogger(__name__)


class CardDeal:
    """The deal with cards, and the private peek at one's own role."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.clock = setup.clock
        self.config = setup.config
        self.deck = setup.deck
        self.seed = setup.seed
        self.t = setup.t
        config = setup.config
        #: Who taps cards at the deal, and how many each (C1; D1-D3 two): every seat, one card; D1/D3 every
        #: seat, two; D2 the card 1 place of each physical seat (places.py routes a seat's taps there while
        #: nothing is dealt), whose two cards are its two places'.
        self.hand = 1 if config.variant.hand == 1 else 2
        #: The engine refused the last deal (a void hand): the redeal need not say someone saw a card.
        self.deal_void = False
        self.dealers = tuple(sorted(n for n in setup.seats if config.variant.live != "both" or n % 2 == 1))
        self.dealer_of = {n: n - (1 - n % 2) if config.variant.live == "both" else n for n in setup.seats}

    def ask_for_cards(self) -> None:
        """Every dealer's screen asks for its first card (the dual-card versions: "tap card 1")."""
        for seat, ui in self.parts.seats.ui.items():
            ui.cards = ()
            if ui.notice_handle is not None:
                ui.notice_handle.cancel()
            ui.notice, ui.notice_handle = None, None
            self.parts.seats.set(seat, self._tap_view(self.dealer_of[seat], 0))

    def _tap_view(self, dealer: int, read: int) -> v.TapCard:
        """What a dealer's screen asks for once ``read`` of its cards are in."""
        if self.hand == 1:
            return v.TapCard(dealer)
        return v.TapCard(self._card_seat(dealer, read + 1), card=read + 1)

    def _card_seat(self, dealer: int, card: int) -> int:
        """The number a screen names card ``card`` (1 or 2) of ``dealer`` by: in D2 each card is a place of its
        own (card 2 is the next place, "7-2"); elsewhere the dealer's seat."""
        return dealer + card - 1 if self.config.variant.live == "both" else dealer

    def _dealer_name(self, dealer: int) -> str:
        """The dealer as the judge's remote names it: the physical seat (D2's card 1 place is its seat)."""
        return str(seat_of(dealer)) if self.config.variant.live == "both" else str(dealer)

    def _reveal(self, dealer: int, role: str, card: int) -> None:
        """Show the card just read (or read again) on its dealer's screen, then hide it (:meth:`_card_read`)."""
        ui = self.parts.seats.ui[dealer]
        if ui.reveal_handle is not None:  # a card read meanwhile is shown its full time
            ui.reveal_handle.cancel()
        self.parts.seats.set(dealer, v.RoleReveal(self._card_seat(dealer, card), role, (), hint=True,
                                       card=card if self.hand > 1 else 0))
        ui.reveal_handle = self.clock.call_at(self.clock.now() + self.t.reveal_s, lambda: self._card_read(dealer))

    def card(self, seat: int, uid: str) -> None:
        if self.parts.loop.stage != "deal" or self.deck is None:
            self._card_in_play(seat, uid)
            return
        dealer = self.dealer_of.get(seat)
        if dealer is None:
            log.warning("card from seat %s, which is not in this game, ignored", seat)
            return
        ui = self.parts.seats.ui[dealer]
        name = self._dealer_name(dealer)
        # Readers spell UIDs in either case; the deck's spelling is the card's name from here on.
        uid = next((u for u in (uid, uid.upper(), uid.lower()) if u in self.deck), uid)
        role = self.deck.get(uid)
        holder = next((d for d in self.dealers if uid in self.parts.seats.ui[d].cards), None)
        if role is None:
            self.parts.seats.notice(dealer, v.CardProblem(v.CardProblemKind.UNKNOWN), keep=True)
            self.parts.loop.beat("say", [prompt("error.unknown_card")])
            self.parts.remote.remote_line(words("deal_unknown_card", n=name, uid=uid))
        elif holder == dealer:  # a card of one's own again: the player checks its role once more
            self._reveal(dealer, role, ui.cards.index(uid) + 1)
        elif len(ui.cards) >= self.hand:
            self.parts.seats.notice(dealer, v.CardProblem(v.CardProblemKind.TAPPED_TWICE, hand=self.hand))
            self.parts.remote.remote_line(words("deal_extra_card", n=name, count=self.hand + 1))
        elif holder is not None:
            other = self._card_seat(holder, self.parts.seats.ui[holder].cards.index(uid) + 1)
            self.parts.seats.notice(dealer, v.CardProblem(v.CardProblemKind.DUPLICATE, other_seat=other), keep=True)
            self.parts.loop.beat("say", [prompt("error.duplicate_card")])
            self.parts.remote.remote_line(words("deal_duplicate_card", n=name, uid=uid, m=self._dealer_name(holder)))
        else:
            if ui.notice_handle is not None:
                ui.notice_handle.cancel()
            ui.notice, ui.notice_handle = None, None
            ui.cards += (uid,)
            self._reveal(dealer, role, len(ui.cards))
            if all(len(self.parts.seats.ui[d].cards) == self.hand for d in self.dealers):
                self._cards_complete()
        self.parts.loop.pump()

    def _card_read(self, dealer: int) -> None:
        """The card was shown long enough: hide it again (if the deal is still on: a card may be re-tapped),
        and ask for the next card if the dealer has one to tap."""
        ui = self.parts.seats.ui[dealer]
        ui.reveal_handle = None
        if self.parts.loop.stage == "deal" and isinstance(ui.view, v.RoleReveal):
            if len(ui.cards) < self.hand:
                self.parts.seats.set(dealer, self._tap_view(dealer, len(ui.cards)))
            else:
                self.parts.seats.set(dealer, v.Message(v.L10n("已登记", "Card read"), v.L10n("等待其他人", "Waiting for others")))
            self.parts.seats.refresh()

    @property
    def dealt_cards(self) -> dict[int, str]:
        """Seat -> the card it tapped (the first one where a seat taps two): who holds what, for tests and tools."""
        return {d: self.parts.seats.ui[d].cards[0] for d in self.dealers if self.parts.seats.ui[d].cards}

    def _cards_complete(self) -> None:
        """Every card is in: the roles go to the engine in its order (seat by seat, card 1 then card 2: D1's
        hands, D2's places 2k-1 and 2k)."""
        assert self.deck is not None
        roles = [self.deck[uid] for d in self.dealers for uid in self.parts.seats.ui[d].cards]
        want: dict[str, int] = dict(self.config.composition)
        have: dict[str, int] = {}
        for r in roles:
            have[r] = have.get(r, 0) + 1
        missing = tuple((r, n - have.get(r, 0)) for r, n in want.items() if n > have.get(r, 0))
        extra = tuple((r, n - want.get(r, 0)) for r, n in have.items() if n > want.get(r, 0))
        if missing or extra:
            for seat in self.dealers:
                self.parts.seats.notice(seat, v.CardProblem(v.CardProblemKind.DECK_MISMATCH, missing=missing, extra=extra),
                             keep=True)
            self.parts.loop.beat("say", [prompt("error.deck_mismatch")])
            self.parts.remote.remote_line(v.L10n(
                UI["deal_mismatch"][0].format(missing=_counted(missing, Lang.ZH), extra=_counted(extra, Lang.ZH)),
                UI["deal_mismatch"][1].format(missing=_counted(missing, Lang.EN), extra=_counted(extra, Lang.EN))))
            return
        try:
            state, events = engine.new_game(self.config, random.Random(self.seed), seed=self.seed, roles=roles)
        except Rejected as exc:  # D2 / D3 swap: a hand of killer and police voids the deal; the judge redeals
            self._deal_refused(exc, roles)
            return
        self.parts.loop.commit(None, state, events, cards={d: self.parts.seats.ui[d].cards for d in self.dealers})
        self.parts.loop.beat("wait", self.t.reveal_s)
        self.parts.loop.beat("call", self.parts.loop.begin_play)

    def _deal_refused(self, exc: Rejected, roles: Sequence[str]) -> None:
        """The engine refused the cards as dealt: the judge's remote reads why, the seats whose hand is void
        (killer and police, D2/D3) say so, everyone else waits; nothing was started, the redeal starts over."""
        hands = {d: {roles[i * self.hand + j] for j in range(self.hand)} for i, d in enumerate(self.dealers)}
        # D2/D3: the seeds' void hand is killer + police by name (a rule of the dual-card versions)
        void = [d for d, hand in hands.items() if {"killer", "police"} <= hand] or list(self.dealers)
        for d in void:
            self.parts.seats.notice(d, v.CardProblem(v.CardProblemKind.VOID_HAND), keep=True)
        self.parts.loop.note("table", f"deal refused: {exc.message}", public=False)
        self.parts.loop.beat("say", [prompt("error.void_hand")])
        self.deal_void = True
        why = words("deal_void", code=exc.code, why=exc.message)
        if "hand" not in exc.code:  # the cards are not the deck the game was set up with
            why = v.L10n(f"发牌无效（{exc.code}）：牌组不符", why.en)
        self.parts.remote.remote_line(why)
        self.parts.remote.remote_line(words("deal_redeal_hint"))

    def again(self) -> None:
        """The judge's redeal (C1): every card is tapped again, the room told why."""
        for ui in self.parts.seats.ui.values():
            if ui.reveal_handle is not None:
                ui.reveal_handle.cancel()
                ui.reveal_handle = None
        self.ask_for_cards()
        why = prompt("setup.deal_again") if self.deal_void else prompt("setup.redeal")
        self.deal_void = False
        self.parts.loop.beat("say", [why, self.tap_prompt()])

    def tap_prompt(self) -> str:
        """C1: tap your card; D1-D3: tap both your cards, one after the other."""
        return prompt("setup.tap_two_cards") if self.hand > 1 else prompt("setup.tap_card")

    def _card_in_play(self, seat: int, uid: str) -> None:
        """A card tapped once the deal is over. Only the seat's own card shows its role (C1), and only while
        the seat's owner may look (never on a sleeping seat at night: a neighbour awake could read it); a card
        the deck does not have is "not in this deck"; another seat's card shows nothing of anyone's role."""
        if seat not in self.parts.seats.ui or self.parts.loop.state is None or self.parts.seats.eyes_closed(seat):
            return  # at night a sleeping seat stays dark, whatever is tapped on it
        dealer = self.dealer_of.get(seat, seat)
        deck = self.deck or {}
        uid = next((u for u in (uid, uid.upper(), uid.lower()) if u in deck), uid)
        if uid not in deck:  # an unknown UID, or any card at a digital deal
            self.parts.seats.notice(seat, v.CardProblem(v.CardProblemKind.UNKNOWN))
        elif uid in self.parts.seats.ui[dealer].cards:
            self.arm_peek(seat, now=True)  # tapping your own card again shows your role
        else:
            self.parts.seats.notice(seat, v.Message(v.L10n("不是你的牌", "Not your card"),
                                         v.L10n("只有自己的牌显示身份", "Only your own card shows a role")))

    def arm_peek(self, seat: int, now: bool = False) -> None:
        """Holding OK (or tapping one's card) shows one's own role (C1: privately, on one's own screen), never
        on a seat whose owner's eyes are closed (night, not awake): a neighbour awake could read it."""
        ui = self.parts.seats.ui[seat]
        if self.parts.loop.state is None or not self.parts.loop.state.roles or self.parts.seats.eyes_closed(seat):
            return

        def peek() -> None:
            ui.peek_handle = None
            if self.parts.seats.eyes_closed(seat):  # night fell while OK was held
                return
            ui.peeking = True
            self.parts.seats.refresh()
            if now:
                self.clock.call_at(self.clock.now() + self.t.reveal_s, unpeek)

        def unpeek() -> None:
            ui.peeking = False
            self.parts.seats.refresh()

        if now:
            peek()
        elif ui.peek_handle is None:
            ui.peek_handle = self.clock.call_at(self.clock.now() + self.t.peek_hold_s, peek)


def _counted(roles: Sequence[tuple[str, int]], lang: Lang) -> str:
    """("killer", 1), ("police", 2) as "杀手×1、警察×2" / "Killer×1, Police×2"; none: "-"."""
    return ("、" if lang is Lang.ZH else ", ").join(f"{role_name(r, lang)}×{n}" for r, n in roles) or "-"
