"""The physical deal of the dual-card versions (C1, D1-D3): every player taps two role cards on the seat's one
reader, card 1 then card 2; the seat's screen says which card it waits for and shows each card as it is read.
The engine gets the roles in its order (D1: seat by seat, card 1 then card 2; D2: places 2k-1 then 2k). A hand
the rules void (D2 killer + police; D3 police + killer when the judge swaps) is shown to the judge and to the
seat concerned, and the judge redeals."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config import load
from controller.director.clock import VirtualScheduler
from controller.director.director import Director
from controller.director.journal import SqliteJournal
from controller.director.places import PlaceTable, PlaceVoice, places_of
from controller.director.timing import Timings
from controller.live import LiveOptions, run_live
from controller.ports import RemoteKey
from controller.rules.cards import base
from controller.rules.events import Dealt, HandsDealt
from controller.screens import views as v
from controller.sessions.session import Session
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack
from tests.director.helpers import game_config, play, session
from tests.rules.table import LETTERS

REVEAL_S = Timings().reveal_s

#: 6.0 at 6 players (D3's line: 2 killers, 2 police, 2 doctors, 2 snipers, 4 civilians), no police+killer hand.
HANDS_6 = "DK PC KJ PD JC CC"
#: 5.0 at 8 players (2 killers, undercover, butterfly, 2 police, 2 doctors, 2 secret police, 4 civilians).
HANDS_5 = "KC BD PU SC KD PC SC CC"


def uid(seat: int, card: int) -> str:
    """The UID of card ``card`` (1 or 2) dealt to physical seat ``seat`` in a scripted deck."""
    return f"04D0{seat:02X}{card:02X}"


class DualTable:
    """A simulated table dealing two cards a player, with no bots: the test is every player and the judge.
    ``hands`` names each seat's two cards in the order they are tapped ("DK": a doctor card, then a killer)."""

    def __init__(self, variant: str, hands: str, options: dict[str, Any] | None = None, seed: int = 1,
                 journal: SqliteJournal | None = None) -> None:
        self.hands = {seat: (LETTERS[h[0]], LETTERS[h[1]]) for seat, h in enumerate(hands.split(), start=1)}
        counts = Counter(r for hand in self.hands.values() for r in hand if r != "civilian")
        self.config = game_config(variant, len(self.hands), options, counts)
        self.deck = {uid(seat, i + 1): role for seat, hand in self.hands.items() for i, role in enumerate(hand)}
        self.clock = VirtualScheduler()
        self.physical = SimTable(len(self.hands), self.clock.now)
        voice = NullVoice(self.clock.now, load_voice_pack("en"))
        self.voice = voice
        self.d2 = self.config.variant.live == "both"
        table: Any = PlaceTable(self.physical) if self.d2 else self.physical
        self.director = Director(table, PlaceVoice(voice) if self.d2 else voice, self.clock, self.config,
                                 journal=journal, lang="en", seed=seed, deck=self.deck)
        if isinstance(table, PlaceTable):
            d = self.director
            table.follow(d.wants_input, lambda place: d.state is None or place in d.state.alive)
        self.table = table
        self.director.start()

    def tap(self, seat: int, card: int, owner: int | None = None) -> None:
        """Seat ``seat`` taps card ``card`` of ``owner``'s hand (its own by default) on its reader."""
        self.physical.tap(seat, uid(owner or seat, card))

    def deal(self) -> None:
        for seat in self.hands:
            self.tap(seat, 1)
            self.tap(seat, 2)

    def screen(self, seat: int) -> v.View | None:
        """What physical seat ``seat`` shows (D2: the place it acts for)."""
        place = self.table.shown.get(seat, seat) if self.d2 else seat
        return self.director.ui[place].drawn

    def run_for(self, seconds: float) -> None:
        self.clock.run(max_time=self.clock.now() + seconds)

    def until_play(self) -> None:
        self.clock.run(until=lambda: self.director.stage == "play", max_time=self.clock.now() + 600)
        assert self.director.stage == "play"

    def redeal(self) -> None:
        """The judge opens the remote's menu, scrolls to "redeal" and presses the centre key twice (it asks)."""
        self.physical.remote_key(RemoteKey.MENU)
        while self.director.menu_rows[self.director.menu or 0] != "redeal":
            self.physical.remote_key(RemoteKey.DOWN)
        self.physical.remote_key(RemoteKey.CENTER)
        self.physical.remote_key(RemoteKey.CENTER)

    def remote_told(self) -> list[str]:
        """What the remote was told, in English (the table's language here)."""
        return [getattr(line, "en", line) for line in self.director.remote_lines]


# ---- one seat's two cards ------------------------------------------------------------------------------------

def test_seat_3_taps_a_doctor_card_then_a_killer_card():
    t = DualTable("dual-card-6.0", HANDS_6)
    assert t.screen(3) == v.TapCard(3, card=1)
    assert "setup.tap_two_cards" in _said(t)  # the room hears: both cards, one after the other
    t.physical.tap(3, uid(1, 1))  # seat 1's doctor card, dealt to seat 3 instead: seat 3's card 1 now
    assert t.screen(3) == v.RoleReveal(3, "doctor", (), hint=True, card=1)
    t.run_for(REVEAL_S)
    assert t.screen(3) == v.TapCard(3, card=2)  # the first card is hidden again; the reader waits for card 2
    t.physical.tap(3, uid(1, 2))  # and seat 1's killer card
    assert t.screen(3) == v.RoleReveal(3, "killer", (), hint=True, card=2)
    t.run_for(REVEAL_S)
    assert t.screen(3) == v.Message(v.L10n("已登记", "Card read"), v.L10n("等待其他人", "Waiting for others"))
    assert all(t.screen(s) == v.TapCard(s, card=1) for s in t.hands if s != 3)  # nobody else sees a thing


def test_a_card_tapped_again_is_shown_again_and_a_third_card_is_refused():
    t = DualTable("dual-card-6.0", HANDS_6)
    t.tap(4, 1)
    t.tap(4, 2)
    t.run_for(REVEAL_S)
    t.tap(4, 1)  # the police card again: the player checks it once more, no complaint
    assert t.screen(4) == v.RoleReveal(4, "police", (), hint=True, card=1)
    t.tap(4, 1, owner=5)  # a third card
    assert t.screen(4) == v.CardProblem(v.CardProblemKind.TAPPED_TWICE, hand=2)
    assert "seat 4: tapped one card too many (card 3)" in t.remote_told()
    assert t.director.ui[4].cards == (uid(4, 1), uid(4, 2))
    t.tap(5, 1)  # the card is still free for its owner
    assert t.screen(5) == v.RoleReveal(5, "sniper", (), hint=True, card=1)


def test_the_second_card_read_during_the_first_ones_reveal_is_shown_its_full_time():
    t = DualTable("dual-card-6.0", HANDS_6)
    t.tap(2, 1)
    t.run_for(REVEAL_S / 2)
    t.tap(2, 2)
    t.run_for(REVEAL_S * 0.75)  # the first card's time is up, the second's is not
    assert t.screen(2) == v.RoleReveal(2, "civilian", (), hint=True, card=2)


def test_a_card_already_at_another_seat_is_refused_at_the_second_seat():
    t = DualTable("dual-card-6.0", HANDS_6)
    t.tap(1, 1)
    t.tap(1, 2)
    t.tap(2, 2, owner=1)  # seat 1's killer card turns up at seat 2
    assert t.screen(2) == v.CardProblem(v.CardProblemKind.DUPLICATE, other_seat=1)
    assert f"seat 2: card {uid(1, 2)} is already at seat 1" in t.remote_told()
    assert t.screen(1) == v.RoleReveal(1, "killer", (), hint=True, card=2)  # seat 1 is not disturbed
    assert t.director.ui[2].cards == ()
    t.tap(2, 1)
    assert t.screen(2) == v.RoleReveal(2, "police", (), hint=True, card=1)  # the right card clears the notice
    t.run_for(10)
    assert "error.duplicate_card" in _said(t)


def test_an_unknown_card_is_named_on_its_seat():
    t = DualTable("dual-card-6.0", HANDS_6)
    t.tap(6, 1)
    t.physical.tap(6, "DEADBEEF")
    assert t.screen(6) == v.CardProblem(v.CardProblemKind.UNKNOWN)
    assert "seat 6: card DEADBEEF is not in this deck" in t.remote_told()
    t.tap(6, 2)
    assert t.screen(6) == v.RoleReveal(6, "civilian", (), hint=True, card=2)


# ---- the engine gets the cards in its order --------------------------------------------------------------------

def test_d1_the_hands_go_to_the_engine_seat_by_seat_card_1_then_card_2():
    t = DualTable("dual-card-6.0", HANDS_6)
    t.deal()
    t.until_play()
    hands = next(e.hands for e in t.director.events if isinstance(e, HandsDealt))
    assert [tuple(base(c) for c in h) for h in hands] == [t.hands[s] for s in sorted(t.hands)]
    assert hands[0] == ("doctor#1", "killer") and hands[3] == ("police", "doctor#2")  # D3: numbered in deal order
    t.clock.run(until=lambda: t.director.window is not None, max_time=t.clock.now() + 60)
    assert t.director.window is not None and t.director.window.kind == "first_identity"
    shown = t.screen(1)
    assert isinstance(shown, v.HandChoice) and shown.cards == ("doctor#1", "killer")


def test_d2_a_seats_two_cards_are_its_two_places():
    t = DualTable("dual-card-5.0", HANDS_5)
    assert t.screen(3) == v.TapCard(5, card=1)  # seat 3's card 1 is place 5, "3-1"
    t.tap(3, 1)
    assert t.table.shown[3] == 5 and t.screen(3) == v.RoleReveal(5, "police", (), hint=True, card=1)
    t.run_for(REVEAL_S)
    assert t.screen(3) == v.TapCard(6, card=2)  # "seat 3-2: tap card 2"
    t.tap(3, 2)
    assert t.screen(3) == v.RoleReveal(6, "undercover_killer", (), hint=True, card=2)
    for seat in t.hands:
        if seat != 3:
            t.tap(seat, 1)
            t.tap(seat, 2)
    t.until_play()
    dealt = next(e.roles for e in t.director.events if isinstance(e, Dealt))
    assert dealt == tuple(r for s in sorted(t.hands) for r in t.hands[s])
    assert [dealt[p - 1] for p in places_of(3)] == ["police", "undercover_killer"]


def test_d2_a_card_already_at_another_seat_names_that_seat_and_card():
    t = DualTable("dual-card-5.0", HANDS_5)
    t.tap(2, 1)
    t.tap(2, 2)
    t.tap(4, 2, owner=2)
    assert t.screen(4) == v.CardProblem(v.CardProblemKind.DUPLICATE, other_seat=4)  # place 4: drawn "2-2"
    assert f"seat 4: card {uid(2, 2)} is already at seat 2" in t.remote_told()


# ---- a void hand: the judge redeals ------------------------------------------------------------------------------

def test_d2_killer_and_police_in_one_hand_void_the_deal_and_the_judge_redeals():
    t = DualTable("dual-card-5.0", "KP BD CU SC KD PC SC CC")
    t.deal()
    t.run_for(REVEAL_S + 1)
    d = t.director
    assert d.state is None and d.stage == "deal"  # nothing was started, nothing journaled
    assert t.screen(1) == v.CardProblem(v.CardProblemKind.VOID_HAND)  # seat 1 holds killer and police
    assert not any(isinstance(t.screen(s), v.CardProblem) for s in t.hands if s != 1)
    assert any("killer_police_hand" in line and "player 1 (cards 1 and 2)" in line for line in t.remote_told())
    t.run_for(8)  # the room hears why (not "someone saw a card")
    assert _said(t)[-1] == "error.void_hand"
    t.redeal()
    t.run_for(8)
    assert all(t.screen(s) == v.TapCard(places_of(s)[0], card=1) for s in t.hands)
    assert _said(t)[-2:] == ["setup.deal_again", "setup.tap_two_cards"]
    # the cards go round again: seat 1 keeps its killer and takes seat 2's civilian; seat 2 takes the police
    t.tap(1, 1)
    t.tap(1, 1, owner=3)
    t.tap(3, 2, owner=1)
    t.tap(3, 2)
    for seat in range(2, 9):
        if seat != 3:
            t.tap(seat, 1)
            t.tap(seat, 2)
    t.until_play()
    dealt = next(e.roles for e in d.events if isinstance(e, Dealt))
    assert dealt[:2] == ("killer", "civilian") and dealt[4:6] == ("police", "undercover_killer")


def test_d3_police_and_killer_in_one_hand_is_refused_when_the_judge_swaps():
    t = DualTable("dual-card-6.0", "DC PK CJ PD JC CK")
    t.deal()
    t.run_for(REVEAL_S + 1)
    assert t.director.state is None
    assert t.screen(2) == v.CardProblem(v.CardProblemKind.VOID_HAND)
    assert any("police_killer_hand" in line for line in t.remote_told())
    t.redeal()
    assert all(t.screen(s) == v.TapCard(s, card=1) for s in t.hands)


def test_d3_a_police_and_killer_hand_is_the_players_to_choose_when_the_option_says_so():
    t = DualTable("dual-card-6.0", "DC PK CJ PD JC CK", {"dual.police_killer": "choose"})
    t.deal()
    t.until_play()
    hands = next(e.hands for e in t.director.events if isinstance(e, HandsDealt))
    assert hands[1] == ("police", "killer")


@settings(max_examples=25, deadline=None)
@given(order=st.permutations(list("KKPPDDJJCCCC")))
def test_any_6_0_deal_reaches_the_engine_in_tap_order_or_is_void_exactly_for_police_and_killer(order):
    """D1/D3 invariant: whatever cards the six players hold, the engine deals them as tapped, unless a hand holds
    police and killer (the judge swaps: the deal is void on that seat, and nothing starts)."""
    hands = " ".join(a + b for a, b in zip(order[::2], order[1::2], strict=True))
    t = DualTable("dual-card-6.0", hands)
    t.deal()
    t.run_for(REVEAL_S + 1)
    void = {seat for seat, hand in t.hands.items() if set(hand) == {"killer", "police"}}
    d = t.director
    if void:
        assert d.state is None
        assert {s for s in t.hands if t.screen(s) == v.CardProblem(v.CardProblemKind.VOID_HAND)} == void
    else:
        dealt = next(e.hands for e in d.events if isinstance(e, HandsDealt))
        assert [tuple(base(c) for c in h) for h in dealt] == [t.hands[s] for s in sorted(t.hands)]


# ---- whole games with the bots tapping their two cards -----------------------------------------------------------

@pytest.mark.parametrize(("variant", "players"), [("dual-card-6.0", 9), ("dual-card-5.0", 8)])
def test_a_whole_game_dealt_with_cards_plays_to_the_end(variant, players):
    s = session(variant, players, 5, "heuristic", cards=True)
    result = play(s)
    assert result["winner"] in ("good", "killers", "draw")
    deck = s.director.deck
    assert deck is not None
    roles = [deck[u] for seat in sorted(s.dealt) for u in s.dealt[seat]]
    if variant == "dual-card-6.0":
        hands = next(e.hands for e in s.director.events if isinstance(e, HandsDealt))
        assert [base(c) for h in hands for c in h] == roles
    else:
        assert list(next(e.roles for e in s.director.events if isinstance(e, Dealt))) == roles
    assert not any("digital deal" in line.what for line in s.director.transcript)


def test_the_simulated_deck_never_deals_a_hand_the_rules_void():
    for seed in range(40):
        s = session("dual-card-5.0", 8, seed, None, cards=True)
        deck = s.director.deck
        assert deck is not None
        assert not any({"killer", "police"} <= {deck[u] for u in hand} for hand in s.dealt.values()), seed


# ---- a power cut after a deal with cards ----------------------------------------------------------------------

def _outcome(s: Session) -> dict[str, Any]:
    st = s.director.state
    assert st is not None and st.over
    return {"winner": st.winner, "days": st.day, "nights": st.night, "cards": st.cards,
            "alive": sorted(st.alive)}


@pytest.mark.parametrize(("variant", "players"), [("dual-card-6.0", 9), ("dual-card-5.0", 8)])
def test_a_game_dealt_with_cards_resumes_after_a_power_cut(tmp_path: Path, variant, players):
    whole = session(variant, players, 2, "heuristic", journal_path=tmp_path / "whole.sqlite", cards=True)
    play(whole)
    for cut in (4.0, 50.0):  # during the deal (nothing dealt yet: it starts over), then in the first night
        path = tmp_path / f"cut-{cut:g}.sqlite"
        first = session(variant, players, 2, "heuristic", journal_path=path, cards=True)
        first.start()
        first.run(max_time=cut)
        assert first.director.stage != "over"
        # the power goes; a new table reads the journal
        again = session(variant, players, 2, "heuristic", journal_path=path, cards=True)
        again.start()
        assert again.director.stage == ("deal" if cut < 10 else "play")
        again.run(max_time=100_000)
        assert _outcome(again) == _outcome(whole), f"cut at {cut}s"


# ---- the live table with a deck configured -------------------------------------------------------------------

@pytest.fixture
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


@pytest.mark.usefixtures("_dummy_sdl")
@pytest.mark.parametrize(("variant", "hands"), [("dual-card-6.0", HANDS_6), ("dual-card-5.0", HANDS_5)])
def test_the_live_table_deals_two_cards_a_player_from_the_configured_deck(tmp_path, variant, hands):
    seats = {seat: (LETTERS[h[0]], LETTERS[h[1]]) for seat, h in enumerate(hands.split(), start=1)}
    (tmp_path / "decks").mkdir()
    cards = "".join(f'[[card]]\nuid = "{uid(seat, i + 1)}"\nrole = "{role}"\n\n'
                    for seat, hand in seats.items() for i, role in enumerate(hand))
    (tmp_path / "decks" / "club-dual.toml").write_text(f'name = "club-dual"\nvariant = "{variant}"\n\n{cards}')
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nhardware = "sim"\n[game]\nvariant = "{variant}"\nplayers = {len(seats)}\n'
                   f'deck = "club-dual"\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    config = load(cfg)
    outcome: dict[str, Any] = {}

    async def deal() -> None:
        started = asyncio.Event()
        seen: list[Director] = []

        def watch(director: Director) -> None:
            seen.append(director)
            started.set()

        task = asyncio.create_task(run_live(config, LiveOptions(window=False, on_started=watch)))
        await asyncio.wait_for(started.wait(), timeout=30)
        director = seen[0]
        physical = getattr(director.table, "physical", director.table)
        for seat in seats:
            for card in (1, 2):
                physical.tap(seat, uid(seat, card).lower())  # readers may spell the UID in lower case
        outcome["events"] = list(director.events)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(deal())
    flat = [r for seat in sorted(seats) for r in seats[seat]]
    if variant == "dual-card-6.0":
        dealt = next(e.hands for e in outcome["events"] if isinstance(e, HandsDealt))
        assert [base(c) for h in dealt for c in h] == flat
    else:
        assert list(next(e.roles for e in outcome["events"] if isinstance(e, Dealt))) == flat


def _said(t: DualTable) -> list[str]:
    return t.voice.prompts_said()
