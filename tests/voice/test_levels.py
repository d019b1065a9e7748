"""The committed packs as a listener hears them, measured from the files: every clip (speech, beeps and the night
masking loop) at one EBU R128 loudness, speech trimmed at both ends, and the neural voice's night calls slower
than its day's. The clips are decoded by pygame's mixer on SDL's dummy driver, as the table plays them."""

from __future__ import annotations

import statistics
from collections.abc import Iterator

import numpy as np
import pytest

from controller.voice.loudness import TARGET_LUFS, TOLERANCE_LU, loudness
from controller.voice.packs import SOURCE_PACKS, Pack
from controller.voice.zh_text import syllables

PACKS = ("zh-CN", "en")
RATE = 22050


@pytest.fixture(scope="module")
def decoded() -> Iterator[dict[str, dict[str, np.ndarray]]]:
    """Every committed clip of every pack as float samples at the mixer's rate."""
    import os

    saved = os.environ.get("SDL_AUDIODRIVER")
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    import pygame.mixer

    pygame.mixer.quit()
    pygame.mixer.init(frequency=RATE, size=-16, channels=1)
    out = {}
    for name in PACKS:
        pack = Pack.load(SOURCE_PACKS / name)
        out[name] = {pid: np.frombuffer(pygame.mixer.Sound(str(c.path)).get_raw(), "<i2") / 32768.0
                     for pid, c in pack.clips.items()}
    pygame.mixer.quit()
    if saved is None:
        del os.environ["SDL_AUDIODRIVER"]
    else:
        os.environ["SDL_AUDIODRIVER"] = saved
    yield out


@pytest.mark.parametrize("name", PACKS)
def test_every_clip_and_the_masking_loop_are_at_one_loudness(name: str, decoded: dict) -> None:
    off = {pid: round(loudness(x, RATE) - TARGET_LUFS, 2) for pid, x in decoded[name].items()}
    assert "sfx.mask" in off
    bad = {pid: d for pid, d in off.items() if abs(d) > TOLERANCE_LU}
    assert not bad, f"{name}: clips more than {TOLERANCE_LU} LU from {TARGET_LUFS} LUFS: {bad}"


@pytest.mark.parametrize("name", PACKS)
def test_speech_starts_and_ends_without_silence(name: str, decoded: dict) -> None:
    frame = RATE // 100
    late = {}
    for pid, x in decoded[name].items():
        if pid.startswith("sfx."):
            continue
        n = len(x) // frame
        rms = np.sqrt(np.mean(np.square(x[: n * frame].reshape(n, frame)), axis=1))
        loud = np.nonzero(rms > rms.max() * 10 ** (-40 / 20))[0]
        lead, tail = loud[0] * frame / RATE, (n - 1 - loud[-1]) * frame / RATE
        if lead > 0.06 or tail > 0.06:
            late[pid] = (round(lead, 2), round(tail, 2))
    assert not late, f"{name}: silence at the start or end (s): {late}"


def test_the_neural_voice_calls_the_night_slower_than_the_day() -> None:
    pack = Pack.load(SOURCE_PACKS / "zh-CN")
    if "neural" not in (SOURCE_PACKS / "zh-CN" / "manifest.toml").read_text(encoding="utf-8"):
        pytest.skip("the committed zh-CN pack was built with espeak-ng (--voice espeak)")

    def rate(pid: str) -> float:
        clip = pack.clips[pid]
        return len(syllables(clip.text)) / clip.duration

    sentences = [pid for pid, c in pack.clips.items() if not pid.startswith("sfx.") and len(c.text) >= 5]
    night = [rate(p) for p in sentences if p.startswith(("night.", "role."))]
    day = [rate(p) for p in sentences if not p.startswith(("night.", "role."))]
    assert len(night) > 20 and len(day) > 20
    assert statistics.median(night) < 0.9 * statistics.median(day)
    assert 2.5 < statistics.median(night) < statistics.median(day) < 6.0  # a judge's pace, syllables a second


@pytest.mark.parametrize("name", PACKS)
def test_no_clip_passes_minus_one_dbtp_after_encoding(name: str, decoded: dict) -> None:
    from controller.voice.fidelity import MAX_TRUE_PEAK, true_peak

    over = {pid: round(true_peak(x), 2) for pid, x in decoded[name].items() if true_peak(x) > MAX_TRUE_PEAK}
    assert not over, f"{name}: clips whose true peak passes {MAX_TRUE_PEAK} dBTP as the table decodes them: {over}"
