"""How long the table waits for each thing (C5: every wait has a deadline; every deadline is visible)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class Timings:
    night_action_s: float = 30.0
    recognition_s: float = 8.0
    #: The police see the nod or shake (screen mark, LED green/red) this long (V2.2).
    answer_s: float = 4.0
    #: A seat shows its role this long after the deal (and again while OK is held).
    reveal_s: float = 5.0
    speech_s: float = 120.0
    last_words_s: float = 60.0
    defence_claim_s: float = 10.0
    #: A defence or tie speech (C3, V2.7, V4.8): usually shorter than a day's speech.
    defence_s: float = 60.0
    direction_s: float = 10.0
    #: W10: the call to run for sheriff (every living seat presses OK to run, ◀/▶ not to).
    candidacy_s: float = 20.0
    #: W10: a dying sheriff passes the badge or tears it (torn at the deadline).
    badge_s: float = 30.0
    #: D1: the players choose which of their two cards plays first.
    first_identity_s: float = 30.0
    #: Remaining seconds at which a speaker is warned (beep, inverted screen).
    warnings_s: tuple[float, ...] = (30.0, 10.0)
    #: After a vote window closes, before the next call, late hands still arrive (and are follow-votes).
    vote_gap_s: float = 0.5
    tally_s: float = 4.0
    #: Holding OK this long shows the seat's role again.
    peek_hold_s: float = 0.6
    #: A table without a judge: holding ◀ and ▶ together this long asks the seat whether it surrenders (V2.11).
    surrender_hold_s: float = 2.0
    #: A message on a seat (a rejected press) stays this long.
    notice_s: float = 2.5
    #: Checkpoint the running timer to the journal this often (resume "from what was left").
    checkpoint_s: float = 10.0

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> Timings:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown timer(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
        return cls(**values)
