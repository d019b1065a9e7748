"""The big screen through pygame: a window on a desktop, fullscreen on the Pi's HDMI output.

It draws only the mapping it is given (controller/board/public.py decides what the room may see; words.py says
it in Chinese or English; layout.py places it). pygame's own font has no hanzi, so every line is drawn by Pillow
with the project's bitmap font (scaled by whole pixels) and blitted as a surface.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pygame
from PIL import Image

from controller.board.layout import Placed, face, layout, text_mask
from controller.board.words import Tone
from controller.screens.strings import Lang

log = logging.getLogger(__name__)

BACKGROUND = (12, 12, 16)
TEXT = (235, 235, 225)
DIM = (140, 140, 150)
ACCENT = (230, 190, 60)
COLOURS = {Tone.ACCENT: ACCENT, Tone.TEXT: TEXT, Tone.DIM: DIM}

#: Rendered lines kept between frames (the countdown changes one line a second; the rest is reused).
CACHE_LINES = 64


def line_surface(text: str, scale: int, colour: tuple[int, int, int]) -> pygame.Surface:
    """``text`` in ``colour`` on the board's background, as an opaque pygame surface."""
    mask = text_mask(text, scale)
    rgb = Image.new("RGB", mask.size, BACKGROUND)
    rgb.paste(colour, (0, 0, *mask.size), mask)
    return pygame.image.frombytes(rgb.tobytes(), rgb.size, "RGB")


class BoardPainter:
    """Draws the board for a mapping of public facts onto any pygame surface: the HDMI screen and the simulator's
    board panel use this same code, so what the panel shows is what the big screen would."""

    def __init__(self, lang: str = "zh") -> None:
        self.lang = Lang.parse(lang)
        self._lines: dict[tuple[str, int, tuple[int, int, int]], pygame.Surface] = {}
        self._warned: set[str] = set()

    def _surface(self, placed: Placed) -> pygame.Surface:
        colour = COLOURS[placed.tone]
        key = (placed.text, placed.scale, colour)
        surface = self._lines.get(key)
        if surface is None:
            gone = face(placed.scale).missing(placed.text)
            if gone and gone not in self._warned:
                self._warned.add(gone)
                log.warning("board: no glyph for %r in %r (drawn blank)", gone, placed.text)
            if len(self._lines) >= CACHE_LINES:
                self._lines.clear()
            surface = self._lines[key] = line_surface(placed.text, placed.scale, colour)
        return surface

    def paint(self, surface: pygame.Surface, public: Mapping[str, object]) -> None:
        surface.fill(BACKGROUND)
        for placed in layout(public, surface.get_size(), self.lang):
            surface.blit(self._surface(placed), (placed.x, placed.y))
        pairing = public.get("pairing")
        if isinstance(pairing, Mapping) and pairing.get("url"):  # the judge's console: its address as a QR code
            from controller.web.qr import qr_image

            w, h = surface.get_size()
            qr = qr_image(str(pairing["url"]), h // 4).convert("RGB")
            surface.blit(pygame.image.frombytes(qr.tobytes(), qr.size, "RGB"),
                         (w - qr.width - h // 24, h - qr.height - h // 24))


class PygameBoard:
    """``lang`` is ``"zh"`` (the default) or ``"en"``; ``size`` is the window's when not ``fullscreen``.

    The last facts are drawn again by :meth:`refresh` (the table calls it a few times a second), so the screen
    is never left blank or stale when the window is uncovered or the display comes back."""

    def __init__(self, size: tuple[int, int] = (1280, 720), *, fullscreen: bool = False, lang: str = "zh") -> None:
        self.painter = BoardPainter(lang)
        pygame.display.init()
        flags = pygame.FULLSCREEN if fullscreen else 0
        self.screen = pygame.display.set_mode((0, 0) if fullscreen else size, flags)
        pygame.display.set_caption("Tianhei")
        self.frames = 0
        self.public: Mapping[str, object] = {"gesture": "deal"}
        self.painter.paint(self.screen, self.public)  # never a blank screen, not even before the first show
        pygame.display.flip()

    @property
    def lang(self) -> Lang:
        return self.painter.lang

    def show(self, public: Mapping[str, object]) -> None:
        self.public = public
        pygame.event.pump()  # keep the window responsive; the board takes no input
        self.painter.paint(self.screen, public)
        pygame.display.flip()
        self.frames += 1

    def refresh(self) -> bool:
        """Draw the last facts again (after the window was covered, or the display slept); False once the window
        was closed or the process was told to stop (SDL delivers SIGTERM/SIGINT as a quit event)."""
        if pygame.event.get(pygame.QUIT):
            return False
        self.show(self.public)
        return True

    def snapshot(self) -> Image.Image:
        """The frame last shown, as a PIL image (golden tests, screenshots for the docs)."""
        raw = pygame.image.tobytes(self.screen, "RGB")
        return Image.frombytes("RGB", self.screen.get_size(), raw)

    def close(self) -> None:
        pygame.display.quit()
