"""The QR code of the table's address, for the board in the room (segno: pure Python, no dependencies)."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image


@lru_cache(maxsize=4)
def qr_image(url: str, box: int) -> Image.Image:
    """``url`` as a black-on-white QR code about ``box`` pixels square (whole pixels a module, quiet zone of 2)."""
    import segno

    code = segno.make(url, error="m", micro=False)
    rows = [bytes(r) for r in code.matrix]
    n = len(rows) + 4
    scale = max(1, box // n)
    img = Image.new("L", (n, n), 255)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                img.putpixel((x + 2, y + 2), 0)
    return img.resize((n * scale, n * scale), Image.Resampling.NEAREST)
