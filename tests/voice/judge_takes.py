"""Takes of a club's judge, as WAV files a phone or a microphone on the Pi would send: the voice is a committed
clip of the built pack (a real voice's spectrum and pauses), in a quiet room, then spoilt the ways a real take
is: nothing heard, clipped, drowned in noise, far too quiet, left running."""

from __future__ import annotations

import os
import wave
from pathlib import Path

import numpy as np

from controller.voice.packs import SOURCE_PACKS

RATE = 22050


def voice(prompt: str = "night.falls", pack: str = "zh-CN") -> np.ndarray:
    """A built clip as float samples at 22.05 kHz (pygame decodes it, as the table would)."""
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame.mixer

    was = pygame.mixer.get_init()
    if not was:
        pygame.mixer.init(frequency=RATE, size=-16, channels=1)
    try:
        raw = pygame.mixer.Sound(str(SOURCE_PACKS / pack / f"{prompt}.ogg")).get_raw()
    finally:
        if not was:
            pygame.mixer.quit()
    return np.frombuffer(raw, "<i2").astype(np.float64) / 32768


def in_a_room(x: np.ndarray, before: float = 0.6, after: float = 0.5, hiss_db: float = -70.0,
              seed: int = 1) -> np.ndarray:
    """The take as recorded: the judge pressed record, waited, spoke, waited and pressed stop; the room hisses."""
    rng = np.random.default_rng(seed)
    padded = np.concatenate([np.zeros(int(before * RATE)), x, np.zeros(int(after * RATE))])
    return padded + rng.normal(0, 10 ** (hiss_db / 20), len(padded))


def takes(prompt: str = "night.falls") -> dict[str, np.ndarray]:
    spoken = voice(prompt)
    rng = np.random.default_rng(7)
    good = in_a_room(spoken)
    return {
        "good": good,
        "silent": in_a_room(np.zeros(len(spoken)), hiss_db=-80.0),
        "clipped": np.clip(good * 8, -1, 1),
        "noisy": good + rng.normal(0, 0.08, len(good)),
        "quiet": good * 0.01,
        "long": in_a_room(np.concatenate([spoken, np.zeros(RATE // 3)] * 4)),
    }


def wav_bytes(x: np.ndarray, rate: int = RATE) -> bytes:
    import io

    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(x, -1, 1) * 32767).round().astype("<i2").tobytes())
    return buf.getvalue()


def write_takes(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, x in takes().items():
        out[name] = folder / f"{name}.wav"
        out[name].write_bytes(wav_bytes(x))
    return out
