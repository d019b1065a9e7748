"""Every view, in Chinese and English, pixel for pixel against the committed PNGs in ``golden/``.

A failure writes the new rendering and a 4x diff beside the test run's temporary folder and names them; if the
change is intended, rerun with ``--update-golden`` and look at the PNGs before committing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from controller.screens import render
from controller.screens.numbering import plain, seat_and_card

from .samples import D2_SAMPLES, SAMPLES

GOLDEN = Path(__file__).parent / "golden"
#: Every sample with the label its game draws it with: plain seats, or D2's card places as seat and card.
LABELLED = {**{n: (view, plain) for n, view in SAMPLES.items()},
            **{n: (view, seat_and_card) for n, view in D2_SAMPLES.items()}}
CASES = [(name, lang) for name in LABELLED for lang in ("zh", "en")]


@pytest.mark.parametrize(("name", "lang"), CASES, ids=[f"{n}-{lang}" for n, lang in CASES])
def test_screen_matches_golden(name: str, lang: str, update_golden: bool, tmp_path: Path) -> None:
    view, label = LABELLED[name]
    image = render(view, lang, strict=True, label=label)
    path = GOLDEN / f"{name}.{lang}.png"
    if update_golden:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path, optimize=True)
        return
    assert path.exists(), f"no golden image {path.name}; run pytest tests/screens --update-golden"
    golden = Image.open(path).convert("1")
    diff = ImageChops.difference(image.convert("L"), golden.convert("L"))
    if diff.getbbox() is not None:
        image.save(tmp_path / path.name)
        diff.resize((512, 256), Image.Resampling.NEAREST).save(tmp_path / f"diff-{path.name}")
        pytest.fail(f"{name} [{lang}] differs from {path.name} in {diff.getbbox()}; new image and diff in {tmp_path}")


def test_every_golden_file_belongs_to_a_sample() -> None:
    """A renamed or removed sample leaves no stale PNG behind."""
    expected = {f"{n}.{lang}.png" for n, lang in CASES}
    stale = sorted(p.name for p in GOLDEN.glob("*.png") if p.name not in expected)
    assert not stale, f"golden images with no sample: {stale}"
