"""Rebuild the font subsets shipped beside this file from the full bitmap fonts.

Why a subset: the full fonts are 3-10 MB of glyphs a seat never shows; the subset keeps ASCII, Latin-1, every
character of GB2312 (6763 hanzi plus CJK punctuation, so free text from a deck file or a message still renders),
the few symbols the screens use, and every character of :mod:`controller.screens.strings`.

Why BDF: it is plain text (the licence's "preferred form for modification" of a bitmap font), FreeType reads it,
so Pillow's ``ImageFont.truetype`` loads it like any font, and the subset stays a diff-able, reviewable file.

Sources (Debian packages ``xfonts-unifont`` and ``xfonts-wqy``; both licences allow modified copies, see the
``*.LICENSE.txt`` files)::

    python -m controller.screens.fonts.build                 # default Debian paths
    python -m controller.screens.fonts.build --unifont X.pcf.gz --wqy Y.pcf
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from PIL import Image, PcfFontFile

HERE = Path(__file__).resolve().parent

#: face -> (output name, default source, pixel size, ascent, descent). The line cell (ascent + descent) is set
#: here rather than read from the PCF: WenQuanYi's 12 px face declares 15 px lines, but its hanzi sit in 11 px
#: with 1 px below the baseline, so 13 px lines fit five lines on a 64 px screen with no glyph touching.
FACES = {
    "unifont": ("unifont-16.bdf", "/usr/share/fonts/X11/misc/unifont.pcf.gz", 16, 14, 2),
    "wqy": ("wqy-12.bdf", "/usr/share/fonts/X11/misc/wenquanyi_9pt.pcf", 12, 11, 2),
}

#: Symbols the screens draw as text (arrows and marks are drawn as shapes, but text may name them too).
EXTRA = "✓✗◀▶▲▼←→↑↓·…—–‘’“”•●○■□★☆×÷±°№"


def wanted_characters(extra: Iterable[str] = ()) -> set[int]:
    """Code points to keep: ASCII, Latin-1, all of GB2312, the symbols above and ``extra`` strings."""
    cps = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100))
    for hi in range(0xA1, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                cps.add(ord(bytes((hi, lo)).decode("gb2312")))
            except UnicodeDecodeError:
                continue
    for text in (EXTRA, *extra):
        cps.update(ord(c) for c in text if c.isprintable())
    return cps


@dataclass(frozen=True)
class Glyph:
    advance: int
    left: int
    descent: int
    bitmap: Image.Image  # mode "1", xsize x ysize


class _FullPcf(PcfFontFile.PcfFontFile):
    """Pillow's PCF reader keeps only 256 characters; this keeps the full two-byte encoding table too."""

    def __init__(self, fp: BinaryIO) -> None:
        self.full_encoding: dict[int, int] = {}
        self.all_metrics: list[tuple[int, int, int, int, int, int, int, int]] = []
        self.all_bitmaps: list[Image.Image] = []
        super().__init__(fp, "iso8859-1")

    def _load_metrics(self) -> list[tuple[int, int, int, int, int, int, int, int]]:
        self.all_metrics = super()._load_metrics()
        return self.all_metrics

    def _load_bitmaps(self, metrics: list[tuple[int, int, int, int, int, int, int, int]]) -> list[Image.Image]:
        self.all_bitmaps = super()._load_bitmaps(metrics)
        return self.all_bitmaps

    def _load_encoding(self) -> list[int | None]:
        fp, _format, i16, _i32 = self._getformat(PcfFontFile.PCF_BDF_ENCODINGS)
        first_col, last_col = i16(fp.read(2)), i16(fp.read(2))
        first_row, last_row = i16(fp.read(2)), i16(fp.read(2))
        i16(fp.read(2))  # default char
        cols = last_col - first_col + 1
        count = cols * (last_row - first_row + 1)
        offsets = [i16(fp.read(2)) for _ in range(count)]
        for i, glyph_index in enumerate(offsets):
            if glyph_index != 0xFFFF:
                row, col = divmod(i, cols)
                self.full_encoding[((row + first_row) << 8) | (col + first_col)] = glyph_index
        return [None] * 256  # the parent's 256-glyph table is not used


def read_pcf(path: Path) -> tuple[dict[int, Glyph], dict[bytes, bytes | int]]:
    """All glyphs of a (possibly gzipped) Unicode PCF font, by code point, and its properties."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    pcf = _FullPcf(io.BytesIO(raw))
    registry = pcf.info.get(b"CHARSET_REGISTRY", b"")
    if not (isinstance(registry, bytes) and registry.upper().startswith(b"ISO10646")):
        raise SystemExit(f"{path}: not a Unicode (ISO10646) font, CHARSET_REGISTRY is {registry!r}")
    glyphs: dict[int, Glyph] = {}
    for cp, ix in pcf.full_encoding.items():
        _xs, _ys, left, _right, width, _ascent, descent, _attr = pcf.all_metrics[ix]
        glyphs[cp] = Glyph(width, left, descent, pcf.all_bitmaps[ix])
    return glyphs, pcf.info


def write_bdf(out: Path, name: str, cell: tuple[int, int, int], info: dict[bytes, bytes | int],
              glyphs: dict[int, Glyph], note: str) -> None:
    """Write ``glyphs`` as a BDF 2.1 file FreeType can load (Unicode registry, ascent and descent set)."""
    pixel_size, ascent, descent = cell
    copyright_ = info.get(b"COPYRIGHT", b"")
    copyright_text = copyright_.decode("latin-1") if isinstance(copyright_, bytes) else ""
    max_w = max(g.bitmap.size[0] for g in glyphs.values())
    lines = [
        "STARTFONT 2.1",
        f"COMMENT {note}",
        f"FONT -tianhei-{name}-medium-r-normal--{pixel_size}-{pixel_size * 10}-75-75-c-0-iso10646-1",
        f"SIZE {pixel_size} 75 75",
        f"FONTBOUNDINGBOX {max_w} {ascent + descent} 0 {-descent}",
        "STARTPROPERTIES 9",
        f'FAMILY_NAME "{name}"',
        f"PIXEL_SIZE {pixel_size}",
        f"POINT_SIZE {pixel_size * 10}",
        "RESOLUTION_X 75",
        "RESOLUTION_Y 75",
        'CHARSET_REGISTRY "ISO10646"',
        'CHARSET_ENCODING "1"',
        f"FONT_ASCENT {ascent}",
        f"FONT_DESCENT {descent}",
        "ENDPROPERTIES",
        f"CHARS {len(glyphs)}",
    ]
    if copyright_text:
        lines.insert(2, f"COMMENT Copyright: {copyright_text.replace(chr(10), ' ')}")
    for cp in sorted(glyphs):
        g = glyphs[cp]
        w, h = g.bitmap.size
        row_bytes = (w + 7) // 8
        data = g.bitmap.tobytes("raw", "1") if w and h else b""
        lines += [
            f"STARTCHAR U+{cp:04X}",
            f"ENCODING {cp}",
            f"SWIDTH {g.advance * 1000 // pixel_size} 0",
            f"DWIDTH {g.advance} 0",
            f"BBX {w} {h} {g.left} {-g.descent}",
            "BITMAP",
            *(data[r * row_bytes:(r + 1) * row_bytes].hex().upper() for r in range(h)),
            "ENDCHAR",
        ]
    lines.append("ENDFONT")
    out.write_text("\n".join(lines) + "\n", encoding="ascii")


def build(face: str, source: Path, out_dir: Path = HERE) -> tuple[Path, int, list[int]]:
    """Subset one face; returns the output path, the glyph count and the wanted code points it lacks."""
    from controller.screens import strings  # the texts the screens show must all be covered

    out_name, _default, size, ascent, descent = FACES[face]
    glyphs, info = read_pcf(source)
    wanted = wanted_characters(strings.all_texts())
    kept = {cp: g for cp, g in glyphs.items() if cp in wanted}
    missing = sorted(wanted - set(kept))
    out = out_dir / out_name
    write_bdf(out, face, (size, ascent, descent), info, kept, f"subset of {source.name} by controller/screens/fonts/build.py")
    return out, len(kept), missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for face, (_out, default, *_cell) in FACES.items():
        parser.add_argument(f"--{face}", type=Path, default=Path(default), help=f"source PCF (default {default})")
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: beside this script)")
    args = parser.parse_args(argv)
    for face in FACES:
        source: Path = getattr(args, face)
        if not source.exists():
            print(f"{source}: not found; install the Debian package xfonts-{face} or pass --{face}", file=sys.stderr)
            return 2
        out, count, missing = build(face, source, args.out)
        gap = "".join(chr(c) for c in missing if chr(c).isprintable())
        print(f"{out.name}: {count} glyphs from {source}" + (f"; lacks {len(missing)}: {gap[:60]}" if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
