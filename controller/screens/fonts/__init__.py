"""The pixel fonts the screens use, as a few fixed faces.

A one-colour 128x64 OLED is too coarse for outline fonts: hinted or not, a 12 px hanzi from an outline font
smears. Bitmap fonts drawn at their native size are crisp, so every face here is a bitmap strike, optionally
scaled up by a whole number (nearest neighbour) for the big digits and role names read from ~60 cm away.

- ``SMALL``: WenQuanYi Bitmap Song 12 px (13 px lines: five lines, ten hanzi or ~20 Latin letters per line).
- ``MEDIUM``: GNU Unifont 16 px (four lines, eight hanzi per line).
- ``BIG``: Unifont x2, 32 px (digits 16x32: seat numbers, role names).
- ``HUGE``: Unifont x3, 48 px (digits 24x48: the speaker's own countdown, the seat number at check-in).

The BDF files are subsets built by ``build.py`` from the Debian packages; licences are beside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent


@cache
def _font(file: str, size: int) -> ImageFont.FreeTypeFont:
    path = HERE / file
    try:
        return ImageFont.truetype(str(path), size)
    except OSError as exc:
        raise OSError(f"screen font {path} cannot be loaded ({exc}); rebuild it: "
                      "python -m controller.screens.fonts.build") from exc


@cache
def _coverage(file: str) -> frozenset[int]:
    text = (HERE / file).read_text(encoding="ascii")
    return frozenset(int(m) for m in re.findall(r"^ENCODING (\d+)$", text, flags=re.MULTILINE))


@dataclass(frozen=True)
class Face:
    """A bitmap strike at a whole-number scale. ``line`` is the line pitch in screen pixels."""

    name: str
    file: str
    size: int
    ascent: int
    descent: int
    scale: int = 1
    _cache: dict[str, int] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def font(self) -> ImageFont.FreeTypeFont:
        return _font(self.file, self.size)

    @property
    def line(self) -> int:
        return (self.ascent + self.descent) * self.scale

    def width(self, text: str) -> int:
        """Advance width of ``text`` in screen pixels (bitmap advances are whole pixels)."""
        w = self._cache.get(text)
        if w is None:
            w = int(self.font.getlength(text)) * self.scale
            if len(self._cache) < 4096:
                self._cache[text] = w
        return w

    def missing(self, text: str) -> str:
        """The characters of ``text`` this face has no glyph for (control characters aside)."""
        have = _coverage(self.file)
        return "".join(sorted({c for c in text if c.isprintable() and ord(c) not in have}))

    def draw(self, image: Image.Image, xy: tuple[int, int], text: str, fill: int = 1) -> None:
        """Draw ``text`` with its line box's top-left at ``xy`` (the box is ``width(text)`` x ``line``)."""
        x, y = xy
        if self.scale == 1:
            ImageDraw.Draw(image).text((x, y), text, font=self.font, fill=fill, anchor="la")
            return
        w, h = int(self.font.getlength(text)), self.ascent + self.descent
        if w <= 0:
            return
        mask = Image.new("1", (w, h), 0)
        ImageDraw.Draw(mask).text((0, 0), text, font=self.font, fill=1, anchor="la")
        mask = mask.resize((w * self.scale, h * self.scale), Image.Resampling.NEAREST)
        image.paste(fill, (x, y, x + mask.width, y + mask.height), mask)


SMALL = Face("small", "wqy-12.bdf", 12, 11, 2)
MEDIUM = Face("medium", "unifont-16.bdf", 16, 14, 2)
BIG = Face("big", "unifont-16.bdf", 16, 14, 2, scale=2)
HUGE = Face("huge", "unifont-16.bdf", 16, 14, 2, scale=3)

#: Largest first: the order text is tried in when it must shrink to fit.
ALL = (HUGE, BIG, MEDIUM, SMALL)
