"""What encoding did to a clip, measured as a listener would notice it (numpy and scipy: the build's machine and
the tests, never the Pi's game loop).

* :func:`true_peak`: the peak of the waveform between the samples too (ITU-R BS.1770-4 annex 2: 4x
  oversampling), in dBTP. A lossy codec moves peaks; the table's DAC reconstructs between samples, so a clip at
  -1 dBFS sample peak can still clip there. Packs keep every clip at or under :data:`MAX_TRUE_PEAK` after
  encoding.
* :func:`band_holes`: the share of the 4-8 kHz band's time-frequency cells where the source has sound and the
  encoded clip has (almost) none: the "holes" a low Vorbis quality punches into sibilants and fricatives
  (s, sh, x, q, c), heard as a lisp or a warble.
"""

from __future__ import annotations

from typing import Any

#: The highest true peak a clip may have after encoding (EBU R128's -1 dBTP for distribution).
MAX_TRUE_PEAK = -1.0
#: The band whose holes are counted, Hz: the sibilants' energy, under a 22.05 kHz clip's Nyquist frequency.
HOLE_BAND = (4000.0, 8000.0)
#: A cell counts as sound in the source when within this many dB of the source's loudest cell in that band (what
#: is heard beside the loud sibilants; fainter cells are masked anyway, and a codec may drop them unheard).
SOUND_RANGE_DB = 30.0
#: A cell is a hole when the encoded clip is this many dB below the source there.
HOLE_DB = 10.0
_FRAME = 512


def true_peak(samples: Any) -> float:
    """The true peak of mono float samples (-1..1), in dBTP (``-inf`` for silence)."""
    import numpy as np
    from scipy.signal import resample_poly

    x = np.asarray(samples, dtype=np.float64)
    if not len(x) or not np.any(x):
        return float("-inf")
    up = resample_poly(np.concatenate([x, np.zeros(32)]), 4, 1)
    return float(20 * np.log10(max(float(np.max(np.abs(up))), float(np.max(np.abs(x))))))


def _band_power(samples: Any, rate: int) -> Any:
    import numpy as np
    from scipy.signal import stft

    freqs, _t, z = stft(np.asarray(samples, dtype=np.float64), fs=rate, nperseg=_FRAME, noverlap=_FRAME * 3 // 4)
    band = (freqs >= HOLE_BAND[0]) & (freqs < HOLE_BAND[1])
    return np.abs(z[band]) ** 2


def band_holes(source: Any, encoded: Any, rate: int) -> float:
    """The share (0..1) of the source's sounding 4-8 kHz cells that the encoded clip lost (:data:`HOLE_DB` or
    more below the source). Both clips mono at ``rate``, sample-aligned (sox's Vorbis round trip is)."""
    import numpy as np

    n = min(len(source), len(encoded))
    src, enc = _band_power(source[:n], rate), _band_power(encoded[:n], rate)
    if not src.size or not np.any(src):
        return 0.0
    sounding = src > src.max() * 10 ** (-SOUND_RANGE_DB / 10)
    lost = enc < src * 10 ** (-HOLE_DB / 10)
    heard = int(np.count_nonzero(sounding))
    return float(np.count_nonzero(sounding & lost)) / max(1, heard)
