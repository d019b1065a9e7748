"""What the table does when the rules say something happened: night falls, a night act settles (the police's
nod or shake, V2.2), dawn, a death, a vote's tally, the end of the game.

The rules only return events; this part turns each into beats (prompts said through announce.py, screens and
LEDs set), so that what the room is told and shown follows the rules' own account and nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.board.public import public_facts
from controller.director import announce
from controller.director.base import DirectorBase
from controller.director.seat_output import LED_NOD, LED_SHAKE, dead_view
from controller.ports import LED_OFF
from controller.rules.events import Acted, CardLost, Dawn, Died, Event, NightFell, Opened, VoteClosed
from controller.rules.turns import TURN_VOTE
from controller.screens import views as v


class EventBeats(DirectorBase):
    """The rules' events turned into beats: said, shown, lit."""

    def _announce(self, events: Sequence[Event]) -> None:
        assert self.state is not None
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
                self._beat("call", self._nightfall)
            elif isinstance(e, Acted):
                group = stepped[e.step] if last_act[e.step] == i else None
                self._beat("call", lambda e=e, group=group: self._settled(e, group))
            elif isinstance(e, Dawn):
                self._beat("call", self._dawn)
            elif isinstance(e, Died):
                self._beat("call", lambda e=e: self._set(e.seat, dead_view(self.state, e.seat), LED_OFF))
            elif isinstance(e, CardLost):  # D1: the second card turned up; only its owner sees which
                self._beat("call", lambda e=e: self._card_turned_up(e.seat))
            elif isinstance(e, Opened):
                self.opened += 1
            if isinstance(e, VoteClosed) and self.last_vote_step == TURN_VOTE and not e.tally[1:] and not e.out:
                continue  # V4.8: one player's vote in the round; the round's tally is announced at its end
            if isinstance(e, VoteClosed):
                self._beat("call", lambda e=e: self._tally(e))
            parts = announce.for_event(e, self.state)
            if parts:
                self._beat("say", parts)
            if isinstance(e, VoteClosed):
                self._beat("wait", self.t.tally_s)

    def _nightfall(self) -> None:
        self.voice.masking(True)
        self.night_shown = True
        if self.board is not None and self.state is not None:  # the board holds the night until dawn is said
            self.board_night = public_facts(self.state, self.events)
        for ui in self.ui.values():  # eyes closed: a role still shown from the day goes dark with the rest
            ui.peeking = False
        for seat in self.ui:
            if self.state is not None and seat in self.state.alive:
                self._set(seat, v.Dark(), LED_OFF)

    def _dawn(self) -> None:
        assert self.state is not None
        self.voice.masking(False)
        self.board_night = None
        self.night_shown = False
        for seat in self.ui:
            if seat in self.state.alive:
                self._set(seat, v.Message(v.L10n(f"第{self.state.day}天", f"Day {self.state.day}")), LED_OFF)
            else:
                self._set(seat, dead_view(self.state, seat), LED_OFF)
        for seat in sorted(self.turned_up):  # cards lost in the night: each owner sees theirs, eyes open now
            self._arm_peek(seat, now=True)
        self.turned_up.clear()

    def _card_turned_up(self, seat: int) -> None:
        """D1: show the owner the card that turned up, at once, or at dawn if the owner sleeps now (a
        neighbour awake could read a screen lit at night)."""
        if self._eyes_closed(seat):
            self.turned_up.add(seat)
        else:
            self._arm_peek(seat, now=True)

    def _settled(self, e: Acted, group: tuple[int, ...] | None) -> None:
        """A night act settled: the police see their answer; the step's seats go dark and the step sleeps
        (``group``: every seat of the step; None for an earlier card of a D2 step, which waits for the last)."""
        assert self.state is not None
        if e.ability in ("recognise", "defence"):
            if e.ability == "recognise":
                # The step's id names the seed's cards ("recognise.big_joker", V5.2); the voice names roles.
                st = self.config.variant.night_steps.get(e.step)
                role = "+".join(st.call or st.roles) if st else e.step.split(".", 1)[1]
                self._beat_now("say", announce.sleep(role, self.config.variant.night_call))
            for seat in e.actors:
                # Dark while the room's eyes are closed, also when this step ended the night (the state is
                # already in the day, but dawn is not said yet: the role must not stay lit through "请闭眼").
                if self.night_shown:
                    self._set(seat, v.Dark(), LED_OFF)
            return
        if e.result in ("nod", "shake", "none") and e.target is not None:
            # V2.2 nod or shake; V4.3 no signal at all on the butterfly's hugged player.
            answer = {"nod": v.Answer.NOD, "shake": v.Answer.SHAKE}.get(e.result, v.Answer.NONE)
            led = {"nod": LED_NOD, "shake": LED_SHAKE}.get(e.result, LED_OFF)
            for seat in e.actors:
                self._set(seat, v.PoliceAnswer(e.target, answer), led)
            self._beat_now("wait", self.t.answer_s)
            # V7.1: roles that "see" the check (angel, devil) are asleep now: they see it when they next wake.
            seers = self.config.variant.roles
            for seat in self.state.alive:
                if seat not in e.actors and e.ability in getattr(seers[self.state.role_of(seat)], "sees", ()):
                    self.unseen.setdefault(seat, []).append((e.target, answer))
        if group is None:
            return
        role = "+".join(sorted({self.state.role_of(a) for a in e.actors}))
        step = self.config.variant.night_steps.get(e.step)
        roles = "+".join(step.call or step.roles) if step else role  # as the step was woken (announce.wake)

        def close() -> None:
            for seat in group:
                self._set(seat, v.Dark(), LED_OFF)

        self._beat_now("call", close)
        self._beat_now("say", announce.sleep(roles, self.config.variant.night_call))

    def _tally(self, e: Any) -> None:
        for seat in self.ui:
            if self.state is not None and seat in self.state.alive:
                self._set(seat, v.Tally(e.tally, e.out, e.tied))

    def _show_end(self) -> None:
        assert self.state is not None
        self.stage = "over"
        self.voice.masking(False)
        self.night_shown = False
        winner = self.state.winner or "draw"
        for seat in self.ui:
            side = self.state.side_of(seat)
            won = None if winner == "draw" else side == winner
            self._set(seat, v.GameOver(winner, self.state.role_of(seat), won, self.config.variant.id), LED_OFF)
        self.story_cursor = 0
        self._remote_status()  # the whole story, UP/DOWN scroll it
        self._note("table", f"game over: {winner} ({self.state.end_reason})")
        self._tell_over()
