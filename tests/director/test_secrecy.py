"""Secrets stay where they belong (DESIGN), as a property over many random games: after every redraw, no seat's
screen shows a role or a night answer it may not see; LEDs give no answer away; the voice, the public transcript
and the logs at INFO carry no role before the game ends."""

from __future__ import annotations

import logging
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.director.director import LED_NOD, LED_SHAKE, Director
from controller.director.places import places_of
from controller.ports import Button
from controller.rules.events import Acted, CardLost, HandsDealt
from controller.screens import views as v
from controller.sessions.session import Session
from controller.voice.prompts import ROLES
from tests.director.helpers import session

SETUPS = [
    ("classic-1.0", 9, {}),
    ("standard-2.0", 12, {}),
    ("standard-2.0", 10, {"first_night": "recognition"}),
    ("standard-2.0", 11, {"tie": "top2", "defence.suspects": True}),
    ("standard-2.0", 12, {"lastwords": "killer_silent", "vote": "from_victim", "speech.any_direction": True}),
    ("five-identities", 9, {}),
    ("v3.0", 12, {}),
    ("v4.0", 12, {}),
    ("v7.0", 14, {}),
    ("v5.0-infernal", 13, {}),
    ("dual-card-6.0", 9, {}),
    ("dual-card-6.0", 10, {"dual.police_killer": "choose"}),
    ("dual-card-5.0", 8, {}),
    ("dual-card-5.0", 10, {}),
]
#: Versions whose hands are two cards: a seat's reader takes one card a deal, so these deal digitally.
TWO_CARD_HANDS = {"dual-card-6.0", "dual-card-5.0"}

#: A prompt ID names a role publicly ("killers, wake up") without saying who holds it; strip those first.
PROMPT_ID = re.compile(r"\brole\.[a-z_]+\.[a-z_]+\b")
ROLE_WORD = re.compile(r"\b(" + "|".join(sorted(ROLES, key=len, reverse=True)) + r")s?\b")


class Watcher:
    """Checks every seat's screen after every refresh of the director."""

    def __init__(self, s: Session) -> None:
        self.s = s
        self.d: Director = s.director
        self.checks = 0
        #: The seats of the open window, or of the last one until another opens (awake until told to sleep).
        self.awake: set[int] = set()
        self.card_roles = {seat: s.director.deck[uid] for seat, uid in s.hands.items()} if s.cards else {}
        original = self.d.seats.refresh

        def refresh() -> None:
            original()
            self.check()

        self.d.seats.refresh = refresh  # type: ignore[method-assign]
        voice_say = s.voice.say

        def say(prompts: Any, *, urgent: bool = False) -> float:
            if any(p.startswith("role.") and p.endswith((".sleep", ".back")) for p in prompts):
                self.awake = set()  # "杀手请闭眼" / "杀手回去": the step's seats sleep from here (its screens dark)
            if not self.over():
                named = [p for p in prompts if p.startswith("role.") and p.endswith(".name")]
                assert named in ([], self.shown()), f"the voice named a role before the end: {named}"
            return voice_say(prompts, urgent=urgent)

        s.voice.say = say  # type: ignore[method-assign]

    def shown(self) -> list[str]:
        """D3: a player voted out shows the first identity: the one role the voice may name, right then."""
        last = next((e for e in reversed(self.d.events) if isinstance(e, CardLost)), None)
        return [f"role.{last.shown}.name"] if last is not None and last.shown else []

    def over(self) -> bool:
        st_ = self.d.state
        return st_ is not None and st_.over

    def role(self, seat: int) -> str:
        st_ = self.d.state
        if st_ is not None and st_.roles:
            return st_.role_of(seat)
        return self.card_roles.get(seat, "?")

    def answered(self) -> set[tuple[int, int | None]]:
        """(seat, target) of every check answer a seat may see so far: the checkers' own (a nod, a shake, or
        V4.3's no signal), and the police's answers for roles that see them (V7.1: the angel, the devil)."""
        s = self.d.state
        out: set[tuple[int, int | None]] = set()
        for e in self.d.events:
            if isinstance(e, Acted) and e.result in ("nod", "shake", "none"):
                out |= {(a, e.target) for a in e.actors}
                if s is not None and s.roles:
                    roles = s.config.variant.roles
                    out |= {(seat, e.target) for seat in range(1, s.players + 1)
                            if e.ability in roles[s.role_of(seat)].sees}
        return out

    def check(self) -> None:
        self.checks += 1
        d, s = self.d, self.d.state
        w = d.window
        if w is not None:
            self.awake = set(w.seats)
        for seat, ui in d.ui.items():
            view = ui.drawn
            where = f"seat {seat} at {d.clock.now():.1f}s ({type(view).__name__})"
            if isinstance(view, v.RoleReveal):
                assert view.seat == seat and view.role == self.role(seat), where
                if s is not None and s.cards:  # D1: the hand shown is this seat's own, current card first
                    assert view.hand == s.cards[seat - 1], where
            elif isinstance(view, v.HandChoice):  # D1: the two cards as dealt to this seat, at the deal only
                dealt = next(e.hands for e in d.events if isinstance(e, HandsDealt))
                assert view.cards == dealt[seat - 1] and s is not None and s.night == 0, where
                if s is not None and s.roles:
                    assert set(view.partners) <= set(s.partners(seat)), where
            elif isinstance(view, v.GameOver):
                assert self.over() and view.role == self.role(seat), where
            elif isinstance(view, v.PoliceAnswer):  # only to the seats who asked (police; F2 informant)
                assert (seat, view.target) in self.answered(), where
            elif isinstance(view, v.NightChoice):  # a night choice, or V4.8's vote in turn
                # Open on the window's seats; or, once the step has settled, still on them (and no other seat)
                # until the step's sleep prompt darkens them: C6's "choose again" may still be speaking then.
                assert ((w is not None and w.kind in ("night", "vote") and seat in w.seats)
                        or (w is None and seat in self.awake)), where
            if (w is not None and w.kind in ("night", "recognition") and seat not in w.seats
                    and not d.paused and s is not None and s.phase == "night"):
                assert isinstance(view, (v.Dark, v.Dead)), f"{where}: lit while others wake"
            if d.stage == "play" and d.night_shown and not d.paused and seat not in self.awake:
                # eyes closed, from the nightfall prompt to dawn: nothing but the dark (or a police answer
                # still shown to its askers, checked above); the seats of a step just closed are awake until
                # the step's sleep prompt
                assert isinstance(view, (v.Dark, v.Dead, v.PoliceAnswer)), f"{where}: lit while its owner sleeps"

    def after(self) -> None:
        for seat, sim in self.s.table.seats.items():
            answers = {LED_NOD, LED_SHAKE} & set(sim.led_history)
            asked = {a for a, _ in self.answered()}
            assert not answers or seat in asked, f"seat {seat}'s LED gave a check answer away"
        end = next((i for i, line in enumerate(self.d.transcript) if line.what.startswith("game over")),
                   len(self.d.transcript))
        for line in self.d.transcript[:end]:
            if line.public:
                assert not ROLE_WORD.search(PROMPT_ID.sub("", line.what)), f"public transcript: {line}"


def no_roles_in_logs(records: list[logging.LogRecord]) -> None:
    for rec in records:
        text = rec.getMessage()
        if text.startswith("table: game over"):
            return  # the end: roles may be told now
        if rec.levelno >= logging.INFO:
            assert not ROLE_WORD.search(PROMPT_ID.sub("", text)), f"log at {rec.levelname}: {text}"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10_000),
       policy=st.sampled_from(["heuristic", "random", "uninformed"]), cards=st.booleans())
def test_no_screen_led_voice_or_log_gives_a_secret_away(setup, seed, policy, cards, caplog):
    variant, players, options = setup
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="controller"):
        s = session(variant, players, seed, policy, options, cards=cards and variant not in TWO_CARD_HANDS)
        watch = Watcher(s)
        s.start()
        s.run(max_time=100_000)
    assert s.director.stage == "over"
    assert watch.checks > 100
    watch.after()
    no_roles_in_logs(caplog.records)


def test_the_watcher_catches_a_role_shown_on_the_wrong_seat():
    """The property is only as good as its check: a leak planted on purpose must be found."""
    s = session("standard-2.0", 8, 3, "heuristic")
    Watcher(s)
    s.start()
    s.run(max_time=60)
    other = 2 if s.director.state.role_of(1) != s.director.state.role_of(2) else 3
    s.director.ui[other].view = v.RoleReveal(1, s.director.state.role_of(1))
    try:
        s.director.seats.refresh()
    except AssertionError:
        return
    raise AssertionError("a role on the wrong seat went unnoticed")


class Peeker:
    """A player at seat ``me`` who reaches for the seats that are not its own, at moments spread over the whole
    game (the deal, nights, days, votes, the end): holds OK on them, taps an unknown card, another player's card
    and its own card on their readers. What it may find: a seat lit while its owner sleeps (the Watcher checks
    that after every redraw), or a role shown by a card that is not the seat's own."""

    def __init__(self, s: Session, me: int, moves: list[tuple[float, int, str]]) -> None:
        self.s, self.d, self.me = s, s.director, me
        self.table: Any = s.physical
        self.moves = 0
        self.findings: list[str] = []
        for at, seat, what in moves:
            s.clock.call_at(at, lambda seat=seat, what=what: self.act(seat, what))

    def places(self, seat: int) -> tuple[int, ...]:
        return places_of(seat) if self.s.config.variant.live == "both" else (seat,)

    def act(self, seat: int, what: str) -> None:
        if seat == self.me or seat not in self.table.seats or self.d.stage == "over":
            return
        self.moves += 1
        if what == "hold":
            self.table.press(seat, Button.OK)
            self.s.clock.call_at(self.s.clock.now() + self.d.t.peek_hold_s + 1.0,
                                 lambda: self.table.release(seat, Button.OK))
            return
        if self.d.stage == "deal" and self.d.deck is not None:
            return  # a card tapped at a deal with cards is dealt to that seat: that is the deal, not a peek
        own = self.s.dealt.get(seat, ())
        card = {"unknown": "0badcafe", "mine": (self.s.dealt.get(self.me) or ("0badcafe",))[0],
                "other": next((c for n, h in sorted(self.s.dealt.items()) if n not in (seat, self.me) for c in h),
                              "0badcafe")}[what]
        shown = {p: self.d.ui[p].peeking for p in self.places(seat) if p in self.d.ui}
        self.table.tap(seat, card)
        if self.d.stage != "play" or card in own:
            return  # at the deal a card is read; one's own card may show one's own role
        for p, was in shown.items():
            if self.d.ui[p].peeking and not was:
                self.findings.append(f"seat {seat}: card {card} (not its own) showed its role ({what})")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10_000), cards=st.booleans(), me=st.integers(1, 4),
       moves=st.lists(st.tuples(st.floats(0.0, 900.0, allow_nan=False), st.integers(1, 10),
                                st.sampled_from(["hold", "hold", "unknown", "other", "mine"])),
                      min_size=20, max_size=60))
def test_a_peeking_neighbour_finds_nothing(setup, seed, cards, me, moves):
    """It holds OK and taps cards on seats not its own at every phase; the Watcher finds no seat lit while its
    owner sleeps, and no card that is not a seat's own shows a role."""
    variant, players, options = setup
    s = session(variant, players, seed, "heuristic", options, cards=cards and variant not in TWO_CARD_HANDS)
    watch = Watcher(s)
    # Every phase: the moves fall where they fall, plus one on each side of the peeker every 7 s.
    steady = [(t * 7.0, me % len(s.physical.seats) + 1, ("hold", "unknown", "other", "mine")[t % 4])
              for t in range(130)]
    peeker = Peeker(s, me, sorted(moves + steady))
    s.start()
    s.run(max_time=100_000)
    assert s.director.stage == "over"
    assert peeker.moves > 20
    assert peeker.findings == []
    watch.after()


def test_the_peeker_would_find_the_old_leak():
    """The adversary is only as good as its check: with the night guard taken away (a peek drawn on a sleeping
    seat, as before), it is caught."""
    s = session("standard-2.0", 8, 3, "heuristic")
    watch = Watcher(s)
    s.start()
    s.clock.run(until=lambda: s.director.night_shown and s.director.window is not None, max_time=600)
    d = s.director
    w = d.window
    assert w is not None
    sleeper = next(seat for seat in d.ui if seat not in w.seats and seat in d.state.alive)  # type: ignore[union-attr]
    d.seats.eyes_closed = lambda seat: False  # type: ignore[method-assign]
    s.physical.press(sleeper, Button.OK)
    try:
        s.clock.run(max_time=s.clock.now() + 2.0)
    except AssertionError as exc:
        assert "lit while" in str(exc)
        return
    finally:
        del watch
    raise AssertionError("a role shown on a sleeping seat went unnoticed")


def test_the_police_go_dark_at_police_close_your_eyes_when_their_recognition_ends_the_night():
    """A recognition-only first night (V2.10): the police's step is the night's last, so the state is already in
    the day when it settles; their roles must still go dark at "警察请闭眼", not stay lit until dawn is said."""
    s = session("standard-2.0", 10, 0, "random", {"first_night": "recognition"})
    d = s.director
    said: list[str] = []
    voice_say = s.voice.say

    def say(prompts: Any, *, urgent: bool = False) -> float:
        said.extend(prompts)
        return voice_say(prompts, urgent=urgent)

    s.voice.say = say  # type: ignore[method-assign]
    s.start()
    s.clock.run(until=lambda: "role.police.sleep" in said, max_time=600)
    police = [seat for seat in d.ui if d.state.role_of(seat) == "police"]  # type: ignore[union-attr]
    assert police and "dawn.breaks" not in said
    assert all(isinstance(d.ui[seat].drawn, v.Dark) for seat in police), [d.ui[p].drawn for p in police]
