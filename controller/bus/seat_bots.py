"""Players at seat nodes on a real line: they look at their panel and LED, and press buttons or tap their card.

The director is out of reach (another process, another machine), so a bot knows only what a player knows: what
its screen shows (:class:`~controller.bus.screen_reader.ScreenBook` reads it), the card it was dealt from the
deck, the seed. Its policy is simple and honest, and deterministic, so the same seed and configuration play the
same game, and a table that is killed and started again (it resumes from its journal and draws its screens
again) is answered with the same presses:

- check-in: OK; the deal: tap the card (digital: nothing, the table shows the role by itself);
- a night choice: point at the first seat the cursor offers, or at the one after it (one of the two, by a hash
  of the seed, the action and the first seat, so a group's members agree), by pressing ▶ and looking, then OK;
- a speech or last words: OK (pass); a vote: hands up (OK) at the first call of a candidate who is not oneself;
- the game over screen: the end.

A bot acts on what it sees, never on what it remembers it did: every look decides the next press afresh (after
a press, a look at the screen the table answered with), so a press that was lost (the table was killed before
it took it) is simply made again, and one that was taken is not. Once the line has been silent (the table is
down) a player presses nothing until the table draws their screen again.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .screen_reader import ScreenBook, Seen
from .wire import Handle, RealWire

BUTTONS = ("prev", "next", "ok")


@dataclass
class BotTiming:
    """Real seconds: how long a finger stays down, how long a player waits after a press before judging that the
    table did not take it, how long a screen must stay unchanged before it is read (a screen is several frames)."""

    hold_s: float = 0.08
    retry_s: float = 1.5
    settle_s: float = 0.12
    card_s: float = 1.0
    #: The table counts as down (nobody presses) once the line has been silent this long.
    silent_s: float = 1.0
    #: Look at the screen again this often even if nothing arrived (a press to repeat).
    look_s: float = 0.5
    #: After a silence, a screen the table has not drawn again once it has talked this long is still its own
    #: (the silence was a stall, or this seat's screen did not change).
    stale_s: float = 4.0


@dataclass
class Figures:
    presses: int = 0
    taps: int = 0
    looks: int = 0
    screens: int = 0  # looks that found a different screen than the look before
    #: Seconds from a press to the first LED or screen frame the table sent that node after it.
    latencies: list[float] = field(default_factory=list)


def choose_next(seed: int, action: str, first: int | None) -> bool:
    """Does the group point at the seat after ``first`` (else at ``first``)? The same for every member."""
    digest = hashlib.sha256(f"{seed}:{action}:{first}".encode()).digest()
    return bool(digest[0] & 1)


class SeatBot:
    def __init__(self, seat: int, address: int, players: Players) -> None:
        self.seat = seat
        self.address = address
        self.p = players
        self.seen: Seen | None = None
        self.pressed_on: Seen | None = None  # the screen the last press answered
        self.pressed_at = -1e9
        self.busy_until = -1e9
        self.tries = 0
        self.over = False
        self.card: str | None = None
        #: The night decision in progress: (action, the first seat offered, the seat chosen or None yet).
        self.decision: tuple[str, int | None, int | None] | None = None
        self.probes = 0
        self.dirty_at: float | None = None
        self.look_handle: Handle | None = None
        self.waiting_answer: float | None = None  # when the last press was made, until the table answers it
        #: When the table last drew on this seat (a screen frame reached the node).
        self.drawn_at: float | None = None
        self.p.wire.gap_s = self.p.timing.silent_s

    # --- looking ---------------------------------------------------------------------------------------------
    def screen_changed(self, at: float) -> None:
        self.dirty_at = at
        self.drawn_at = at
        self._answered(at)
        self._look_at(at + self.p.timing.settle_s)

    def led_changed(self, at: float) -> None:
        self._answered(at)

    def _answered(self, at: float) -> None:
        if self.waiting_answer is not None and at >= self.waiting_answer:
            self.p.figures.latencies.append(at - self.waiting_answer)
            self.waiting_answer = None

    def _look_at(self, when: float) -> None:
        if self.look_handle is not None:
            self.look_handle.cancel()
        self.look_handle = self.p.wire.call_at(when, self.look)

    def look(self) -> None:
        wire = self.p.wire
        now = wire.now()
        self._look_at(now + self.p.timing.look_s)
        if self.dirty_at is not None and now - self.dirty_at < self.p.timing.settle_s:
            return  # frames of this screen are still arriving
        ram = wire.nodes[self.address].screen()
        seen = self.p.book.read(self.seat, ram)
        self.p.figures.looks += 1
        if seen != self.seen:
            self.p.figures.screens += 1
            # a screen the bots cannot read goes to the log whole (hex), to be drawn and looked at later
            self.p.log(f"seat {self.seat} sees {describe(seen)}", **({"screen": ram.hex()} if seen.kind == "other" else {}))
            self.seen = seen
            self.tries = 0
        if seen.kind == "over":
            if not self.over:
                self.over = True
                self.p.game_over(self.seat, seen.winner)
            return
        self.over = False
        if seen.kind in ("dark", "speech", "vote", "checkin", "tap", "dead"):
            self.decision = None
        if now < self.busy_until or self.stale(now):
            return
        want = self.want(seen)
        if want is None:
            return
        if seen == self.pressed_on and now - self.pressed_at < self.p.timing.retry_s:
            return  # the table has not answered the last press yet: give it time
        if seen == self.pressed_on and self.tries >= 8:
            return  # a player gives up on a screen that takes nothing (the deadline decides, C5)
        self.tries += 1
        self.pressed_on, self.pressed_at = seen, now
        if seen.kind == "night" and self.decision is not None and self.decision[2] is None:
            self.probes += 1  # a ▶ to see which seat comes after the first
        if want == "card":
            self.tap()
        else:
            self.press(want)

    def stale(self, now: float) -> bool:
        """Is the picture on this panel one the table no longer stands behind? The line is silent (the table is
        down), or the table started talking again after a silence and has not drawn this seat since: then the
        panel shows a screen of before, and a press on it would reach the table in the middle of its start.
        (Once it has talked for ``stale_s`` without drawing here, the screen is still its own.)"""
        wire, t = self.p.wire, self.p.timing
        if wire.table_silent_for() > t.silent_s:
            return True
        since = wire.talking_since
        if since is None:
            return True
        return (self.drawn_at is None or self.drawn_at < since) and now - since < t.stale_s

    # --- the policy --------------------------------------------------------------------------------------------
    def want(self, seen: Seen) -> str | None:
        """The button to press on ``seen`` ("card": tap the card), or None. (A look decides; only a press made
        counts: a look while waiting for the table's answer changes nothing.)"""
        kind = seen.kind
        if kind == "checkin":
            return None if seen.done else "ok"
        if kind == "tap":
            return None if seen.digital or self.card is None else "card"
        if kind == "speech":
            return "ok"
        if kind == "vote":
            return None if seen.done or seen.candidate == self.seat else "ok"
        if kind == "night" and not seen.done:
            return self._night(seen)
        return None

    def _night(self, seen: Seen) -> str:
        d = self.decision
        if d is None or d[0] != seen.action:
            # the window opens with the cursor on the first seat it offers (director/windows.py)
            first = seen.target
            d = self.decision = (seen.action, first, None if choose_next(self.p.seed, seen.action, first) else first)
            self.probes = 0
        action, first, chosen = d
        if chosen is None:
            if seen.target is None:  # past the last seat to "nobody": the first seat was the only one
                chosen = first
            elif seen.target != first:
                chosen = seen.target
            elif self.probes >= 4:  # ▶ changes nothing: the first seat is the only choice
                chosen = first
            else:
                return "next"
            self.decision = (action, first, chosen)
        return "ok" if seen.target == chosen else "next"

    # --- hands ---------------------------------------------------------------------------------------------------
    def press(self, button: str) -> None:
        wire, node = self.p.wire, self.p.wire.nodes[self.address]
        hold = self.p.timing.hold_s
        self.busy_until = wire.now() + hold + 0.05
        node.button(button, True)
        wire.poke(self.address)
        self.waiting_answer = wire.now()
        self.p.figures.presses += 1
        self.p.log(f"seat {self.seat} presses {button}")

        def release() -> None:
            node.button(button, False)
            wire.poke(self.address)

        wire.call_later(hold, release)

    def tap(self) -> None:
        wire, node = self.p.wire, self.p.wire.nodes[self.address]
        assert self.card is not None
        lie = self.p.timing.card_s
        self.busy_until = wire.now() + lie + 0.1
        node.card(bytes.fromhex(self.card))
        wire.poke(self.address)
        self.waiting_answer = wire.now()
        self.p.figures.taps += 1
        self.p.log(f"seat {self.seat} taps card {self.card}")

        def lift() -> None:
            node.card(None)
            wire.poke(self.address)

        wire.call_later(lie, lift)


def describe(seen: Seen) -> str:
    if seen.kind == "night":
        return f"night {seen.action} -> {seen.target}{' (confirmed)' if seen.done else ''}"
    if seen.kind == "vote":
        return f"vote call for {seen.candidate}{' (voted)' if seen.done else ''}"
    if seen.kind == "over":
        return f"game over: {seen.winner}"
    return seen.kind + (" (done)" if seen.done else "")


class Players:
    """One :class:`SeatBot` per seat, wired to the nodes' screens and LEDs."""

    def __init__(self, wire: RealWire, book: ScreenBook, seats: dict[int, int], seed: int,
                 timing: BotTiming | None = None, cards: dict[int, str] | None = None,
                 log: Callable[..., None] | None = None) -> None:
        self.wire = wire
        self.book = book
        self.seed = seed
        self.timing = timing or BotTiming()
        self.figures = Figures()
        self.log = log or (lambda line, **more: None)
        self.bots = {seat: SeatBot(seat, address, self) for seat, address in seats.items()}
        self._by_address = {bot.address: bot for bot in self.bots.values()}
        for seat, uid in (cards or {}).items():
            if seat in self.bots:
                self.bots[seat].card = uid
        #: (seat, winner) at each seat's game over screen, in order.
        self.endings: list[tuple[int, str]] = []
        self.games = 0
        self.winners: list[str] = []
        wire.on_display = self._display
        wire.on_led = self._led
        rng = random.Random(f"looks:{seed}")
        for bot in self.bots.values():  # the first looks spread a little, as people do not all look at once
            bot._look_at(wire.now() + rng.uniform(0.1, 0.3))

    def _display(self, address: int, at: float) -> None:
        bot = self._by_address.get(address)
        if bot is not None:
            bot.screen_changed(at)

    def _led(self, address: int, rgb: tuple[int, int, int], at: float) -> None:
        bot = self._by_address.get(address)
        if bot is not None:
            bot.led_changed(at)

    def game_over(self, seat: int, winner: str) -> None:
        self.endings.append((seat, winner))
        if all(b.over for b in self.bots.values()):
            self.games += 1
            self.winners.append(winner)
            self.log(f"game {self.games} over: {winner}")
