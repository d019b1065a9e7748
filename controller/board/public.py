"""What the whole room may see, as one plain mapping for a :class:`controller.ports.Board`.

004 §3.2/§3.10/§3.13: a big screen shows the judge's gestures (eyes closed, day, a speech, a vote) and who died.
This module is the only place that decides what goes on it, from facts the voice has said aloud or the room can
see anyway: the day, the dead seats, whose speech, the candidate being called, the announced tally. Before the end
it never reads a role, a night pick or a police answer; after the end (C4) the winner and every role are public.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from controller.rules import sheriff
from controller.rules.events import Candidacy, CardShown, ElectionClosed, Event, Opened, VoteClosed
from controller.rules.state import SHERIFF, GameState


def election_facts(events: Sequence[Event]) -> dict[str, object]:
    """W10: the election under way, from its events since its call opened: who runs (the hands raised so far
    while the call is open), who withdrew (退水) since."""
    since = next((i for i in range(len(events) - 1, -1, -1)
                  if isinstance(events[i], Opened) and events[i].kind == "candidacy"), 0)  # type: ignore[attr-defined]
    running: list[int] = []
    withdrawn: list[int] = []
    called = False
    for e in events[since:]:
        if isinstance(e, ElectionClosed) and e.outcome == "run":
            called, running = True, list(e.candidates)
        elif isinstance(e, Candidacy) and called and not e.running:
            withdrawn.append(e.seat)
        elif isinstance(e, Candidacy) and not called and e.running:
            running.append(e.seat)
    return {"running": sorted(running), "withdrawn": sorted(withdrawn)}


def public_facts(state: GameState | None, events: Sequence[Event], *, window: Any = None,
                 now: float = 0.0, over: bool = False, paused: bool = False) -> dict[str, object]:
    """The board's state. ``window`` is the director's open input window (its kind, the vote call, the
    deadline); ``over`` is the director's own end (the game ended or was aborted)."""
    if state is None or not state.roles or (state.night == 0 and state.day == 0 and not state.over):
        return {"gesture": "deal"}  # dealt but not yet played (the digital deal's look at the card, D1's choice)
    facts: dict[str, object] = {"night": state.night, "day": state.day,
                                "dead": sorted(set(range(1, state.players + 1)) - set(state.alive))}
    if state.config.variant.live == "both":  # D2: the numbers below are card places (board/words.py writes 7-1)
        facts["numbering"] = "seat_and_card"
    if over or state.over:
        facts.update(gesture="over", winner=state.winner or "draw", variant=state.config.variant.id,
                     roles={str(i): r for i, r in enumerate(state.roles, start=1)})
        return facts
    shown = {str(e.seat): e.role for e in events if isinstance(e, CardShown)}
    if shown:  # W9 the idiot's card, W11 a self-destructed werewolf's: shown to the whole room
        facts["shown"] = shown
    if paused:
        facts["gesture"] = "paused"
        return facts
    chief = state.mark(SHERIFF)
    if chief:  # W10: who holds the badge is public
        facts["sheriff"] = chief
    if sheriff.in_election(state):  # W10: held with eyes open, before the dawn; who runs is shown by hand
        facts.update(gesture="sheriff_election", **election_facts(events))
        kind = getattr(window, "kind", None)
        if kind == "speeches" and state.queue:
            facts.update(speaker=state.queue[0], seconds=max(0, math.ceil(round(window.deadline - now, 3))))
        elif kind == "vote" and window.call is not None:
            facts["candidate"] = window.call[0]
        return facts
    if state.phase == "night":
        facts["gesture"] = "eyes_closed"  # who wakes and what they choose stays in the dark
        return facts
    facts["gesture"] = "day"
    kind = getattr(window, "kind", None)
    if kind in ("speeches", "last_words") and state.queue:
        facts.update(gesture="last_words" if kind == "last_words" else "speech", speaker=state.queue[0],
                     seconds=max(0, math.ceil(round(window.deadline - now, 3))))
    elif kind == "vote":
        facts["gesture"] = "vote"
        if window.call is not None:
            facts["candidate"] = window.call[0]
    tally = next((e for e in reversed(events) if isinstance(e, VoteClosed)), None)
    if tally is not None:
        facts["tally"] = [list(t) for t in tally.tally]
        facts["out"] = tally.out
        facts["tied"] = list(tally.tied)
    return facts
