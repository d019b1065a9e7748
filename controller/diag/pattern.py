"""The screen test pattern: a frame on the outermost pixels, corner checkerboards, and the seat number.

Why this shape: a frame on every edge shows a display that is offset, rotated the wrong way (profile
``rotate``) or cut short (wrong height), the checkerboards show stuck or smeared pixels, and the big number shows
that the picture reached the right seat (two seats swapped on the multiplexer).
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from controller.ports import SCREEN_SIZE
from controller.screens.canvas import Canvas
from controller.screens.fonts import HUGE

W, H = SCREEN_SIZE
CHECKER = 12  # side of each corner checkerboard, pixels


def pattern_for(seat: int) -> Image.Image:
    canvas = Canvas.new(f"test pattern seat {seat}")
    draw: ImageDraw.ImageDraw = canvas.draw
    draw.rectangle((0, 0, W - 1, H - 1), outline=1)
    for x0, y0 in ((2, 2), (W - 2 - CHECKER, 2), (2, H - 2 - CHECKER), (W - 2 - CHECKER, H - 2 - CHECKER)):
        for dx in range(CHECKER):
            for dy in range(CHECKER):
                if (dx + dy) % 2 == 0:
                    draw.point((x0 + dx, y0 + dy), fill=1)
    canvas.fit(str(seat), (CHECKER + 4, 4, W - CHECKER - 4, H - 4), (HUGE,))
    return canvas.finished()
