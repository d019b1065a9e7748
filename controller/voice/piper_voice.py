"""A Piper voice the club provides, for building the ``en`` pack (``tianhei sounds build en --voice piper
--piper-voice FILE.onnx --voice-use any|non-commercial``).

PyPI's ``piper-tts`` runs the voice offline (ONNX Runtime, its own espeak-ng data for the phonemes): nothing is
downloaded, the club hands the ``.onnx`` file and its ``.onnx.json`` beside it. espeak-ng stays the default.

A Piper voice's terms are those of the data it learnt from, and a voice fine-tuned from another carries that
one's too (``en_US-joe-medium``: a CC0 dataset, fine-tuned from ``lessac``, whose Blizzard 2013 data is licensed
for non-commercial use): no file says it in a form to trust, so the club states the use (``--voice-use``), and
the record quotes the voice's ``MODEL_CARD`` (dataset, licence, training) when one lies beside it.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.voice.licence import Licence

#: Seconds of silence between two sentences of one prompt (Piper says each sentence apart).
SENTENCE_PAUSE = 0.3
INSTALL_HINT = "the Piper voice needs piper-tts: pip install piper-tts (it runs offline)"


class PiperUnavailable(RuntimeError):
    """piper-tts is not installed, or the voice file is not a Piper voice: the message names the fix."""


def check_voice(model: Path) -> dict[str, object]:
    """The voice's ``.onnx.json`` (raises :class:`PiperUnavailable` naming what is missing)."""
    if importlib.util.find_spec("piper") is None:
        raise PiperUnavailable(INSTALL_HINT)
    if model.suffix != ".onnx" or not model.is_file():
        raise PiperUnavailable(f"{model}: not a Piper voice file (FILE.onnx, with FILE.onnx.json beside it)")
    config = model.with_name(model.name + ".json")
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PiperUnavailable(f"{config}: the voice's settings cannot be read ({exc})") from None
    if not isinstance(data, dict):
        raise PiperUnavailable(f"{config}: not a Piper voice's settings")
    return data


def licence_for(model: Path, use: str) -> Licence:
    """The record of a club's Piper voice: the use the club states, the voice's own model card quoted."""
    data = check_voice(model)
    card = model.parent / "MODEL_CARD"
    quoted = ""
    if card.is_file():
        lines = [line.strip("* ").strip() for line in card.read_text(encoding="utf-8").splitlines()]
        quoted = "; ".join(line for line in lines if line.split(":")[0] in ("URL", "License")
                           or line.lower().startswith("finetuned"))
    dataset = data.get("dataset", model.stem)
    return Licence(
        voice=f"Piper voice {model.name} (dataset {dataset})",
        model="piper-tts: GPL-3.0-or-later; the voice file provided by the club",
        data=f"model card: {quoted}" if quoted else "no model card beside the voice file: as the club states",
        use=use,
        note="the use is the club's statement (--voice-use): check the voice's dataset and what it was fine-tuned from",
    )


def piper_speaker(model: Path) -> Callable[[str], tuple[object, int]]:
    """A ``text -> (samples, rate)`` function speaking with the Piper voice ``model`` (loaded once)."""
    check_voice(model)
    import numpy as np
    from piper import PiperVoice

    voice = PiperVoice.load(str(model))

    def say(text: str) -> tuple[object, int]:
        chunks = list(voice.synthesize(text))
        if not chunks:
            raise PiperUnavailable(f"the Piper voice said nothing for {text!r}")
        rate = chunks[0].sample_rate
        pause = np.zeros(int(SENTENCE_PAUSE * rate), np.float32)
        parts: list[Any] = []
        for chunk in chunks:
            parts.extend([chunk.audio_float_array, pause])
        return np.concatenate(parts[:-1]), rate

    return say
