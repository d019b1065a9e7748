"""Every clip at one loudness: EBU R128 (ITU-R BS.1770 K-weighted, gated) through ``pyloudnorm``.

Peak normalisation (what the build did before) leaves a short, bright prompt louder than a long, soft one and
the masking loop wherever its noise happens to peak; loudness is what the listener hears. The build brings each
clip to :data:`TARGET_LUFS` and ``tests/voice/test_loudness.py`` measures the committed files the same way.

BS.1770 measures in 400 ms blocks: a clip shorter than a block (一, 票) is measured as if played in a loop,
which has the same mean K-weighted power as the clip itself.
"""

from __future__ import annotations

from typing import Any

#: The table's level: about today's speech, with room under full scale for the peaks of a bright voice.
TARGET_LUFS = -20.0
#: How far a committed clip may be from the target (the issue's ±1 LU).
TOLERANCE_LU = 1.0
#: Samples never go above this (-1 dBFS): a clip whose peak would pass it is limited softly (see :func:`level`).
CEILING = 10 ** (-1 / 20)
_MIN_SECONDS = 0.8


def loudness(samples: Any, rate: int) -> float:
    """Integrated loudness in LUFS of mono float samples (-1..1)."""
    import numpy as np
    import pyloudnorm

    x = np.asarray(samples, dtype=np.float64)
    if not len(x) or not np.any(x):
        return float("-inf")
    if len(x) < _MIN_SECONDS * rate:
        x = np.tile(x, int(np.ceil(_MIN_SECONDS * rate / len(x))))
    return float(pyloudnorm.Meter(rate).integrated_loudness(x))


def level(samples: Any, rate: int, target: float = TARGET_LUFS, ceiling: float = CEILING) -> Any:
    """``samples`` brought to ``target`` LUFS. Peaks that would pass ``ceiling`` are rounded off by a soft
    limiter (tanh above the knee), then the level is measured and set again, so the result is on target and
    never clips. (The build lowers ``ceiling`` for a clip whose true peak rose past -1 dBTP in encoding.)"""
    import numpy as np

    x = np.asarray(samples, dtype=np.float64)
    for _ in range(4):
        now = loudness(x, rate)
        if not np.isfinite(now):
            return x.astype(np.float32)
        x = x * 10 ** ((target - now) / 20)
        if np.max(np.abs(x)) <= ceiling:
            break
        knee = 0.7 * ceiling
        over = np.abs(x) > knee
        x[over] = np.sign(x[over]) * (knee + (ceiling - knee) * np.tanh((np.abs(x[over]) - knee) / (ceiling - knee)))
    return np.clip(x, -ceiling, ceiling).astype(np.float32)
