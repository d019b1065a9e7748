"""Drawing on a 128x64 one-colour screen: text that wraps and shrinks to fit, and a few marks.

Why a wrapper round ``ImageDraw``: every piece of text goes into a box, and the canvas checks that it fits,
that every character has a glyph, and that nothing lands off the screen. A problem is never drawn silently
clipped: it is recorded, and :func:`controller.screens.render.render` either raises (``strict``, as the tests
do) or logs it and shows the text truncated with an ellipsis, so a live game never stops over a long name.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from PIL import Image, ImageDraw

from controller.ports import SCREEN_SIZE
from controller.screens.fonts import SMALL, Face

W, H = SCREEN_SIZE
Box = tuple[int, int, int, int]  # left, top, right (exclusive), bottom (exclusive)

#: Characters that may not start a line (Chinese line-breaking: closing punctuation stays with its word).
_NO_LINE_START = set("，。、；：？！）」』】》〉’”,.;:?!)]}%…·")
ELLIPSIS = "…"


class ScreenOverflow(ValueError):
    """A view's text or drawing does not fit the screen (raised in strict rendering)."""


def _is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def tokens(text: str) -> list[str]:
    """Break points for wrapping: each hanzi alone, Latin words with their trailing spaces, closing
    punctuation glued to what precedes it."""
    out: list[str] = []
    word = ""
    for ch in text:
        if ch in _NO_LINE_START and (word or out):
            if word:
                word += ch
            else:
                out[-1] += ch
            continue
        if _is_wide(ch):
            if word:
                out.append(word)
                word = ""
            out.append(ch)
        elif ch == " ":
            word += ch
            out.append(word)
            word = ""
        else:
            if word.endswith(" "):
                out.append(word)
                word = ""
            word += ch
    if word:
        out.append(word)
    return out


def wrap(text: str, face: Face, width: int) -> list[str]:
    """Greedy line breaking at :func:`tokens`; a word wider than a line is split by character."""
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for tok in tokens(para):
            if face.width((line + tok).rstrip()) <= width:
                line += tok
                continue
            if line.strip():
                lines.append(line.rstrip())
            line = ""
            for ch in tok.lstrip() if lines else tok:
                if face.width((line + ch).rstrip()) > width and line:
                    lines.append(line.rstrip())
                    line = ""
                line += ch
        lines.append(line.rstrip())
    return lines


@dataclass
class Canvas:
    """One screen being drawn. ``where`` names the view in problem messages."""

    where: str
    image: Image.Image
    problems: list[str]

    @classmethod
    def new(cls, where: str, size: tuple[int, int] = SCREEN_SIZE) -> Canvas:
        return cls(where, Image.new("1", size, 0), [])

    @property
    def draw(self) -> ImageDraw.ImageDraw:
        return ImageDraw.Draw(self.image)

    @property
    def width(self) -> int:
        return self.image.width

    @property
    def height(self) -> int:
        return self.image.height

    def problem(self, message: str) -> None:
        self.problems.append(f"{self.where}: {message}")

    def _check(self, text: str, face: Face, box: Box) -> None:
        gone = face.missing(text)
        if gone:
            self.problem(f"no {face.name} glyph for {gone!r} in {text!r}")
        left, top, right, bottom = box
        if left < 0 or top < 0 or right > self.width or bottom > self.height:
            # The line box may overhang where the glyphs leave blank rows; only inked pixels count.
            mask = Image.new("1", (right - left, bottom - top), 0)
            face.draw(mask, (0, 0), text, 1)
            ink = mask.getbbox()
            if ink and (left + ink[0] < 0 or top + ink[1] < 0 or left + ink[2] > self.width
                        or top + ink[3] > self.height):
                self.problem(f"{text!r} ({face.name}) runs off the screen at {box}")

    def finished(self) -> Image.Image:
        """The image with every lit pixel stored as 255 (Pillow's ``fill=1`` stores 1 in mode "1"; pixel
        data then compares and saves the same whichever way a pixel was lit)."""
        return self.image.convert("L").point(lambda v: 255 if v else 0, "1")

    # -- text ---------------------------------------------------------------------------------------------
    def text(self, xy: tuple[int, int], text: str, face: Face = SMALL, fill: int = 1,
             max_width: int | None = None) -> int:
        """One line at ``xy`` (top-left of the line box); returns its width. Over ``max_width`` it is cut
        with an ellipsis and recorded as a problem."""
        x, y = xy
        limit = self.width - x if max_width is None else max_width
        if face.width(text) > limit:
            self.problem(f"{text!r} is {face.width(text)} px wide in {face.name}, room for {limit}")
            while text and face.width(text + ELLIPSIS) > limit:
                text = text[:-1]
            text += ELLIPSIS
        w = face.width(text)
        self._check(text, face, (x, y, x + w, y + face.line))
        face.draw(self.image, (x, y), text, fill)
        return w

    def row(self, y: int, left: str, right: str = "", face: Face = SMALL, fill: int = 1, gap: int = 4) -> None:
        """A line with ``left`` flush left and ``right`` flush right; they must not meet."""
        rw = face.width(right) if right else 0
        if right:
            self.text((self.width - rw, y), right, face, fill)
        if left:
            self.text((0, y), left, face, fill, max_width=self.width - rw - (gap if right else 0))

    def centered(self, y: int, text: str, face: Face = SMALL, fill: int = 1, box: Box | None = None) -> None:
        left, _t, right, _b = box or (0, 0, self.width, self.height)
        w = min(face.width(text), right - left)
        self.text((left + (right - left - w) // 2, y), text, face, fill, max_width=right - left)

    @staticmethod
    def fits(text: str, box: Box, faces: tuple[Face, ...]) -> bool:
        """Whether ``text`` wraps into ``box`` in one of ``faces``."""
        bw, bh = box[2] - box[0], box[3] - box[1]
        for face in faces:
            lines = wrap(text, face, bw)
            if len(lines) * face.line <= bh and all(face.width(ln) <= bw for ln in lines):
                return True
        return False

    def fit(self, text: str, box: Box, faces: tuple[Face, ...], fill: int = 1,
            align: str = "center", valign: str = "middle") -> Face:
        """Wrap ``text`` into ``box`` in the largest face of ``faces`` where it fits; returns that face.
        If even the last face is too big, the lines that fit are drawn, the last one ending in an ellipsis,
        and the overflow is recorded."""
        left, top, right, bottom = box
        bw, bh = right - left, bottom - top
        chosen, lines = faces[-1], wrap(text, faces[-1], bw)
        for face in faces:
            candidate = wrap(text, face, bw)
            if len(candidate) * face.line <= bh and all(face.width(ln) <= bw for ln in candidate):
                chosen, lines = face, candidate
                break
        else:
            room = max(1, bh // chosen.line)
            if len(lines) > room:
                self.problem(f"{text!r} needs {len(lines)} lines of {chosen.name}, room for {room}")
                last = lines[room - 1]
                while last and chosen.width(last + ELLIPSIS) > bw:
                    last = last[:-1]
                lines = [*lines[:room - 1], last + ELLIPSIS]
        y = top + {"top": 0, "middle": (bh - len(lines) * chosen.line) // 2}.get(valign, bh - len(lines) * chosen.line)
        for ln in lines:
            w = chosen.width(ln)
            x = {"left": left, "center": left + (bw - w) // 2}.get(align, right - w)
            self.text((x, y), ln, chosen, fill, max_width=right - x)
            y += chosen.line
        return chosen

    def ink(self, text: str, box: Box, faces: tuple[Face, ...], fill: int = 1) -> Box:
        """One line centred in ``box`` by its inked pixels, not its line box: big digits and role names
        get all the height the box has. Shrinks through ``faces``; returns the inked box."""
        left, top, right, bottom = box
        for i, face in enumerate(faces):
            mask = Image.new("1", (face.width(text) + 2 * face.scale, face.line), 0)
            face.draw(mask, (0, 0), text, 1)
            bbox = mask.getbbox()
            if bbox is None:
                return (left, top, left, top)
            iw, ih = bbox[2] - bbox[0], bbox[3] - bbox[1]
            if (iw <= right - left and ih <= bottom - top) or i == len(faces) - 1:
                if iw > right - left or ih > bottom - top:
                    self.problem(f"{text!r} does not fit {box} even in {face.name}")
                gone = face.missing(text)
                if gone:
                    self.problem(f"no {face.name} glyph for {gone!r} in {text!r}")
                x = left + (right - left - iw) // 2
                y = top + (bottom - top - ih) // 2
                self.image.paste(fill, (x, y, x + iw, y + ih), mask.crop(bbox))
                return (x, y, x + iw, y + ih)
        raise AssertionError("unreachable")

    # -- marks ------------------------------------------------------------------------------------------
    def invert(self, box: Box) -> None:
        """Invert a region (title bars, the warning state, the list cursor)."""
        region = self.image.crop(box).convert("L").point(lambda v: 0 if v else 255, "1")
        self.image.paste(region, box[:2])

    def fill(self, box: Box, value: int = 1) -> None:
        self.draw.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=value)

    def arrow(self, box: Box, direction: str, fill: int = 1) -> None:
        """A solid triangle pointing ``"left"`` or ``"right"`` (the ◀ ▶ button hints)."""
        left, top, right, bottom = box
        mid = (top + bottom - 1) / 2
        if direction == "left":
            pts = [(right - 1, top), (right - 1, bottom - 1), (left, mid)]
        else:
            pts = [(left, top), (left, bottom - 1), (right - 1, mid)]
        self.draw.polygon(pts, fill=fill)

    def check(self, box: Box, width: int = 5, fill: int = 1) -> None:
        """A tick ✓ filling ``box``."""
        left, top, right, bottom = box
        w, h = right - left, bottom - top
        pts = [(left + w * 0.08, top + h * 0.55), (left + w * 0.38, top + h * 0.85), (left + w * 0.92, top + h * 0.15)]
        self.draw.line(pts, fill=fill, width=width, joint="curve")

    def cross(self, box: Box, width: int = 5, fill: int = 1) -> None:
        """A cross ✗ filling ``box``."""
        left, top, right, bottom = box
        m = width // 2 + 1
        self.draw.line([(left + m, top + m), (right - 1 - m, bottom - 1 - m)], fill=fill, width=width)
        self.draw.line([(left + m, bottom - 1 - m), (right - 1 - m, top + m)], fill=fill, width=width)

    def bar(self, box: Box, fraction: float, fill: int = 1) -> None:
        """A countdown bar: an outline with the remaining ``fraction`` (0..1) filled from the left."""
        left, top, right, bottom = box
        fraction = min(1.0, max(0.0, fraction))
        if bottom - top >= 3:
            self.draw.rectangle((left, top, right - 1, bottom - 1), outline=fill)
            inner = (left + 1, top + 1, right - 1, bottom - 1)
        else:
            inner = box
        filled = round((inner[2] - inner[0]) * fraction)
        if filled > 0:
            self.fill((inner[0], inner[1], inner[0] + filled, inner[3]), fill)

    def scrollbar(self, box: Box, first: int, shown: int, total: int) -> None:
        """A thin scrollbar: where ``shown`` rows starting at ``first`` sit in ``total``."""
        if total <= shown:
            return
        left, top, right, bottom = box
        h = bottom - top
        thumb = max(3, h * shown // total)
        y = top + (h - thumb) * first // max(1, total - shown)
        self.draw.line([((left + right) // 2, top), ((left + right) // 2, bottom - 1)], fill=1)
        self.fill((left, y, right, y + thumb), 1)
