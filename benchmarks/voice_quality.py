"""How the judge's two Mandarin voices sound, measured (nobody can listen from a test): the committed zh-CN pack
(the neural voice) against the same catalogue said by espeak-ng (built into a temporary folder), and the size
of each pack on the Pi.

    python benchmarks/voice_quality.py [--pack FOLDER ...]

Needs sox (decoding), espeak-ng (the comparison pack) and praat-parselmouth (the pitch track: Praat's
autocorrelation pitch, 75-500 Hz, 10 ms steps), i.e. the ``[voice]`` extra. Per voice, over the spoken prompts:

* syllables per second: the front end's syllables over the clip's duration (sentences of 5+ syllables), the
  median of the day's prompts and of the night's calls;
* voiced share: the median fraction of 10 ms frames with a pitch (a monotone buzz and a breathy whisper are
  both far from natural speech's 50-70 %);
* pitch range: the median over clips of the 5th-95th percentile span of F0, in semitones, for the day's prompts
  and the night's calls (sentences of 5+ syllables) (espeak-ng's flat intonation is a few semitones; a person reading aloud, 8-12), and the
  median F0;
* size: the pack's bytes, and on a 4 KiB-block file system (the Pi's SD card).

Everything is deterministic (the build, the models, the pitch tracker): one run gives the figures.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.voice.build import build_language_pack
from controller.voice.packs import SOURCE_PACKS, Pack
from controller.voice.zh_text import syllables

RATE = 22050


def decode(path: Path) -> np.ndarray:
    raw = subprocess.run(["sox", str(path), "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", str(RATE),
                          "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, "<i2") / 32768.0


def night(pid: str) -> bool:
    return pid.startswith("night.") or (pid.startswith("role.") and not pid.endswith(".name"))


def measure(root: Path) -> dict[str, float]:
    import parselmouth

    pack = Pack.load(root)
    day_rate, night_rate, voiced, spans, f0s = [], [], [], {True: [], False: []}, []
    for pid, clip in sorted(pack.clips.items()):
        if pid.startswith("sfx."):
            continue
        n = len(syllables(clip.text))
        if n >= 5:
            (night_rate if night(pid) else day_rate).append(n / clip.duration)
        pitch = parselmouth.Sound(decode(clip.path), RATE).to_pitch(time_step=0.01, pitch_floor=75,
                                                                   pitch_ceiling=500)
        f0 = pitch.selected_array["frequency"]
        if not len(f0):
            continue
        voiced.append(float(np.mean(f0 > 0)))
        if n >= 5 and np.sum(f0 > 0) >= 10:
            semitones = 12 * np.log2(f0[f0 > 0] / 100.0)
            spans[night(pid)].append(float(np.percentile(semitones, 95) - np.percentile(semitones, 5)))
            f0s.append(float(np.median(f0[f0 > 0])))
    files = [p for p in root.iterdir() if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    blocks = sum(-(-p.stat().st_size // 4096) * 4096 for p in files)
    return {"day syl/s": statistics.median(day_rate), "night syl/s": statistics.median(night_rate),
            "voiced %": 100 * statistics.median(voiced), "day range st": statistics.median(spans[False]),
            "night range st": statistics.median(spans[True]),
            "median F0 Hz": statistics.median(f0s), "files": len(files), "MB": size / 1e6,
            "MB on 4K blocks": blocks / 1e6}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", action="append", type=Path, default=[],
                        help="also measure this pack folder (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        espeak = Path(tmp) / "zh-CN"
        build_language_pack("zh-CN", espeak, voice="espeak", force=True)
        packs = {"zh-CN neural (committed)": SOURCE_PACKS / "zh-CN", "zh-CN espeak-ng": espeak}
        packs.update({str(p): p for p in args.pack})
        rows = {name: measure(root) for name, root in packs.items()}
    keys = list(next(iter(rows.values())))
    width = max(len(n) for n in rows)
    print(f"{'voice':<{width}}  " + "  ".join(f"{k:>15}" for k in keys))
    for name, row in rows.items():
        print(f"{name:<{width}}  " + "  ".join(f"{row[k]:>15.2f}" if isinstance(row[k], float) else
                                              f"{row[k]:>15}" for k in keys))
    en = SOURCE_PACKS / "en"
    en_size = sum(p.stat().st_size for p in en.iterdir() if p.is_file())
    print(f"(the en pack, espeak-ng: {en_size / 1e6:.2f} MB; both committed packs: "
          f"{(en_size + rows['zh-CN neural (committed)']['MB'] * 1e6) / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
