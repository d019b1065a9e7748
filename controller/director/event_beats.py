"""What the table does when the rules say something happened: night falls, a night act settles (the police's
nod or shake, V2.2), dawn, a death, a vote's tally, the end of the game.

The rules only return events; this part turns each into beats (prompts said through announce.py, screens and
LEDs set), so that what the room is told and shown follows the rules' own account and nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.board.public import public_facts
from controller.director import announce, sheriff_windows
from controller.director.seams import Parts, Setup
from controller.director.seat_output import LED_NOD, LED_SHAKE, dead_view
from controller.ports import LED_OFF
from controller.rules.events import Acted, Candidacy, CardLost, Dawn, Died, Event, NightFell, VoteClosed
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v
from controller.screens.own_views import game_over, police_answer


class EventBeats:
    """The rules' events turned into beats: said, shown, lit."""

    def __init__(self, setup: Setup, parts: Parts) -> None:
        self.setup = setup
        self.parts = parts
        self.config = setup.config
        self.t = setup.t
        self.voice = setup.voice
        #: Check answers a seat may see but has not yet (V7.1: shown when it next wakes).
        self.unseen: dict[int, list[tuple[int, v.Answer]]] = {}
        #: The room has been told to close its eyes (the nightfall beat ran) and not yet to open them (dawn):
        #: a seat not woken by the open window then shows nothing but what the game draws on it.
        self.night_shown = False
        #: D1: seats whose second card turned up in the night, shown to their owners at dawn.
        self.turned_up: set[int] = set()
        #: The board as night fell, held until dawn is announced (the seats' output shows it meanwhile).
        self.board_night: dict[str, object] | None = None

    def night_resumed(self) -> None:
        """A game carried on after a power cut at night: the room's eyes are closed already."""
        self.voice.masking(True)
        self.night_shown = True

    def eyes_open(self) -> None:
        """W10: the room opens its eyes for the sheriff election, before the night's deaths are told (the dawn
        that follows the election tells them)."""
        s = self.parts.loop.state
        self.voice.masking(False)
        self.board_night = None
        self.night_shown = False
        for seat in self.parts.seats.ui:
            if s is not None and seat in s.alive:
                self.parts.seats.set(seat, v.Message(sheriff_windows.TITLE), LED_OFF)

    def take_unseen(self, seats: Sequence[int]) -> dict[int, list[tuple[int, v.Answer]]]:
        """The check answers ``seats`` may now see (V7.1), handed over once."""
        return {seat: self.unseen.pop(seat) for seat in seats if seat in self.unseen}

    def announce(self, events: Sequence[Event]) -> None:
        assert self.parts.loop.state is not None
        # D2: each card of an ``each`` step settles by itself, all at once: the step's seats go dark together
        # and the step sleeps once, with its last act.
        stepped: dict[str, tuple[int, ...]] = {}
        last_act: dict[str, int] = {}
        for i, e in enumerate(events):
            if isinstance(e, Acted):
                stepped[e.step] = stepped.get(e.step, ()) + e.actors
                last_act[e.step] = i
        for i, e in enumerate(events):
            if isinstance(e, NightFell):
                self.parts.windows.calls.night_fell()
                self.parts.loop.beat("call", self._nightfall)
            elif isinstance(e, Acted):
                group = stepped[e.step] if last_act[e.step] == i else None
                self.parts.loop.beat("call", lambda e=e, group=group: self._settled(e, group))
            elif isinstance(e, Dawn):
                for skipped in self.parts.windows.calls.rest(self.parts.loop.state.night):  # W3
                    self.parts.windows.call_skipped(skipped)
                self.parts.loop.beat("call", self._dawn)
            elif isinstance(e, Died):
                self.parts.loop.beat("call", lambda e=e: self.parts.seats.set(
                    e.seat, dead_view(self.parts.loop.state, e.seat), LED_OFF))
            elif isinstance(e, CardLost):  # D1: the second card turned up; only its owner sees which
                self.parts.loop.beat("call", lambda e=e: self._card_turned_up(e.seat))
            if (isinstance(e, VoteClosed) and self.parts.windows.last_vote_step == TURN_VOTE and not e.tally[1:]
                    and not e.out):
                continue  # V4.8: one player's vote in the round; the round's tally is announced at its end
            if isinstance(e, VoteClosed):
                self.parts.loop.beat("call", lambda e=e: self._tally(e))
            if isinstance(e, Candidacy) and not e.running:  # W10: a withdrawal is told; declining the call is not
                done = self.parts.loop.events
                parts = announce.withdrawal(e, done[:len(done) - len(events) + i])
            else:
                parts = announce.for_event(e, self.parts.loop.state, self.config.variant)
            if parts:
                self.parts.loop.beat("say", parts)
            if isinstance(e, VoteClosed):
                self.parts.loop.beat("wait", self.t.tally_s)

    def _nightfall(self) -> None:
        self.voice.masking(True)
        self.night_shown = True
        # the board holds the night until dawn is said
        if self.setup.board is not None and self.parts.loop.state is not None:
            self.board_night = public_facts(self.parts.loop.state, self.parts.loop.events)
        for ui in self.parts.seats.ui.values():  # eyes closed: a role still shown from the day goes dark with the rest
            ui.peeking = False
        for seat in self.parts.seats.ui:
            if self.parts.loop.state is not None and seat in self.parts.loop.state.alive:
                self.parts.seats.set(seat, v.Dark(), LED_OFF)

    def _dawn(self) -> None:
        assert self.parts.loop.state is not None
        self.voice.masking(False)
        self.board_night = None
        self.night_shown = False
        for seat in self.parts.seats.ui:
            if seat in self.parts.loop.state.alive:
                day = self.parts.loop.state.day
                self.parts.seats.set(seat, v.Message(v.L10n(f"第{day}天", f"Day {day}")), LED_OFF)
            else:
                self.parts.seats.set(seat, dead_view(self.parts.loop.state, seat), LED_OFF)
        for seat in sorted(self.turned_up):  # cards lost in the night: each owner sees theirs, eyes open now
            self.parts.deal.arm_peek(seat, now=True)
        self.turned_up.clear()

    def _card_turned_up(self, seat: int) -> None:
        """D1: show the owner the card that turned up, at once, or at dawn if the owner sleeps now (a
        neighbour awake could read a screen lit at night)."""
        if self.parts.seats.eyes_closed(seat):
            self.turned_up.add(seat)
        else:
            self.parts.deal.arm_peek(seat, now=True)

    def _settled(self, e: Acted, group: tuple[int, ...] | None) -> None:
        """A night act settled: the police see their answer; the step's seats go dark and the step sleeps
        (``group``: every seat of the step; None for an earlier card of a D2 step, which waits for the last)."""
        assert self.parts.loop.state is not None
        if e.ability in ("recognise", "defence"):
            if e.ability == "recognise":
                # The step's id names the seed's cards ("recognise.big_joker", V5.2); the voice names roles.
                st = self.config.variant.night_steps.get(e.step)
                role = "+".join(st.call or st.roles) if st else e.step.split(".", 1)[1]
                self.parts.loop.beat_now("say", announce.sleep(role, self.config.variant.night_call,
                                                                      variant=self.config.variant))
            for seat in e.actors:
                # Dark while the room's eyes are closed, also when this step ended the night (the state is
                # already in the day, but dawn is not said yet: the role must not stay lit through "请闭眼").
                if self.night_shown:
                    self.parts.seats.set(seat, v.Dark(), LED_OFF)
            return
        if e.result in ("nod", "shake", "none") and e.target is not None:
            # V2.2 nod or shake; V4.3 no signal at all on the butterfly's hugged player.
            answer = {"nod": v.Answer.NOD, "shake": v.Answer.SHAKE}.get(e.result, v.Answer.NONE)
            led = {"nod": LED_NOD, "shake": LED_SHAKE}.get(e.result, LED_OFF)
            for seat in e.actors:
                self.parts.seats.set(seat, police_answer(self.config.variant, e.target, answer), led)
            self.parts.loop.beat_now("wait", self.t.answer_s)
            # V7.1: roles that "see" the check (angel, devil) are asleep now: they see it when they next wake.
            seers = self.config.variant.roles
            for seat in self.parts.loop.state.alive:
                if seat not in e.actors and e.ability in getattr(seers[self.parts.loop.state.role_of(seat)], "sees", ()):
                    self.unseen.setdefault(seat, []).append((e.target, answer))
        if group is None:
            return
        role = "+".join(sorted({self.parts.loop.state.role_of(a) for a in e.actors}))
        step = self.config.variant.night_steps.get(e.step)
        roles = "+".join(step.call or step.roles) if step else role  # as the step was woken (announce.wake)

        def close() -> None:
            s = self.parts.loop.state
            for seat in group:
                last_act = e.step.startswith("on_death.") and s is not None and seat not in s.alive
                # W8: the hunter's seat, out of the game once his shot is taken, shows it as any dead seat does
                self.parts.seats.set(seat, dead_view(s, seat) if last_act and s is not None else v.Dark(), LED_OFF)

        calls = self.parts.windows.calls
        if calls.on:  # W3: the call lasts its draw, however soon the role acted
            self.parts.loop.beat_now("call", lambda: self.parts.loop.beat_now("wait", calls.left(self.setup.clock.now())))
        self.parts.loop.beat_now("call", close)
        sleep = self.parts.windows.sleep(e.step) if step else announce.sleep(roles, self.config.variant.night_call,
                                                                            variant=self.config.variant)
        if sleep:
            self.parts.loop.beat_now("say", sleep)
        if step and calls.on:
            self.parts.loop.beat_now("call", lambda: self.parts.windows.mark_call(e.step, False))

    def _tally(self, e: Any) -> None:
        for seat in self.parts.seats.ui:
            if self.parts.loop.state is not None and seat in self.parts.loop.state.alive:
                self.parts.seats.set(seat, v.Tally(e.tally, e.out, e.tied))

    def show_end(self) -> None:
        assert self.parts.loop.state is not None
        self.parts.loop.finish()
        self.voice.masking(False)
        self.night_shown = False
        winner = self.parts.loop.state.winner or "draw"
        for seat in self.parts.seats.ui:
            side = self.parts.loop.state.side_of(seat)
            won = None if winner == "draw" else side == winner
            role = self.parts.loop.state.role_of(seat)
            self.parts.seats.set(seat, game_over(winner, role, won, self.config.variant), LED_OFF)
        self.parts.remote.show_story()  # the whole story, UP/DOWN scroll it
        self.parts.loop.note("table", f"game over: {winner} ({self.parts.loop.state.end_reason})")
        self.parts.follow.over()
