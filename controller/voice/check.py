"""``tianhei sounds check``: is every prompt of a pack there, readable, audible and not too long?

The committed packs must pass (a test runs this on them); a club runs it on its own recordings before a game
night, since at the table a missing prompt only falls back to the default pack with a warning in the log.
"""

from __future__ import annotations

import array
import contextlib
import importlib.util
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.voice.packs import DEFAULT_PACK, SOURCE_PACKS, Pack, PackError, find_pack, ogg_duration

#: Longest a spoken prompt may be: a longer one holds up the game (and is usually a recording left running).
MAX_PROMPT_SECONDS = 8.0
#: Per-kind limits for the noises.
MAX_SECONDS = {"sfx.mask": 60.0, "sfx.beep.warning": 1.0, "sfx.beep.final": 1.5}
#: Below this peak (about -40 dBFS) a clip counts as silent.
SILENT_PEAK = 0.01
#: The manifest's duration may differ from the file's by this much (vote windows open on it).
DURATION_TOLERANCE = 0.05


@dataclass(frozen=True, slots=True)
class Problem:
    prompt_id: str
    kind: str  # missing | unreadable | silent | peak | overlong | duration
    detail: str

    def __str__(self) -> str:
        return f"{self.kind:10} {self.prompt_id}: {self.detail}"


def required_ids(catalog: Path = SOURCE_PACKS.parent / "catalog.toml") -> set[str]:
    """Every ID a pack should have: the catalogue's (in a checkout), else the default pack's manifest."""
    if catalog.is_file():
        from controller.voice.build import load_catalog

        data = load_catalog(catalog)
        prompts, sounds = data.get("prompts", {}), data.get("sounds", {})
        assert isinstance(prompts, dict) and isinstance(sounds, dict)
        return set(prompts) | set(sounds)
    return set(Pack.load(find_pack(DEFAULT_PACK)).clips)


@contextlib.contextmanager
def _decoder() -> Iterator[None]:
    """pygame.mixer decodes OGG; a check needs no sound card, so SDL's dummy driver is used unless the mixer
    is already running."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame.mixer

    if pygame.mixer.get_init():
        yield
        return
    saved = os.environ.get("SDL_AUDIODRIVER")
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    try:
        pygame.mixer.init(frequency=22050, size=-16, channels=1)
        yield
    finally:
        pygame.mixer.quit()
        if saved is None:
            del os.environ["SDL_AUDIODRIVER"]
        else:
            os.environ["SDL_AUDIODRIVER"] = saved


def decoded(path: Path) -> tuple[array.array[Any], float] | None:
    """An audio file as the table decodes it (pygame's mixer): its samples (one channel) and their full scale;
    None for a mixer format this cannot read (raises ``ValueError`` if it cannot be decoded)."""
    import pygame
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame.mixer

    try:
        sound = pygame.mixer.Sound(str(path))
    except pygame.error as exc:
        raise ValueError(str(exc)) from None
    init = pygame.mixer.get_init()
    raw = sound.get_raw()
    if init is None:
        return None
    size, channels = init[1], init[2]
    samples: array.array[Any]
    if size == -16:
        samples, scale = array.array("h", raw[: len(raw) // 2 * 2]), 32768.0
    elif size == 32:
        samples, scale = array.array("f", raw[: len(raw) // 4 * 4]), 1.0
    else:
        return None  # an unusual mixer format: claim nothing we cannot measure
    return (samples[::channels] if channels > 1 else samples), scale


def measures_true_peak() -> bool:
    """The true peak needs numpy and scipy (the build's machine, the tests); the Pi checks without it."""
    return all(importlib.util.find_spec(m) is not None for m in ("numpy", "scipy"))


def check_pack(name_or_path: str | os.PathLike[str], required: set[str] | None = None) -> list[Problem]:
    """Everything wrong with a pack, as a list (empty when it is fit to play)."""
    try:
        pack = Pack.load(find_pack(name_or_path))
    except PackError as exc:
        return [Problem("-", "unreadable", str(exc))]
    need = required_ids() if required is None else required
    problems = [Problem(pid, "missing", "not in the manifest") for pid in sorted(need - set(pack.clips))]
    with _decoder():
        for pid in sorted(pack.clips):
            problems.extend(_check_clip(pack, pid))
    return problems


def _check_clip(pack: Pack, pid: str) -> list[Problem]:
    clip = pack.clips[pid]
    if not clip.path.is_file():
        return [Problem(pid, "missing", f"file {clip.path.name} does not exist")]
    try:
        real = ogg_duration(clip.path)
        samples = decoded(clip.path)
    except (OSError, ValueError) as exc:
        return [Problem(pid, "unreadable", f"{clip.path.name}: {exc}")]
    out = []
    level = 1.0 if samples is None else max(-min(samples[0], default=0), max(samples[0], default=0)) / samples[1]
    if level < SILENT_PEAK:
        out.append(Problem(pid, "silent", f"{clip.path.name} peaks at {level:.4f} (below {SILENT_PEAK})"))
    if samples is not None and level >= SILENT_PEAK and measures_true_peak():
        import numpy as np

        from controller.voice.fidelity import MAX_TRUE_PEAK, true_peak

        if (tp := true_peak(np.asarray(samples[0], np.float64) / samples[1])) > MAX_TRUE_PEAK:
            out.append(Problem(pid, "peak", f"{clip.path.name} reaches {tp:+.2f} dBTP after encoding (at most "
                                            f"{MAX_TRUE_PEAK:g}: it may clip in the speaker's converter; rebuild it)"))
    limit = MAX_SECONDS.get(pid, MAX_PROMPT_SECONDS)
    if real > limit:
        out.append(Problem(pid, "overlong", f"{clip.path.name} lasts {real:.2f} s (limit {limit:.0f} s)"))
    if math.isnan(clip.duration) or abs(real - clip.duration) > DURATION_TOLERANCE:
        out.append(Problem(pid, "duration", f"manifest says {clip.duration:.3f} s, the file lasts {real:.3f} s "
                                            f"(run: tianhei sounds build {pack.root})"))
    return out


def unrecorded(name_or_path: str | os.PathLike[str], variant_files: Sequence[str] = ()) -> dict[str, list[str]]:
    """Each variant's own lines (``[words.calls]``, ``[words.endings]``) that the pack has no recording of (or a
    recording of other words), by variant id: the built-in variants, then ``variant_files``. Not a problem of the pack: the table says them with
    the fallback voice (controller/voice/variant_lines.py) until the pack is rebuilt with them."""
    from controller.rules.variant import builtin_ids, load_variant
    from controller.voice.variant_lines import lines, text

    try:
        pack = Pack.load(find_pack(name_or_path))
    except PackError:
        return {}
    clips = pack.clips
    out: dict[str, list[str]] = {}
    for vid in (*builtin_ids(), *variant_files):
        v = load_variant(vid)
        missing = sorted(pid for pid, words in lines(v).items() if pid not in clips or not clips[pid].path.is_file()
                         or clips[pid].text != text(words, pack.language))
        if missing:
            out[v.id] = missing
    return out
