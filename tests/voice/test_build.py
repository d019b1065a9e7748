"""Building packs. The masking loop is pure Python and always tested; synthesis needs espeak-ng and sox (a
development machine, not the Pi) and is skipped without them."""

from __future__ import annotations

import itertools
import math
import shutil
from pathlib import Path

import pytest

from controller.voice.build import build_language_pack, mask_samples
from controller.voice.packs import Pack, ogg_duration

needs_tools = pytest.mark.skipif(not (shutil.which("espeak-ng") and shutil.which("sox")),
                                 reason="espeak-ng and sox are needed to synthesise a pack")


def test_the_masking_loop_is_seamless() -> None:
    rate = 8000
    samples = mask_samples(3.0, rate=rate)
    assert len(samples) == 3 * rate
    steps = [abs(b - a) for a, b in itertools.pairwise(samples)]
    typical = sorted(steps)[len(steps) // 2]
    # The jump from the last sample back to the first is no bigger than an ordinary step inside the loop.
    assert abs(samples[0] - samples[-1]) <= 4 * typical + 1e-9


def test_the_masking_loop_is_loud_enough_to_cover_clicks_but_never_clips() -> None:
    samples = mask_samples(3.0, rate=8000)
    rms = math.sqrt(sum(x * x for x in samples) / len(samples))
    assert 0.08 < rms < 0.3
    assert max(abs(x) for x in samples) <= 1.0


@needs_tools
def test_a_pack_is_built_trimmed_and_rebuilt_only_where_the_text_changed(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        '[languages]\nen = { espeak_voice = "en", speed = 170 }\n'
        '[sounds."sfx.beep.warning"]\nkind = "beep_warning"\n'
        '[prompts."night.falls"]\nen = "Night falls."\n'
        '[prompts."time.up"]\nen = "Time is up."\n', encoding="utf-8")
    out = tmp_path / "en"
    build_language_pack("en", out, catalog_path=catalog)
    pack = Pack.load(out)
    assert set(pack.clips) == {"sfx.beep.warning", "night.falls", "time.up"}
    night = pack.clips["night.falls"]
    assert night.duration == pytest.approx(ogg_duration(night.path), abs=1e-3)
    assert 0.3 < night.duration < 2.0  # trimmed: espeak-ng's own output has silence at both ends
    before = {pid: c.path.read_bytes() for pid, c in pack.clips.items()}
    catalog.write_text(catalog.read_text().replace("Time is up.", "Time's up."), encoding="utf-8")
    build_language_pack("en", out, catalog_path=catalog)
    after = Pack.load(out).clips
    assert after["time.up"].text == "Time's up."
    assert after["night.falls"].path.read_bytes() == before["night.falls"]  # unchanged text, untouched file
