"""The encoding's measures: true peak between the samples, and holes punched into the 4-8 kHz band."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.signal import butter, sosfilt

from controller.voice.build import QUALITY, read_wav, write_wav
from controller.voice.fidelity import band_holes, true_peak

RATE = 22050


def noise(seconds: float = 1.0, seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-0.3, 0.3, int(seconds * RATE))


def test_a_sine_between_its_samples_peaks_above_its_sample_peak() -> None:
    # A quarter of the rate, phased so that every sample lands 45 degrees off the crest: samples at 0.707.
    t = np.arange(RATE // 10)
    fade = np.minimum(1.0, np.minimum(t, t[::-1]) / 200)  # no click at either end to ring
    wave = 0.9 * fade * np.sin(2 * np.pi * (RATE / 4) * t / RATE + np.pi / 4)
    assert 20 * np.log10(np.max(np.abs(wave))) == pytest.approx(-3.93, abs=0.05)
    assert true_peak(wave) == pytest.approx(20 * np.log10(0.9), abs=0.2)


def test_silence_has_no_peak() -> None:
    assert true_peak(np.zeros(100)) == float("-inf")


def test_a_clip_cut_off_at_4_khz_has_lost_the_whole_band_and_an_untouched_one_nothing() -> None:
    source = noise()
    dull = sosfilt(butter(12, 3500, fs=RATE, output="sos"), source)
    assert band_holes(source, source, RATE) == 0.0
    assert band_holes(source, dull, RATE) > 0.95


@pytest.mark.usefixtures("sox", "espeak")
def test_the_packs_quality_keeps_the_sibilants_of_a_spoken_prompt(tmp_path: Path) -> None:
    raw, wav, ogg, back = (tmp_path / n for n in ("raw.wav", "s.wav", "s.ogg", "back.wav"))
    subprocess.run(["espeak-ng", "-v", "en-gb", "-w", str(raw), "Someone saw another card. Six, seven."], check=True)
    subprocess.run(["sox", str(raw), "-r", str(RATE), str(wav)], check=True)
    source, _ = read_wav(wav)
    write_wav(source, wav)
    measured = {}
    for quality in ("0", QUALITY):
        subprocess.run(["sox", str(wav), "-C", quality, str(ogg)], check=True)
        subprocess.run(["sox", str(ogg), "-b", "16", str(back)], check=True)
        measured[quality] = band_holes(source, read_wav(back)[0], RATE)
    assert measured[QUALITY] < 0.03 < measured["0"]
