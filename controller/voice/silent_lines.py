"""The lines a table would say as silence, told before the game: a variant's own lines without espeak-ng.

A variant's own lines (``[words.calls]``, ``[words.endings]``) that the voice pack has no recording of are said by
espeak-ng, synthesised once into a cache (controller/voice/variant_lines.py). A table without espeak-ng says them
as silence for the line's length, with a warning in the log that nobody at the table reads: the judge hears
"the witch" called by nothing. So the table's start (``tianhei table``, ``tianhei serve``), the judge's remote and
phone console, and ``tianhei config check`` say it in one line before the game, with the two ways out: install
espeak-ng, or build the pack with those lines (``tianhei sounds build``). A line already in the synthesis cache
plays without espeak-ng and is not counted. Programs are found by :data:`find_program` (tests put one there
that finds nothing, rather than uninstall espeak-ng).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.rules.variant import VariantError, builtin_ids, load_variant
from controller.voice.check import unrecorded
from controller.voice.packs import Pack, PackError, find_pack
from controller.voice.variant_lines import cache_path, lines, text

#: How a program is looked up on this machine.
find_program: Callable[[str], str | None] = shutil.which
#: How many line ids the one line names before it says "…".
SHOWN = 3


@dataclass(frozen=True)
class SilentLines:
    """Lines that would be silent at this table: their ids by variant id, and the pack."""

    pack: str
    by_variant: dict[str, list[str]]

    @property
    def count(self) -> int:
        return sum(len(ids) for ids in self.by_variant.values())

    def line(self) -> str:
        """The one line the table, the remote's status and ``config check`` say (English)."""
        ids = [pid for group in self.by_variant.values() for pid in group]
        named = ", ".join(ids[:SHOWN]) + (", …" if len(ids) > SHOWN else "")
        return (f"no espeak-ng here: {self.count} line(s) of {', '.join(self.by_variant)} that the {self.pack} pack "
                f"has no recording of will be silent ({named}); install espeak-ng (Debian: apt-get install "
                f"espeak-ng) or build the pack with them (tianhei sounds build {self.pack})")

    def words(self) -> tuple[str, str]:
        """The same in the remote's two languages (zh, en), short enough for its screen's list."""
        variants = ", ".join(self.by_variant)
        return (f"无espeak-ng：{variants} 有{self.count}句台词将无声。请安装espeak-ng或重建语音包",
                f"No espeak-ng: {self.count} line(s) of {variants} silent. Install espeak-ng or rebuild the pack")


def silent_lines(pack: str, variants: Sequence[str]) -> SilentLines | None:
    """The lines of ``variants`` (built-in ids or files) that the table would say as silence: none when espeak-ng
    is found, or when the pack has a recording of every line (or the cache a synthesis of it)."""
    if find_program("espeak-ng") is not None:
        return None
    try:
        language = Pack.load(find_pack(pack)).language
    except PackError:
        return None  # a pack that cannot be read is said where it is opened
    files = [v for v in variants if v.endswith(".toml")]
    missing = unrecorded(pack, files)
    out: dict[str, list[str]] = {}
    for given in variants:
        v = load_variant(given)
        said = lines(v)
        ids = [pid for pid in missing.get(v.id, []) if not cache_path(text(said[pid], language), language).is_file()]
        if ids:
            out[v.id] = ids
    return SilentLines(pack, out) if out else None


def table_notice(pack: str, variant: str, every_variant: bool) -> SilentLines | None:
    """What a table would say as silence: in the game of ``variant`` (an id or a club's file), or, at a table
    whose judge chooses the board at check-in, in every built-in variant and that one."""
    variants = [*builtin_ids(), *([variant] if variant not in builtin_ids() else [])] if every_variant else [variant]
    try:
        return silent_lines(pack, variants)
    except VariantError:
        return None  # a variant that does not load is said where it is loaded
