"""A whole table in one object: the sim adapter, the voice, the journal, the director, the bots, on one
scheduler. ``tianhei run`` and the end-to-end tests use it; the real table uses the same director with other
adapters."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.director.bots import TableBots
from controller.director.clock import VirtualScheduler
from controller.director.director import Director
from controller.director.identity import GameIdentity
from controller.director.journal import SqliteJournal, open_journal
from controller.director.places import PlaceTable, PlaceVoice, check_table
from controller.director.saved import ABANDON, RESUME, SavedGame, SavedGameDiffers, abandon, find_saved
from controller.director.timing import Timings
from controller.director.transcript import Entry, Follower, Transcript
from controller.rules.setup import GameConfig
from controller.screens.numbering import label_for
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack


def sim_hands(config: GameConfig, seed: int) -> tuple[dict[str, str], dict[int, tuple[str, ...]]]:
    """A physical deck for the simulated table (card UID -> role) and the cards each physical seat draws, in
    the order it taps them (a seeded shuffle; one card a seat, or two in the dual-card versions D1-D3).

    A hand the rules would void (killer and police: D2 always, D3 when the judge swaps) is shuffled again, as a
    dealer at the table would: the bots have no judge to order a redeal."""
    deck = {f"04a1{i:04x}": role for i, role in enumerate(config.deck(), start=1)}
    uids = sorted(deck)
    rng = random.Random(f"cards:{seed}")
    rng.shuffle(uids)
    hand = config.variant.hand
    void = config.variant.live == "both" or (hand > 1 and config.opt("dual.police_killer") == "swap")
    for _ in range(10_000):
        hands = {n: tuple(uids[i:i + hand]) for n, i in enumerate(range(0, len(uids), hand), start=1)}
        # D2/D3: the seeds' void hand is killer + police by name (a rule of the dual-card versions)
        if not void or not any({"killer", "police"} <= {deck[u] for u in h} for h in hands.values()):
            return deck, hands
        rng.shuffle(uids)
    raise ValueError(f"{config.variant.id}: no deal of this composition leaves killer and police apart")


def sim_deck(config: GameConfig, seed: int) -> tuple[dict[str, str], dict[int, str]]:
    """A physical deck for the simulated table (card UID -> role) and who draws which card, one card a seat."""
    deck, hands = sim_hands(config, seed)
    return deck, {seat: hand[0] for seat, hand in hands.items()}


@dataclass
class Session:
    config: GameConfig
    seed: int
    policy: str | None
    journal_path: Path | None = None
    cards: bool = False
    lang: str = "zh"
    timings: Timings = field(default_factory=Timings)
    pack: str = "zh-CN"
    #: Gets each line of the game's :class:`Transcript` as soon as it is final (``tianhei run`` prints them).
    told: Callable[[Entry], None] | None = None
    #: What to do with an unfinished saved game that is not this one (saved.RESUME / saved.ABANDON); None:
    #: refuse (:class:`~controller.director.saved.SavedGameDiffers`). A saved game that is this one is resumed.
    on_saved: str | None = None

    def __post_init__(self) -> None:
        self.clock = VirtualScheduler()
        self.journal: SqliteJournal | None = None
        self.journal_note: str | None = None
        #: The journal's unfinished game this session resumes, if any; the one it closed (``on_saved`` ABANDON).
        self.saved: SavedGame | None = None
        self.abandoned: SavedGame | None = None
        if self.journal_path is not None:
            self.journal, self.journal_note = open_journal(self.journal_path)
        deck, self.dealt = sim_hands(self.config, self.seed) if self.cards else (None, {})
        if self.journal is not None:
            deck = self._saved_game(self.journal, deck)
        variant = self.config.variant
        self.table: SimTable | PlaceTable
        if variant.live == "both":  # D2: one seat a player, two card places a seat (controller/director/places.py)
            check_table(variant.id, self.config.players)
            self.physical = SimTable(self.config.players // 2, self.clock.now)
            self.table = PlaceTable(self.physical)
        else:
            self.physical = self.table = SimTable(self.config.players, self.clock.now)
        pack = load_voice_pack(self.pack)
        self.voice = NullVoice(self.clock.now, pack)
        #: The game as a judge would tell it, in the table's language (controller/director/transcript.py).
        self.transcript = Transcript(pack, self.lang, label=label_for(variant), out=self.told, variant=variant)
        follower = Follower(self.transcript, self.clock.now, taps=self.physical)
        heard: Any = follower.voice(self.voice)
        voice: Any = PlaceVoice(heard) if isinstance(self.table, PlaceTable) else heard
        #: Seat -> the card it taps (its first card in the dual-card versions, whose cards are in ``dealt``).
        self.hands = {seat: cards[0] for seat, cards in self.dealt.items()}
        self.director = Director(self.table, voice, self.clock, self.config, journal=self.journal,
                                 timings=self.timings, lang=self.lang, seed=self.seed, deck=deck)
        follower.attach(self.director)
        if isinstance(self.table, PlaceTable):
            d = self.director
            self.table.follow(d.wants_input, lambda place: d.state is None or place in d.state.alive)
        self.bots = TableBots(self.director, self.table, self.policy, self.seed) if self.policy else None

    def _saved_game(self, journal: SqliteJournal, deck: dict[str, str] | None) -> dict[str, str] | None:
        """Compare the journal's unfinished game with this one; resume it (under its own settings), close it,
        or refuse, as :attr:`on_saved` says. Returns the deck the director deals or resumes with."""
        saved = find_saved(journal, GameIdentity.of(self.config, self.seed, deck, "sim"))
        if saved is not None and not saved.matches:
            if self.on_saved == ABANDON:
                abandon(journal, saved)
                self.abandoned = saved
                saved = None
            elif self.on_saved != RESUME:
                journal.close()
                raise SavedGameDiffers(saved)
        if saved is not None:  # the saved game as it was set up: its variant data, players, options, seed, deck
            self.config, self.seed = saved.config, saved.seed
            self.cards = saved.replay.deck is not None
            self.dealt = sim_hands(self.config, self.seed)[1] if self.cards else {}
            deck = saved.replay.deck
        self.saved = saved
        journal.identity = GameIdentity.of(self.config, self.seed, deck, "sim")
        journal.deck = deck
        return deck

    def start(self) -> None:
        """Resume the journal's unfinished game if there is one, else deal a new game."""
        if self.saved is not None:
            self.director.resume(self.saved.replay)
            if self.bots is not None:
                self.bots.seen = 0
            return
        self.director.start()
        # Each player taps their cards in turn (the dual-card versions: card 1, then card 2, on the seat's one
        # reader; D2's place table hands both to the seat's places).
        taps = [(seat, uid) for seat, hand in sorted(self.dealt.items()) for uid in hand]
        for i, (seat, uid) in enumerate(taps):
            self.clock.call_at(self.clock.now() + 1.0 + 0.5 * i, self._tapper(seat, uid))

    def _tapper(self, seat: int, uid: str) -> Callable[[], None]:
        return lambda: self.physical.tap(seat, uid)

    def run(self, max_time: float | None = None) -> None:
        self.clock.run(until=lambda: self.director.stage == "over", max_time=max_time)

    def result(self) -> dict[str, Any]:
        s = self.director.state
        assert s is not None
        return {
            "winner": s.winner or "none",
            "reason": s.end_reason,
            "days": s.day,
            "nights": s.night,
            "events": len(self.director.events),
            "seconds": round(self.clock.now(), 3),
            "prompts": len(self.voice.said),
            "variant": self.config.variant.id,
            "players": self.config.players,
            "seed": self.seed,
            "roles": {str(i + 1): r for i, r in enumerate(s.roles)} if s.over else {},
        }
