"""Where each board line goes and how big it is drawn, for a screen of any size.

Why the seat screens' bitmap font and not an outline font: it is the one face the project already ships with every
hanzi of GB2312 plus every word in :mod:`controller.screens.strings`, it needs no system font on the Pi, and a
bitmap strike scaled up by whole pixels stays crisp and identical on every machine (the golden tests depend on
that). GNU Unifont 16 px is used (not the 12 px WenQuanYi face) because its Latin letters are legible when blown
up: a 1080-line screen draws headlines at x11 (176 px lines) and details at x4.

Pure (Pillow only, no display), so the fitting rules are tested over many states without a window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from PIL import Image

from controller.board.words import Line, Size, Tone, board_lines
from controller.screens.fonts import MEDIUM, Face
from controller.screens.strings import Lang

#: The separator between the items of a list line (dead seats, votes, roles).
SEP = "  "


@cache
def face(scale: int) -> Face:
    """Unifont 16 px at a whole-number ``scale`` (line pitch 16 x scale screen pixels)."""
    return Face(f"board x{scale}", MEDIUM.file, MEDIUM.size, MEDIUM.ascent, MEDIUM.descent, scale=scale)


@dataclass(frozen=True)
class Placed:
    """One line of text at its scale, its line box's top-left at (``x``, ``y``)."""

    text: str
    scale: int
    tone: Tone
    x: int
    y: int

    @property
    def width(self) -> int:
        return face(self.scale).width(self.text)

    @property
    def height(self) -> int:
        return face(self.scale).line


def base_scales(height: int) -> dict[Size, int]:
    """Scales before fitting: a headline about a sixth of the screen's height, a detail line about a 14th."""
    return {Size.BIG: max(1, height // 6 // 16), Size.SMALL: max(1, height // 14 // 16)}


def pack(line: Line, scale: int, width: int) -> list[str]:
    """``line`` as screen lines no wider than ``width`` where possible: a list wraps between its items, never
    inside one (a seat and its role stay together)."""
    if not line.items:
        return [line.text]
    f = face(scale)
    out: list[str] = []
    current = line.text + line.items[0]
    for item in line.items[1:]:
        longer = current + SEP + item
        if f.width(longer) <= width:
            current = longer
        else:
            out.append(current)
            current = item
    out.append(current)
    return out


def _fit(line: Line, scale: int, width: int) -> tuple[int, list[str]]:
    """The largest scale up to ``scale`` at which every piece of ``line`` fits ``width`` (1 if none does)."""
    for s in range(scale, 0, -1):
        texts = pack(line, s, width)
        if all(face(s).width(t) <= width for t in texts):
            return s, texts
    return 1, pack(line, 1, width)


def layout(public: Mapping[str, object], size: tuple[int, int], lang: Lang | str = Lang.ZH) -> list[Placed]:
    """Every line of the board for ``public`` on a ``size`` screen, centred, top down."""
    return arrange(board_lines(public, lang), size)


def arrange(lines: Sequence[Line], size: tuple[int, int]) -> list[Placed]:
    """Place ``lines``: each centred, shrunk (whole scales) until it fits the width, and all of them shrunk
    together until they fit the height; at scale 1 whatever still overflows is clipped by the screen."""
    w, h = size
    usable_w = w - 2 * max(1, w // 24)
    top = h // 12
    scales = base_scales(h)
    while True:
        fitted = [(line, *_fit(line, scales[line.size], usable_w)) for line in lines]
        pitch = [face(s).line for _, s, texts in fitted for _ in texts]
        gaps = [face(s).line // 3 for _, s, texts in fitted for _ in texts]
        total = sum(pitch) + sum(gaps[:-1])
        if top + total <= h - top or scales[Size.BIG] == 1:
            break
        ratio = scales[Size.SMALL] / scales[Size.BIG]
        scales[Size.BIG] -= 1
        scales[Size.SMALL] = max(1, min(scales[Size.SMALL], round(scales[Size.BIG] * ratio)))
    placed: list[Placed] = []
    y = top
    for line, s, texts in fitted:
        f = face(s)
        for text in texts:
            placed.append(Placed(text, s, line.tone, (w - f.width(text)) // 2, y))
            y += f.line + f.line // 3
    return placed


def text_mask(text: str, scale: int) -> Image.Image:
    """``text`` drawn at ``scale`` as a mode "1" mask exactly its line box in size (empty text: 1x1 blank)."""
    f = face(scale)
    mask = Image.new("1", (max(1, f.width(text)), f.line), 0)
    f.draw(mask, (0, 0), text)
    return mask
