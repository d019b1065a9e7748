"""Voice packs on disk: finding them, reading their manifests, and falling back to the default pack.

A pack is a folder with ``manifest.toml`` and audio files::

    [pack]
    name = "zh-CN"
    language = "zh-CN"

    [prompts."night.falls"]
    file = "night.falls.ogg"
    text = "天黑请闭眼。"
    duration = 1.52        # seconds, measured after trimming; the director times vote windows on it

The committed packs (``zh-CN``, the default, and ``en``) live in ``sounds/packs/`` of the source checkout and are
built by ``sounds/build.py``. A club's own pack is any folder in that format, named by path in the config; every
prompt it lacks (or whose file is absent) is taken from the default pack, with one warning in the log.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.voice.licence import Licence, LicenceError, read_licence

log = logging.getLogger(__name__)

DEFAULT_PACK = "zh-CN"
MANIFEST = "manifest.toml"
#: Seconds of silence the adapters put between the parts of one utterance, so composed sentences breathe.
PART_GAP = 0.08

#: The source checkout's packs: ``<checkout>/sounds/packs`` (this file is ``controller/voice/packs.py``).
SOURCE_PACKS = Path(__file__).resolve().parents[2] / "sounds" / "packs"
#: Where an installed (non-editable) copy would keep them, if the distribution ships them as data files.
INSTALLED_PACKS = Path(sys.prefix) / "share" / "tianhei" / "sounds" / "packs"


class PackError(Exception):
    """A pack that cannot be found or whose manifest is broken; the message names the file and the key."""


class UnknownPrompt(KeyError):
    """A prompt ID that neither the pack nor its fallback has."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown prompt"


@dataclass(frozen=True, slots=True)
class Clip:
    """One recording: what it says and how long it takes."""

    prompt_id: str
    path: Path
    text: str
    duration: float


@dataclass(frozen=True)
class Pack:
    """One folder's manifest, as read (no fallback)."""

    name: str
    root: Path
    language: str
    clips: Mapping[str, Clip]
    #: Who speaks and under what terms (``[licence]``); None for a pack made before the record existed.
    licence: Licence | None = None

    @classmethod
    def load(cls, root: Path) -> Pack:
        manifest = root / MANIFEST
        try:
            with manifest.open("rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise PackError(f"{manifest}: no manifest; a voice pack is a folder with {MANIFEST}") from None
        except tomllib.TOMLDecodeError as exc:
            raise PackError(f"{manifest}: not valid TOML: {exc}") from None
        meta = data.get("pack", {})
        if not isinstance(meta, dict):
            raise PackError(f"{manifest}: [pack] must be a table")
        prompts = data.get("prompts", {})
        if not isinstance(prompts, dict):
            raise PackError(f"{manifest}: [prompts] must be a table of prompt IDs")
        clips: dict[str, Clip] = {}
        for pid, entry in prompts.items():
            where = f'{manifest}: [prompts."{pid}"]'
            if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
                raise PackError(f"{where} needs file = \"<name>.ogg\"")
            duration = entry.get("duration")
            path = root / entry["file"]
            if duration is None:
                duration = _measured_duration(path)  # NaN if unreadable: the clip is then borrowed
            elif not isinstance(duration, int | float) or isinstance(duration, bool) or not duration >= 0:
                raise PackError(f"{where}: duration must be seconds >= 0, got {duration!r}")
            clips[pid] = Clip(pid, path, str(entry.get("text", "")), float(duration))
        name = str(meta.get("name", root.name))
        try:
            licence = read_licence(data.get("licence"), str(manifest))
        except LicenceError as exc:
            raise PackError(str(exc)) from None
        return cls(name=name, root=root, language=str(meta.get("language", name)), clips=clips, licence=licence)


def _measured_duration(path: Path) -> float:
    """A club may leave ``duration`` out; then it is read from the OGG file (NaN if it cannot be)."""
    try:
        return ogg_duration(path)
    except (OSError, ValueError):
        return math.nan


def ogg_duration(path: Path) -> float:
    """Seconds of an OGG Vorbis file, from its headers alone (no decoder, so it works on the Pi and in tests).

    The identification header gives the sample rate; the last page's granule position is the sample count."""
    data = path.read_bytes()
    if not data.startswith(b"OggS") or len(data) < 28:
        raise ValueError(f"{path}: not an OGG file")
    segments = data[26]
    packet = data[27 + segments : 27 + segments + 30]
    if not packet.startswith(b"\x01vorbis"):
        raise ValueError(f"{path}: OGG file without a Vorbis stream")
    rate = int.from_bytes(packet[12:16], "little")
    last = data.rfind(b"OggS")
    granule = int.from_bytes(data[last + 6 : last + 14], "little", signed=True)
    if rate <= 0 or granule < 0:
        raise ValueError(f"{path}: corrupt Vorbis headers (rate {rate}, granule {granule})")
    return granule / rate


def search_path() -> list[Path]:
    """Folders searched for a pack given by name, in order."""
    extra = [Path(p) for p in os.environ.get("TIANHEI_SOUNDS", "").split(os.pathsep) if p]
    return [*extra, SOURCE_PACKS, INSTALLED_PACKS]


def find_pack(name_or_path: str | os.PathLike[str]) -> Path:
    """The folder of a pack: a path to a folder holding ``manifest.toml``, or the name of a committed pack
    (``"zh-CN"``, ``"en"``) looked up in ``$TIANHEI_SOUNDS``, the source checkout, then the installed data."""
    given = Path(name_or_path)
    if (given / MANIFEST).is_file():
        return given
    looked = [given]
    if len(given.parts) == 1:
        for folder in search_path():
            candidate = folder / given
            if (candidate / MANIFEST).is_file():
                return candidate
            looked.append(candidate)
    where = ", ".join(str(p) for p in looked)
    raise PackError(f"voice pack {str(name_or_path)!r} not found (looked for {MANIFEST} in: {where})")


class VoicePack:
    """A pack with the default pack behind it: what the adapters play from.

    Prompts missing from ``primary`` (or whose file is absent) come from ``fallback``; :func:`load_voice_pack`
    logs them once, together, when the pack is loaded. A variant's own lines that neither has are said by the
    fallback voice (:mod:`controller.voice.variant_lines`): synthesised when ``speak_lines`` (a voice that plays),
    else timed by their length."""

    def __init__(self, primary: Pack, fallback: Pack | None = None, *, speak_lines: bool = False) -> None:
        self.primary = primary
        self.fallback = fallback
        self.speak_lines = speak_lines
        self.borrowed: tuple[str, ...] = ()
        if fallback is not None and fallback.root != primary.root:
            self.borrowed = tuple(
                sorted(pid for pid in fallback.clips if not _usable(primary.clips.get(pid)))
            )

    @property
    def name(self) -> str:
        return self.primary.name

    def ids(self) -> set[str]:
        own = {pid for pid, clip in self.primary.clips.items() if _usable(clip)}
        return own | set(self.borrowed)

    def clip(self, prompt_id: str) -> Clip:
        from controller.voice import variant_lines

        own = self.primary.clips.get(prompt_id)
        if _usable(own) and not variant_lines.reworded(prompt_id, own.text, self.primary.language):  # type: ignore[union-attr]
            assert own is not None
            return own
        if self.fallback is not None and prompt_id in self.fallback.clips:
            return self.fallback.clips[prompt_id]
        line = variant_lines.clip(prompt_id, self.primary.language, speak=self.speak_lines)
        if line is not None:
            return Clip(prompt_id, *line)
        if own is not None:
            return own  # the file is missing everywhere; the adapter will report it when it tries to play
        raise UnknownPrompt(f"prompt {prompt_id!r} is in neither pack {self.primary.name!r}, its fallback nor a "
                            "variant file's [words]")

    def speakers(self) -> list[tuple[Pack, int]]:
        """The packs that speak at this table and how many prompts each says (the fallback only for what the
        primary lacks): whose terms the table plays under."""
        out = [(self.primary, len(self.ids()) - len(self.borrowed))]
        if self.fallback is not None and self.borrowed:
            out.append((self.fallback, len(self.borrowed)))
        return out

    def terms(self) -> list[tuple[str, Licence | None, int]]:
        """:meth:`speakers` as :func:`controller.voice.licence.speaking_lines` reads them."""
        return [(pack.name, pack.licence, count) for pack, count in self.speakers()]

    def duration(self, prompts: Sequence[str]) -> float:
        """Seconds to say ``prompts`` back to back, with :data:`PART_GAP` between parts."""
        if not prompts:
            return 0.0
        return sum(self.clip(p).duration for p in prompts) + PART_GAP * (len(prompts) - 1)


def _usable(clip: Clip | None) -> bool:
    return clip is not None and clip.path.is_file() and not math.isnan(clip.duration)


def load_voice_pack(name_or_path: str | os.PathLike[str], default: str | None = None) -> VoicePack:
    """Load a pack with a built pack as its fallback (``default``; else the built pack of the pack's own
    language, else :data:`DEFAULT_PACK`), logging one warning that lists what it borrows."""
    primary = Pack.load(find_pack(name_or_path))
    if default is None:
        default = primary.language if _built(primary.language) else DEFAULT_PACK
    default_root = find_pack(default)
    if primary.root.resolve() == default_root.resolve():
        return VoicePack(primary)
    pack = VoicePack(primary, Pack.load(default_root))
    if pack.borrowed:
        log.warning(
            "voice pack %r lacks %d prompt(s); using pack %r for: %s",
            primary.name,
            len(pack.borrowed),
            default,
            _shorten(pack.borrowed),
        )
    return pack


def _built(name: str) -> bool:
    try:
        find_pack(name)
    except PackError:
        return False
    return len(Path(name).parts) == 1


def _shorten(ids: Iterable[str], limit: int = 12) -> str:
    items = list(ids)
    more = f" … and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more
