"""W3: every role is called every night, dead or without a potion, and the table waits as if it acted.

The rules skip a step nobody can take (the seer is dead, the witch's antidote is spent): at a table that silence
would tell everyone. So a variant that follows W3 has the judge call such a step all the same: the role's wake
line and question, a wait, then its sleep line. A call that does open lasts at least as long, from its question
to "close your eyes": a random length drawn for each call from the game's seed (:data:`CALL_S`), the same draw
for both, so a dead role's call cannot be told from a living one's (tests/director/test_night_calls.py measures
it over many games). A player who thinks longer than the draw makes that call longer, as at any table.

A power cut in the middle of a call: the table journals each call as it begins and ends (:meth:`NightCalls.mark`),
and a table resumed from the journal calls the cut call again from its wake line, dead role or living, acted or
not, and it lasts a whole new draw again (:meth:`NightCalls.restore`). Not "the rest of its draw": what was left is
not in the journal for a call nobody answers (nothing is written while it waits) and only to the last countdown
checkpoint for one that is answered, so a rest would be computed differently for the dead and the living, and
its length would tell. A whole call again, from the same wake line, drawn from the same seeded range, is what any
call is. The resumed draws come from the game's seed and the journal's last record, so the same journal resumes
the same way.
"""

from __future__ import annotations

import random

from controller.rules.variant import NightStep, Variant

#: The least a call lasts, from when its window opens (or its question is said) to its sleep line: drawn anew,
#: uniformly, for every call. Longer than a bot takes to point and read an answer, shorter than the window.
CALL_S = (8.0, 14.0)


def calls_every_night(variant: Variant) -> bool:
    """Whether the variant follows W3 (it lists the rule): then the table calls every step every night."""
    return "W3" in variant.rules


class NightCalls:
    """Which of tonight's steps were called, the calls of the steps the rules skipped, and how long the open
    call has to last."""

    def __init__(self, variant: Variant, seed: int) -> None:
        self.on = calls_every_night(variant)
        self.steps: tuple[NightStep, ...] = variant.night
        self.rng = random.Random(f"W3:{seed}")
        #: Index in the night's order of the next step not yet called tonight.
        self.next = 0
        #: No nightfall seen yet: a game resumed mid-night does not call again what was called before the cut.
        self.resumed = True
        #: When the open call may end (its window's opening plus its draw); None when no call is open.
        self.until: float | None = None
        self.seed = seed
        #: The step whose window opens again after a power cut: its call lasts a whole new draw (restore()).
        self.recalled: str | None = None

    def night_fell(self) -> None:
        self.next = 0
        self.resumed = False

    def draw(self) -> float:
        """One call's length (W3: "a random few seconds"), to the centisecond."""
        return round(self.rng.uniform(*CALL_S), 2)

    def skipped_before(self, step: str, night: int) -> list[NightStep]:
        """The steps before ``step`` in tonight's order that the rules skipped, to be called now; ``step`` is
        called. A step outside the night's order (W8: the hunter's shot) calls nothing."""
        ids = [st.id for st in self.steps]
        if not self.on or step not in ids:
            return []
        i = ids.index(step)
        out = [] if self.resumed else [st for st in self.steps[self.next:i] if _runs(st, night)]
        self.next, self.resumed = max(self.next, i + 1), False
        return out

    def rest(self, night: int) -> list[NightStep]:
        """The steps after the last one called tonight: called before dawn is said."""
        if not self.on:
            return []
        out = [st for st in self.steps[self.next:] if _runs(st, night)]
        self.next = len(self.steps)
        return out

    def continues(self, step: str, night: int) -> bool:
        """Whether the step before ``step`` tonight wakes the same roles: they are awake already, so ``step`` is
        asked without its wake line (the witch's poison follows her antidote: one waking, two questions)."""
        return self._neighbour(step, night, -1)

    def goes_on(self, step: str, night: int) -> bool:
        """Whether the step after ``step`` tonight wakes the same roles: then they do not close their eyes."""
        return self._neighbour(step, night, +1)

    def _neighbour(self, step: str, night: int, way: int) -> bool:
        tonight = [st for st in self.steps if _runs(st, night)]
        ids = [st.id for st in tonight]
        if not self.on or step not in ids:
            return False
        i = ids.index(step) + way
        return 0 <= i < len(tonight) and _called(tonight[i]) == _called(tonight[ids.index(step)])

    def mark(self, step: str, night: int, begun: bool) -> dict[str, object] | None:
        """The journal's record of a call begun or ended (None: not a W3 call, nothing to record)."""
        if not self.on or not any(st.id == step for st in self.steps):
            return None
        return {"night": night, "step": step, "open": begun}

    def restore(self, mark: dict[str, object] | None, night: int, salt: int) -> str | None:
        """A game resumed from the journal, whose last call record is ``mark``: tonight's calls go on after the
        one it names, and its draws come from the game's seed and ``salt`` (the journal's last record). Returns
        the step whose call the power cut (to be called again whole), or None."""
        if not self.on or not mark or mark.get("night") != night:
            return None
        ids = [st.id for st in self.steps]
        step = mark.get("step")
        if not isinstance(step, str) or step not in ids:
            return None
        self.rng = random.Random(f"W3:{self.seed}:resumed:{salt}")
        self.resumed = False
        self.next = ids.index(step) + 1
        return step if mark.get("open") else None

    def opened(self, step: str, now: float) -> None:
        """A call's window opened: it lasts at least a draw from now."""
        self.until = now + self.draw() if self.on and any(st.id == step for st in self.steps) else None

    def left(self, now: float) -> float:
        """Seconds the open call still has to last before its sleep line (0 once its draw has passed)."""
        until, self.until = self.until, None
        return max(0.0, until - now) if until is not None else 0.0


def _called(step: NightStep) -> tuple[str, ...]:
    """The roles the judge calls for a step."""
    return step.call or step.roles


def _runs(step: NightStep, night: int) -> bool:
    """Whether the step belongs to this night at all (V5.2 first night only, V5.4 after the first)."""
    return step.nights == "all" or (step.nights == "first" and night == 1) or (
        step.nights == "after_first" and night > 1)
