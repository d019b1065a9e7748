"""A variant's own lines, from its file, as prompt IDs the voice can say.

A new role's words live in its variant file (``[words.calls]`` keyed ``<role>.<what>``, ``[words.endings]`` keyed
by side), not in a central table: :func:`lines` turns them into prompt IDs (``role.witch.antidote``,
``ending.werewolf_12.good``) with their zh and en text. The committed packs have no recordings of them until the
pack is rebuilt (the zh-CN neural voice needs TensorFlow), so :mod:`controller.voice.packs` asks :func:`clip` for
any ID a pack lacks: the line is said by the fallback voice, espeak-ng, synthesised once into a cache. The
simulator and the tests do not synthesise: they time the line by its length (:func:`estimate`), the same on
every machine, so a game on a virtual clock stays the same game.

Every built-in variant's lines are known from the start (a table picks its variant on the remote after its voice
is open); a club's own file adds its lines when a game of it starts (:func:`register`), and its words win over a
built-in variant's for the same ID.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import subprocess
import tomllib
import wave
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from controller.rules.variant import Variant, builtin_ids, load_variant
from controller.rules.words import names as shared_names
from controller.rules.words import shared as shared_words

log = logging.getLogger(__name__)

#: espeak-ng's voice and speed per pack language when the checkout's catalogue is not there to say them (an
#: installed table): the catalogue's ``[languages]`` (sounds/catalog.toml) wins.
_ESPEAK = {"zh-CN": ("cmn", 190), "en": ("en-gb", 165)}
#: The checkout's catalogue (sounds/catalog.toml; this file is controller/voice/variant_lines.py).
CATALOG = Path(__file__).resolve().parents[2] / "sounds" / "catalog.toml"
#: Seconds a line takes by its length, for the voices that play nothing (see :func:`estimate`).
_SECONDS_PER_CHAR = {"zh": 0.24, "en": 0.065}
_LEAD_SECONDS = 0.3

_OWN: dict[str, tuple[str, str]] = {}


def call_id(role: str, what: str) -> str:
    """The prompt ID of a role's line: ``role.witch.antidote``."""
    return f"role.{role}.{what}"


def ending_id(variant_id: str, side: str) -> str:
    """The prompt ID of a variant's ending for ``side``: ``ending.werewolf_12.good``."""
    slug = "".join(c if c.isalnum() else "_" for c in variant_id.lower())
    return f"ending.{slug}.{side}"


def ending_line(variant: Variant, side: str) -> str | None:
    """The prompt ID of ``variant``'s ending for ``side``, or None when its file names none: a shared words file's
    ending (``ending.police_side_win``, said in exactly its words: the catalogue's recording) or the variant's own
    (``ending.werewolf_12.good``)."""
    pair = variant.words.get("endings", {}).get(side)
    if pair is None:
        return None
    name = next((n for s in shared_names() if (n := shared_words(s).ending_name(pair))), None)
    return f"ending.{name}" if name else ending_id(variant.id, side)


def shared_endings() -> dict[str, dict[str, str]]:
    """The built-in variants whose every ending is a shared one, with each side's prompt ID: the seed versions'
    endings, each with its recording in the catalogue (``{"standard-2.0": {"good": "ending.police_side_win", ...}}``)."""
    out: dict[str, dict[str, str]] = {}
    for vid in builtin_ids():
        variant = load_variant(vid)
        ids = {side: ending_line(variant, side) or "" for side in variant.words.get("endings", {})}
        if ids and all(i != ending_id(vid, side) for side, i in ids.items()):
            out[vid] = ids
    return out


def lines(variant: Variant) -> dict[str, tuple[str, str]]:
    """Every line ``variant``'s file gives the judge in its own words, by prompt ID: ``{"role.witch.wake": ("女巫请睁眼。",
    ...)}``; not the shared words it names (a seed's ending: the catalogue's line)."""
    out = {call_id(*key.split(".", 1)): pair for key, pair in variant.words.get("calls", {}).items()}
    for side, pair in variant.words.get("endings", {}).items():
        if (pid := ending_line(variant, side)) == ending_id(variant.id, side):
            out[pid] = pair
    return out


def role_line(variant: Variant, role: str, *whats: str) -> str | None:
    """The ID of the first of ``whats`` the variant's file gives ``role`` words for, or None."""
    calls = variant.words.get("calls", {})
    return next((call_id(role, w) for w in whats if f"{role}.{w}" in calls), None)


@functools.cache
def _builtin() -> Mapping[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for vid in builtin_ids():
        out.update(lines(load_variant(vid)))
    return MappingProxyType(out)


def register(variant: Variant) -> None:
    """Make ``variant``'s lines sayable (a club's own file; the built-in ones are known already)."""
    _OWN.update(lines(variant))


def known() -> dict[str, tuple[str, str]]:
    """Every line the voice can say from a variant file: the built-in variants', then the registered files'."""
    return {**_builtin(), **_OWN}


def _line(prompt_id: str) -> tuple[str, str] | None:
    """One line of :func:`known`, without building the merged table: every clip the voice plays asks."""
    return _OWN.get(prompt_id) or _builtin().get(prompt_id)


def text(pair: tuple[str, str], language: str) -> str:
    """The line in a pack's language (zh for ``zh-*``, en otherwise)."""
    return pair[0] if language.lower().startswith("zh") else pair[1]


def estimate(words: str, language: str) -> float:
    """Seconds a line takes by its length (Mandarin by its characters, English by its letters), rounded to the
    centisecond so every machine times it alike."""
    per = _SECONDS_PER_CHAR["zh" if language.lower().startswith("zh") else "en"]
    return round(_LEAD_SECONDS + per * len(words), 2)


def reworded(prompt_id: str, recorded: str, language: str) -> bool:
    """Whether a variant file says ``prompt_id`` otherwise than the pack's recording of it (a club's own file
    that rewords a built-in board's line, or a board edited since the pack was built): the file's words are said
    until the pack is rebuilt, never the recording of other words."""
    pair = _line(prompt_id)
    return pair is not None and text(pair, language) != recorded


def clip(prompt_id: str, language: str, *, speak: bool) -> tuple[Path, str, float] | None:
    """The file, words and seconds of a variant's line, or None if no variant file has ``prompt_id``. With
    ``speak`` the line is synthesised (once; cached) and timed as heard; else it is timed by :func:`estimate` (and
    its file may not exist)."""
    pair = _line(prompt_id)
    if pair is None:
        return None
    words = text(pair, language)
    path = cache_path(words, language)
    if speak and (path.is_file() or synthesise(words, language, path)):
        return path, words, wav_seconds(path)
    return path, words, estimate(words, language)


def espeak_settings(language: str) -> tuple[str, int]:
    """espeak-ng's voice and speed for a pack language (the catalogue's ``[languages]`` where it is at hand)."""
    if CATALOG.is_file():
        with CATALOG.open("rb") as fh:
            entry = tomllib.load(fh).get("languages", {}).get(language)
        if isinstance(entry, dict) and "espeak_voice" in entry:
            return str(entry["espeak_voice"]), int(entry.get("speed", 160))
    return _ESPEAK.get(language, _ESPEAK["zh-CN" if language.lower().startswith("zh") else "en"])


def cache_path(words: str, language: str) -> Path:
    """Where the synthesised line is kept: one WAV per text, voice and speed."""
    voice, speed = espeak_settings(language)
    key = hashlib.sha256(f"{voice}\0{speed}\0{words}".encode()).hexdigest()[:24]
    root = os.environ.get("TIANHEI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tianhei")
    return Path(root) / "variant-lines" / language / f"{key}.wav"


@functools.cache
def _no_synthesiser() -> bool:
    if shutil.which("espeak-ng") is None:
        log.warning("espeak-ng is not installed: a variant's lines that the voice pack has no recording of are "
                    "not said (Debian: apt-get install espeak-ng; or rebuild the pack: tianhei sounds build)")
        return True
    return False


def synthesise(words: str, language: str, dst: Path) -> bool:
    """Say ``words`` with espeak-ng into ``dst`` (a WAV pygame plays as it is); False, logged, if it cannot."""
    if _no_synthesiser():
        return False
    voice, speed = espeak_settings(language)
    dst.parent.mkdir(parents=True, exist_ok=True)
    part = dst.with_suffix(".part.wav")
    try:
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(part), words],
                       check=True, capture_output=True, timeout=30)
        part.replace(dst)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("espeak-ng could not say %r: %s", words, exc)
        return False
    return True


def wav_seconds(path: Path) -> float:
    """Seconds of a WAV file."""
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()
