"""The big screen in Chinese and English, pixel for pixel against the committed PNGs in ``golden/``.

Drawn by the real pygame board on SDL's dummy driver at 640x360 (a sixth of a 1080p screen's pixels; the same
layout rules scale up). A failure writes the new frame and a diff into the test's temporary folder and names
them; if the change is intended, rerun with ``--update-golden`` and look at the PNGs before committing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from controller.board.pygame_board import PygameBoard

from .samples import SAMPLES

GOLDEN = Path(__file__).parent / "golden"
SIZE = (640, 360)
LANGS = ("zh", "en")
CASES = [(name, lang) for name in SAMPLES for lang in LANGS]


@pytest.mark.parametrize(("name", "lang"), CASES, ids=[f"{n}-{lang}" for n, lang in CASES])
def test_board_matches_golden(name: str, lang: str, update_golden: bool, tmp_path: Path) -> None:
    board = PygameBoard(SIZE, lang=lang)
    try:
        board.show(SAMPLES[name])
        image = board.snapshot()
    finally:
        board.close()
    path = GOLDEN / f"{name}.{lang}.png"
    if update_golden:
        GOLDEN.mkdir(exist_ok=True)
        image.save(path, optimize=True)
        return
    assert path.exists(), f"no golden image {path.name}; run pytest tests/board --update-golden"
    golden = Image.open(path).convert("RGB")
    diff = ImageChops.difference(image, golden)
    if diff.getbbox() is not None:
        image.save(tmp_path / path.name)
        diff.point(lambda v: 255 if v else 0).save(tmp_path / f"diff-{path.name}")
        pytest.fail(f"board {name} [{lang}] differs from {path.name} in {diff.getbbox()}; "
                    f"new frame and diff in {tmp_path}")


def test_every_golden_file_belongs_to_a_sample() -> None:
    """A renamed or removed sample leaves no stale PNG behind."""
    expected = {f"{n}.{lang}.png" for n, lang in CASES}
    stale = sorted(p.name for p in GOLDEN.glob("*.png") if p.name not in expected)
    assert not stale, f"golden images with no sample: {stale}"
