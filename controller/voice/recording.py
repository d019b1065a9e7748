"""Recording the club's own judge into a pack, prompt by prompt, resumable at any point.

The pack is a folder (``manifest.toml`` with ``[licence]`` "the club's own judge", one OGG per recorded prompt,
and each accepted take's WAV kept in ``takes/`` as its ``source``, so ``tianhei sounds build FOLDER`` can
finish them again). A prompt not recorded yet is said by the built pack of the table's language
(:func:`controller.voice.packs.load_voice_pack` borrows it), so a half-recorded pack already plays.

The prompts come in the order that matters to the club (:func:`recording_order`): first everything its own
version's game says (the script, its roles' calls, its endings), then the parts the table builds sentences from
up to its number of players (seat numbers, counts of votes), then the other versions' roles and endings, the
remaining numbers, and last what only the club's hall says. Whoever records (the console's page,
``tianhei sounds record``) asks :meth:`Recording.next_prompt` where to go on.
"""

from __future__ import annotations

import importlib.util
import shutil
import threading
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.voice.check import MAX_PROMPT_SECONDS
from controller.voice.licence import CLUB_RECORDING
from controller.voice.packs import MANIFEST, Pack, PackError, find_pack
from controller.voice.prompts import ENDINGS, ROLE_PROMPTS, ROLE_SYNONYMS
from controller.voice.takes import TakeError, Verdict, judge, read_take, slot_for

RECORD_TOOLS = ("recording needs numpy, pyloudnorm and sox on the table: pip install -e '.[record]' and "
                "apt-get install sox libsox-fmt-all")

#: Prompt families that every game of every version says (the script around the roles).
_PARTS = ("seat", "number")
_HALL = ("hall", "room")


def missing_tools() -> str | None:
    """Why this table cannot judge and finish a take (the build's tools are not installed), or None."""
    lacking = [m for m in ("numpy", "pyloudnorm", "scipy") if importlib.util.find_spec(m) is None]
    if shutil.which("sox") is None:
        lacking.append("sox")
    return f"{RECORD_TOOLS} (missing: {', '.join(lacking)})" if lacking else None


def recording_order(ids: Sequence[str], roles: Iterable[str], variant: str, players: int) -> list[str]:
    """``ids`` (in the catalogue's order) in the order a club records them: its own game first, then the parts
    for its table, then the rest (see the module's docstring). ``roles`` are the club's variant's roles."""
    own_roles = {ROLE_SYNONYMS.get(r, r) for r in roles} & set(ROLE_PROMPTS)
    own_endings = {*ENDINGS.get(variant, ENDINGS["classic-1.0"]).values(), "ending.game_over"}

    def rank(pid: str) -> int:
        family, _, rest = pid.partition(".")
        if family == "role":
            return 0 if rest.split(".")[0] in own_roles else 2
        if family == "ending":
            return 0 if pid in own_endings else 2
        if family in _PARTS:
            number = rest.isdigit() and int(rest)
            return 1 if number is not False and number <= players else 3
        if family in _HALL:
            return 4
        return 0

    return sorted(ids, key=rank)  # stable: the catalogue's order within each rank


@dataclass(frozen=True)
class PromptState:
    """One prompt as the recording page lists it."""

    id: str
    text: str
    recorded: bool
    built_s: float | None  # how long the built voice says it (None: the built pack lacks it)


class Recording:
    """The club pack being recorded in ``folder``, against the built pack ``base`` of the same language.

    ``finish`` turns an accepted take into the pack's OGG (default: the build's own finishing; tests may pass
    a faster one). Takes are judged and written one at a time (a lock), so two tabs cannot interleave them."""

    def __init__(self, folder: Path, base: str, order: Sequence[str], *,
                 finish: Callable[[object, int, Path, str], float] | None = None) -> None:
        self.folder = folder
        self.base = Pack.load(find_pack(base))
        self.order = [pid for pid in order if pid in self.base.clips and not pid.startswith("sfx.")]
        self._finish = finish
        self._lock = threading.Lock()
        if not (folder / MANIFEST).is_file():
            folder.mkdir(parents=True, exist_ok=True)
            self._write({})

    @property
    def language(self) -> str:
        return self.base.language

    def _entries(self) -> dict[str, tuple[str, str, float, str | None]]:
        from controller.voice.build import read_manifest

        return {pid: (e.file, e.text, e.duration, e.source) for pid, e in read_manifest(self.folder).items()}

    def _write(self, entries: dict[str, tuple[str, str, float, str | None]]) -> None:
        from controller.voice.build import Entry, write_manifest

        write_manifest(self.folder, self.folder.name, self.base.language,
                       {pid: Entry(*e) for pid, e in entries.items()},
                       f"The club's own judge, recorded prompt by prompt ({self.base.language}); a prompt not "
                       f"recorded yet is said by the built pack {self.base.name}.", licence=CLUB_RECORDING)

    def recorded(self) -> set[str]:
        return {pid for pid, e in self._entries().items() if (self.folder / e[0]).is_file()}

    def prompts(self) -> list[PromptState]:
        done = self.recorded()
        return [PromptState(pid, self.base.clips[pid].text, pid in done, self.base.clips[pid].duration)
                for pid in self.order]

    def next_prompt(self, after: str | None = None) -> str | None:
        """The first prompt not recorded yet in the order (after ``after``, wrapping round), or None when all are."""
        done = self.recorded()
        start = self.order.index(after) + 1 if after in self.order else 0
        for pid in [*self.order[start:], *self.order[:start]]:
            if pid not in done:
                return pid
        return None

    def slot(self, pid: str) -> float:
        return slot_for(self.base.clips[pid].duration, MAX_PROMPT_SECONDS)

    def clip(self, pid: str) -> Path:
        """What the table says for ``pid`` now: the club's take if recorded, else the built pack's."""
        entries = self._entries()
        if pid in entries and (self.folder / entries[pid][0]).is_file():
            return self.folder / entries[pid][0]
        return self.base.clips[pid].path

    def submit(self, pid: str, wav: bytes) -> Verdict:
        """Judge a take of ``pid`` (16-bit PCM WAV) and, if it is fit, put it in the pack (replacing an earlier
        take). Raises :class:`RecordingError` for a prompt that is not in the order or a file that is no take."""
        if pid not in self.order:
            raise RecordingError(f"no prompt {pid!r} to record (the built pack {self.base.name} has no such clip)")
        try:
            samples, rate = read_take(wav)
        except TakeError as exc:
            raise RecordingError(str(exc)) from None
        verdict = judge(samples, rate, self.slot(pid))
        if not verdict.ok:
            return verdict
        from controller.voice.takes import voice_span

        start, end = voice_span(samples, rate)
        with self._lock:
            takes = self.folder / "takes"
            takes.mkdir(exist_ok=True)
            source = takes / f"{pid}.wav"
            source.write_bytes(wav)
            file = f"{pid}.ogg"
            finish = self._finish or _build_finish
            duration = finish(samples[start:end], rate, self.folder / file, f"prompt {pid!r}")
            entries = self._entries()
            entries[pid] = (file, self.base.clips[pid].text, duration, f"takes/{pid}.wav")
            self._write(entries)
        return Verdict("ok", verdict.reason, {**verdict.figures, "seconds": duration})


class RecordingError(ValueError):
    """A take that cannot be taken at all (not a prompt, not a WAV): one line, said to whoever sent it."""


def _build_finish(samples: object, rate: int, dst: Path, what: str) -> float:
    from controller.voice.build import BuildError, finish

    try:
        return finish(samples, rate, dst, what, trimmed=False)
    except BuildError as exc:
        raise RecordingError(str(exc)) from None


def open_recording(pack: str, language: str, variant: str, players: int,
                   roles: Callable[[str], Iterable[str]] | None = None) -> Recording:
    """The recording of the club pack ``pack`` (a folder; made if it does not exist) for a table of ``language``
    that plays ``variant`` with ``players``."""
    folder = Path(pack)
    if len(folder.parts) == 1 and not folder.exists():
        raise PackError(f"{pack!r} is a pack's name: recording needs a folder (e.g. var/our-judge) that "
                        "[voice] pack then names")
    base = language if language in ("zh-CN", "en") else "zh-CN"
    if (folder / MANIFEST).is_file():
        with (folder / MANIFEST).open("rb") as fh:
            base = str(tomllib.load(fh).get("pack", {}).get("language", base)) or base
    ids = _catalogue_ids(base)
    variant_roles = (roles or _variant_roles)(variant)
    return Recording(folder, base, recording_order(ids, variant_roles, variant, players))


def _catalogue_ids(base: str) -> list[str]:
    """The prompts in the catalogue's order (a checkout), else in the built pack's."""
    from controller.voice.build import CATALOG, load_catalog

    if CATALOG.is_file():
        prompts = load_catalog(CATALOG).get("prompts", {})
        assert isinstance(prompts, dict)
        return list(prompts)
    return list(Pack.load(find_pack(base)).clips)


def _variant_roles(variant: str) -> tuple[str, ...]:
    from controller.rules.variant import VariantError, load_variant

    try:
        return tuple(load_variant(variant).roles)
    except VariantError:
        return ()
