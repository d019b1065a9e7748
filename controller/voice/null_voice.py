"""A :class:`controller.ports.Voice` that plays nothing and writes down what it was asked to say, and when.

For director tests and the simulator: durations come from a real pack's manifest (so timings match the table)
or a fixed length per prompt; time comes from the injected clock, so a whole game's script can be asserted
("at 12.5 s the table called seat 3's vote") without sleeping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.voice.packs import PART_GAP, VoicePack
from controller.voice.prompts import prompt
from controller.voice.timeline import Clock, Timeline, Utterance


@dataclass(frozen=True, slots=True)
class Cue:
    """A masking or beep request: ``what`` is ``"masking on"``, ``"masking off"`` or ``"beep warning"``."""

    at: float
    what: str


class NullVoice:
    """Records :class:`Utterance` s (with the time they were asked for and when they would be heard).

    With ``pack`` every prompt ID must exist in it (an unknown ID raises, so a director bug fails its test);
    without one every part takes ``part_seconds``."""

    def __init__(self, clock: Clock, pack: VoicePack | None = None, *, part_seconds: float = 1.0) -> None:
        self.clock = clock
        self.pack = pack
        self.part_seconds = part_seconds
        self.timeline = Timeline(clock)
        self.said: list[Utterance] = []
        self.cues: list[Cue] = []
        #: Utterances an urgent one cut off (playing or still queued), never heard in full.
        self.cut_off: list[Utterance] = []
        self.masking_on = False

    def duration(self, prompts: Sequence[str]) -> float:
        for p in prompts:
            prompt(p)  # shape check: a malformed ID fails here, as it would in a pack
        if self.pack is not None:
            return self.pack.duration(prompts)
        return len(prompts) * self.part_seconds + PART_GAP * max(0, len(prompts) - 1)

    def say(self, prompts: Sequence[str], *, urgent: bool = False) -> float:
        if urgent:
            self.cut_off.extend(self.timeline.active())
        utterance = self.timeline.add(prompts, self.duration(prompts), urgent=urgent)
        self.said.append(utterance)
        return utterance.end - self.clock()

    def masking(self, on: bool) -> None:
        self.masking_on = on
        self.cues.append(Cue(self.clock(), f"masking {'on' if on else 'off'}"))

    def beep(self, kind: str = "warning") -> None:
        self.cues.append(Cue(self.clock(), f"beep {kind}"))

    # For assertions.

    def prompts_said(self) -> list[str]:
        """Every prompt ID asked for, in order (cut-in utterances included)."""
        return [p for u in self.said for p in u.prompts]

    def speaking(self) -> Utterance | None:
        """What the table would be saying now."""
        return self.timeline.speaking()
