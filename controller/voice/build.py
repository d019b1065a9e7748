"""Building voice packs: speech from ``sounds/catalog.toml`` with espeak-ng, noises synthesised, all through sox.

Run on a development machine (``sounds/build.py PACK`` or ``tianhei sounds build PACK``); the result is committed,
so the Pi needs neither espeak-ng nor sox (Debian: ``espeak-ng sox libsox-fmt-all``).

Every clip is mono OGG Vorbis at 22.05 kHz: small enough to commit, and what ``pygame.mixer`` plays. Speech has
its leading and trailing silence trimmed (so the manifest's durations are what the listener hears, and vote
windows open right after a call) and its peak normalised, so no prompt is louder than another.

Rebuilding is incremental: a prompt whose text is unchanged and whose file exists is kept as it is (OGG files get
a random stream serial, so re-encoding everything would churn the repository for nothing).

A club pack (a folder whose manifest entries name a ``source`` recording in any format sox reads) is built the
same way from the club's recordings instead of the synthesiser.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import struct
import subprocess
import tempfile
import tomllib
import wave
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from controller.voice.packs import MANIFEST, SOURCE_PACKS, ogg_duration

CATALOG = SOURCE_PACKS.parent / "catalog.toml"
RATE = 22050
#: Vorbis quality (sox ``-C``): 0 keeps synthetic speech clear at about 30 kbit/s mono.
QUALITY = "0"
#: sox effects that trim silence at both ends (threshold 0.5% of full scale) and normalise the peak to -1 dBFS.
TRIM_AND_NORMALISE = ["silence", "1", "0.02", "0.5%", "reverse", "silence", "1", "0.02", "0.5%", "reverse",
                      "norm", "-1"]
MASK_SECONDS = 12.0


class BuildError(Exception):
    """A tool is missing or failed; the message names the prompt and the command."""


@dataclass(frozen=True)
class Entry:
    """One line of a pack's manifest."""

    file: str
    text: str
    duration: float
    source: str | None = None

    def to_toml(self, pid: str) -> str:
        lines = [f"[prompts.{json.dumps(pid)}]", f"file = {json.dumps(self.file)}",
                 f"text = {json.dumps(self.text, ensure_ascii=False)}", f"duration = {self.duration:.3f}"]
        if self.source:
            lines.append(f"source = {json.dumps(self.source, ensure_ascii=False)}")
        return "\n".join(lines) + "\n"


def load_catalog(path: Path = CATALOG) -> dict[str, object]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BuildError(f"{path}: cannot read the catalogue: {exc}") from None


def catalog_languages(catalog: Mapping[str, object]) -> dict[str, dict[str, object]]:
    langs = catalog.get("languages", {})
    assert isinstance(langs, dict)
    return langs


def _run(cmd: list[str], what: str) -> None:
    if shutil.which(cmd[0]) is None:
        raise BuildError(f"{what}: {cmd[0]} is not installed (Debian: apt-get install espeak-ng sox libsox-fmt-all)")
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BuildError(f"{what}: {' '.join(cmd[:2])} ... failed: {done.stderr.strip()[:300]}")


def _encode(src: Path, dst: Path, what: str, effects: list[str]) -> float:
    """sox ``src`` to a mono 22.05 kHz OGG ``dst`` through ``effects``; return the result's duration."""
    _run(["sox", str(src), "-c", "1", "-r", str(RATE), "-C", QUALITY, str(dst), *effects], what)
    return ogg_duration(dst)


def speak(text: str, voice: str, speed: int, dst: Path) -> float:
    """Synthesise ``text`` with espeak-ng into ``dst`` (trimmed, normalised); return its duration."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        _run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text], f"prompt {dst.stem!r}")
        return _encode(raw, dst, f"prompt {dst.stem!r}", TRIM_AND_NORMALISE)


# --- Noises -----------------------------------------------------------------------------------------------------


def mask_samples(seconds: float = MASK_SECONDS, rate: int = RATE, seed: int = 7) -> list[float]:
    """The night masking loop (C2), in -1..1: pink and brown noise (broadband, so it covers button clicks and
    card taps) under soft knuckle taps on a slow, uneven rhythm, like a judge tapping the table.

    It loops seamlessly: the noise is made longer than the loop and its tail is cross-faded (equal power) into
    the head, and taps that would run past the end wrap around to the start."""
    rng = random.Random(seed)
    n = int(seconds * rate)
    fade = rate // 2
    # Pink (Paul Kellet's economical filter) plus brown (leaky integrated white) noise.
    b0 = b1 = b2 = brown = 0.0
    noise: list[float] = []
    for _ in range(n + fade):
        white = rng.uniform(-1.0, 1.0)
        b0 = 0.99765 * b0 + white * 0.0990460
        b1 = 0.96300 * b1 + white * 0.2965164
        b2 = 0.57000 * b2 + white * 1.0526913
        pink = (b0 + b1 + b2 + white * 0.1848) * 0.11
        brown = 0.995 * brown + white * 0.02
        noise.append(0.6 * pink + 0.8 * brown)
    out = noise[:n]
    for i in range(fade):
        w = i / fade
        out[i] = noise[i] * math.sqrt(w) + noise[n + i] * math.sqrt(1.0 - w)
    rms = math.sqrt(sum(x * x for x in out) / n) or 1.0
    out = [x * 0.12 / rms for x in out]  # noise at about -18 dBFS RMS
    # Taps: a knuckle on wood is a short, low, fast-decaying thump. Pattern per 3 s: tap ... tap-tap.
    tap_len = int(0.18 * rate)
    tap = [
        0.45 * math.exp(-t / (0.025 * rate)) * (math.sin(2 * math.pi * 140 * t / rate)
                                                 + 0.4 * math.sin(2 * math.pi * 310 * t / rate))
        for t in range(tap_len)
    ]
    beat = 0.0
    while beat < seconds:
        for offset in (0.0, 1.6, 1.9):
            start = int((beat + offset + rng.uniform(-0.04, 0.04)) * rate)
            gain = rng.uniform(0.6, 1.0)
            for t, v in enumerate(tap):
                out[(start + t) % n] += gain * v
        beat += 3.0
    return [max(-1.0, min(1.0, x)) for x in out]


def write_wav(samples: list[float], path: Path, rate: int = RATE) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(struct.pack(f"<{len(samples)}h", *(int(x * 32767) for x in samples)))


def make_noise(kind: str, dst: Path) -> tuple[float, str]:
    """Generate the non-speech clip ``kind``; return its duration and a description for the manifest."""
    if kind == "mask":
        with tempfile.TemporaryDirectory() as tmp:
            raw = Path(tmp) / "mask.wav"
            write_wav(mask_samples(), raw)
            return _encode(raw, dst, "night masking loop", []), "(night masking loop: noise and soft table taps)"
    tones = {
        "beep_warning": (["synth", "0.12", "sine", "880", "fade", "h", "0.005", "0.12", "0.03", "gain", "-6"],
                         "(countdown beep: deadline near)"),
        "beep_final": (["synth", "0.45", "sine", "1320", "fade", "h", "0.005", "0.45", "0.1", "gain", "-4"],
                       "(countdown beep: deadline reached)"),
    }
    if kind not in tones:
        raise BuildError(f"unknown sound kind {kind!r} in the catalogue (known: mask, {', '.join(tones)})")
    effects, text = tones[kind]
    _run(["sox", "-n", "-c", "1", "-r", str(RATE), "-C", QUALITY, str(dst), *effects], f"sound {kind}")
    return ogg_duration(dst), text


# --- Packs ------------------------------------------------------------------------------------------------------


def read_manifest(root: Path) -> dict[str, Entry]:
    path = root / MANIFEST
    if not path.is_file():
        return {}
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    out = {}
    for pid, e in data.get("prompts", {}).items():
        out[pid] = Entry(e.get("file", f"{pid}.ogg"), e.get("text", ""), float(e.get("duration", 0.0)),
                         e.get("source"))
    return out


def write_manifest(root: Path, name: str, language: str, entries: Mapping[str, Entry], note: str) -> None:
    head = (f"# {note}\n# Durations are seconds after trimming. Generated by sounds/build.py: edit\n"
            f"# sounds/catalog.toml (or a club's own recordings), not this file.\n\n"
            f"[pack]\nname = {json.dumps(name)}\nlanguage = {json.dumps(language)}\n\n")
    body = "\n".join(entries[pid].to_toml(pid) for pid in sorted(entries))
    (root / MANIFEST).write_text(head + body, encoding="utf-8")


def build_language_pack(language: str, out: Path, *, catalog_path: Path = CATALOG, force: bool = False,
                        jobs: int = 4, progress: Callable[[str], None] = lambda _m: None) -> dict[str, Entry]:
    """(Re)build the synthesised pack for ``language`` of the catalogue into ``out``."""
    catalog = load_catalog(catalog_path)
    langs = catalog_languages(catalog)
    if language not in langs:
        raise BuildError(f"{catalog_path}: no [languages] entry {language!r} (have: {', '.join(langs)})")
    settings = langs[language]
    voice, speed = str(settings["espeak_voice"]), int(str(settings.get("speed", 150)))
    out.mkdir(parents=True, exist_ok=True)
    old = {} if force else read_manifest(out)
    prompts = catalog.get("prompts", {})
    sounds = catalog.get("sounds", {})
    assert isinstance(prompts, dict) and isinstance(sounds, dict)

    def one(pid: str) -> tuple[str, Entry]:
        file = f"{pid}.ogg"
        if pid in sounds:
            kind = str(sounds[pid]["kind"])
            kept = old.get(pid)
            if kept and (out / kept.file).is_file():
                return pid, kept
            duration, text = make_noise(kind, out / file)
            progress(f"{pid}: {text}")
            return pid, Entry(file, text, duration)
        text = prompts[pid].get(language)
        if not isinstance(text, str) or not text.strip():
            raise BuildError(f'{catalog_path}: [prompts."{pid}"] has no {language} text')
        kept = old.get(pid)
        if kept and kept.text == text and (out / kept.file).is_file():
            return pid, kept
        duration = speak(text, voice, speed, out / file)
        progress(f"{pid}: {text} ({duration:.2f} s)")
        return pid, Entry(file, text, duration)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        entries = dict(pool.map(one, [*sounds, *prompts]))
    for stale in out.glob("*.ogg"):
        if stale.name not in {e.file for e in entries.values()}:
            stale.unlink()
            progress(f"removed {stale.name} (no longer in the catalogue)")
    write_manifest(out, language, language, entries,
                   f"Voice pack {language}: espeak-ng voice {voice!r}, mono {RATE} Hz OGG Vorbis.")
    return entries


def build_club_pack(root: Path, *, progress: Callable[[str], None] = lambda _m: None) -> dict[str, Entry]:
    """Rebuild a club pack in place: every entry with a ``source`` recording is trimmed, normalised and encoded
    to its ``file``; every duration is re-measured from the files."""
    entries = read_manifest(root)
    if not entries:
        raise BuildError(f"{root / MANIFEST}: no prompts to build (a club pack lists prompts with file and source)")
    built: dict[str, Entry] = {}
    for pid, e in entries.items():
        dst = root / e.file
        if e.source:
            src = root / e.source
            if not src.is_file():
                raise BuildError(f'{root / MANIFEST}: [prompts."{pid}"] source {e.source!r} does not exist')
            if not dst.is_file() or dst.stat().st_mtime < src.stat().st_mtime:
                _encode(src, dst, f"prompt {pid!r}", TRIM_AND_NORMALISE)
                progress(f"{pid}: encoded from {e.source}")
        try:
            duration = ogg_duration(dst)
        except (OSError, ValueError) as exc:
            raise BuildError(f'{root / MANIFEST}: [prompts."{pid}"]: {exc}') from None
        built[pid] = Entry(e.file, e.text, duration, e.source)
    with (root / MANIFEST).open("rb") as fh:
        meta = tomllib.load(fh).get("pack", {})
    write_manifest(root, str(meta.get("name", root.name)), str(meta.get("language", "")), built,
                   f"Club voice pack {meta.get('name', root.name)}.")
    return built


def build(pack: str, *, force: bool = False, catalog_path: Path = CATALOG,
          progress: Callable[[str], None] = lambda _m: None) -> Path:
    """Build ``pack``: a catalogue language (``zh-CN``, ``en``) into ``sounds/packs/<language>``, or a club
    pack folder (path) from its own recordings. Returns the pack's folder."""
    as_path = Path(pack)
    if (as_path / MANIFEST).is_file() and as_path.resolve().parent != SOURCE_PACKS.resolve():
        build_club_pack(as_path, progress=progress)
        return as_path
    out = SOURCE_PACKS / pack
    build_language_pack(pack, out, catalog_path=catalog_path, force=force, progress=progress)
    return out
