"""Is a take of the club's judge fit to play? Judged before it goes into the pack, with one reason a person can act
on: no voice heard, clipped, mostly noise, too quiet, too long for its slot.

A take comes from the judge's phone (the console's recording page sends it as 16-bit WAV) or from a microphone
on the Pi (``tianhei sounds record``). What passes is trimmed at both ends (to the voice, above the room's own
noise) and then finished exactly as the build finishes a synthesised prompt (:func:`controller.voice.build.finish`:
the pack's EBU R128 loudness, true peak at most -1 dBTP after encoding), so a recorded prompt sits among the
built ones at the same level.

Needs numpy (and, to finish, pyloudnorm, scipy and sox): the build's tools, installed on the table that records.
"""

from __future__ import annotations

import io
import wave
from dataclasses import dataclass, field
from typing import Any

from controller.voice.loudness import loudness

#: Frames of this many seconds are measured (the voice against the room between words).
FRAME_S = 0.02
#: A take's loudest sample below this (-50 dBFS) heard nothing: a muted or refused microphone.
SILENT_PEAK = 10 ** (-50 / 20)
#: A sample at or above this is taken as clipped (a converter at full scale; a codec's round trip rings a little
#: under it), and a take with more than :data:`CLIPPED_SHARE` of its voice's samples there is refused.
CLIP_LEVEL = 0.985
CLIPPED_SHARE = 0.0005
#: The voice (its loud frames) must stand this many dB above the room (its quiet frames).
MIN_SNR_DB = 20.0
#: Quieter than this (LUFS, the voice alone) needs so much gain that the room's hiss comes up with it.
MIN_LUFS = -45.0
#: A take's slot: this many times the built voice's clip, at least :data:`MIN_SLOT_S`, at most the pack check's
#: limit for a prompt (controller/voice/check.py).
SLOT_FACTOR = 2.5
MIN_SLOT_S = 2.0
#: The longest take read at all (a recording left running is refused before it is measured).
MAX_TAKE_S = 30.0


class TakeError(ValueError):
    """Not a take this can read (not 16-bit PCM WAV, empty, or longer than :data:`MAX_TAKE_S`)."""


@dataclass(frozen=True)
class Verdict:
    """``code`` ``ok`` or why the take is refused (``silent``, ``clipped``, ``noisy``, ``quiet``, ``long``);
    ``reason`` says it in one line with the figures; ``figures`` are the measures themselves."""

    code: str
    reason: str
    figures: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.code == "ok"


def read_take(data: bytes) -> tuple[Any, int]:
    """A WAV take as mono float samples and its rate (raises :class:`TakeError` with what is wrong)."""
    import numpy as np

    try:
        with wave.open(io.BytesIO(data), "rb") as w:
            width, channels, rate, frames = w.getsampwidth(), w.getnchannels(), w.getframerate(), w.getnframes()
            if width != 2:
                raise TakeError(f"a take must be 16-bit PCM WAV, this is {8 * width}-bit")
            if not 8000 <= rate <= 96000:
                raise TakeError(f"a take's sample rate must be 8000-96000 Hz, this is {rate} Hz")
            if frames > MAX_TAKE_S * rate:
                raise TakeError(f"the take lasts {frames / rate:.0f} s: at most {MAX_TAKE_S:.0f} s is read")
            raw = w.readframes(frames)
    except (wave.Error, EOFError) as exc:
        raise TakeError(f"not a WAV file ({exc})") from None
    samples = np.frombuffer(raw[: len(raw) // (2 * channels) * 2 * channels], "<i2").astype(np.float32) / 32768
    if not len(samples):
        raise TakeError("the take is empty")
    return samples.reshape(-1, channels).mean(axis=1), rate


def _frames_db(samples: Any, rate: int) -> Any:
    import numpy as np

    n = max(1, int(FRAME_S * rate))
    count = max(1, len(samples) // n)
    frames = samples[: count * n].reshape(count, n) if len(samples) >= n else samples.reshape(1, -1)
    rms = np.sqrt(np.mean(np.square(frames.astype(np.float64)), axis=1))
    return 20 * np.log10(np.maximum(rms, 1e-6))


def voice_span(samples: Any, rate: int) -> tuple[int, int]:
    """Where the voice is: the first and last frame more than 10 dB above the room and within 40 dB of the
    loudest, as sample indices with 20 ms kept either side."""
    import numpy as np

    db = _frames_db(samples, rate)
    floor = float(np.percentile(db, 10))
    loud = np.nonzero(db > max(floor + 10.0, float(db.max()) - 40.0))[0]
    n = max(1, int(FRAME_S * rate))
    if not len(loud):
        return 0, len(samples)
    margin = int(0.02 * rate)
    return max(0, int(loud[0]) * n - margin), min(len(samples), (int(loud[-1]) + 1) * n + margin)


def judge(samples: Any, rate: int, slot_s: float) -> Verdict:
    """Whether a take (mono floats -1..1) may go into the pack for a prompt whose slot is ``slot_s`` seconds."""
    import numpy as np

    x = np.asarray(samples, dtype=np.float64)
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if peak < SILENT_PEAK:
        return Verdict("silent", f"no voice was heard (the loudest sound is at {_db(peak):.0f} dBFS): check that "
                                 "the microphone is on and that the page may use it", {"peak_dbfs": _db(peak)})
    start, end = voice_span(x, rate)
    voice = x[start:end]
    clipped = float(np.count_nonzero(np.abs(voice) >= CLIP_LEVEL)) / max(1, len(voice))
    if clipped > CLIPPED_SHARE:
        return Verdict("clipped", f"the recording is clipped ({clipped:.2%} of the voice at full scale): speak "
                                  "a little further from the microphone, or more softly", {"clipped": clipped})
    db = _frames_db(x, rate)
    snr = float(np.percentile(db, 95) - np.percentile(db, 10))
    if snr < MIN_SNR_DB:
        return Verdict("noisy", f"mostly noise: the voice is only {snr:.0f} dB above the room ({MIN_SNR_DB:.0f} "
                                "needed): record somewhere quieter, or closer to the microphone", {"snr_db": snr})
    level = loudness(voice, rate)
    if level < MIN_LUFS:
        return Verdict("quiet", f"too quiet ({level:.0f} LUFS, at least {MIN_LUFS:.0f}): speak closer to the "
                                "microphone", {"lufs": level})
    seconds = len(voice) / rate
    if seconds > slot_s:
        return Verdict("long", f"too long for its slot: {seconds:.1f} s, at most {slot_s:.1f} s: say it "
                               "more briskly", {"seconds": seconds, "slot_s": slot_s})
    return Verdict("ok", f"{seconds:.1f} s, voice {snr:.0f} dB above the room",
                   {"seconds": seconds, "snr_db": snr, "lufs": level})


def slot_for(built_seconds: float | None, limit_s: float) -> float:
    """How long a take of a prompt may be: room for a slower judge than the built voice, never past the pack
    check's limit (a vote window opens only when the prompt ends)."""
    if built_seconds is None or built_seconds != built_seconds:  # unknown (NaN): the limit alone
        return limit_s
    return min(limit_s, max(MIN_SLOT_S, SLOT_FACTOR * built_seconds))


def _db(x: float) -> float:
    import math

    return 20 * math.log10(max(x, 1e-6))
