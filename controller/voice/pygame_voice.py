"""The table's voice through ``pygame.mixer``: the :class:`controller.ports.Voice` adapter used on the Pi.

Never blocks the caller. ``say`` decodes the clips (cached), joins an utterance's parts into one sound (so a
composed sentence such as "5号 / 3票" plays without gaps or scheduling jitter) and returns at once with the
seconds until everything queued is said, taken from the manifest's durations.

The queue is kept on the injected clock (:class:`~controller.voice.timeline.Timeline`) and driven by
:meth:`PygameVoice.pump`, which the director's loop calls (``await voice.run()`` does it in an asyncio task, or
call ``pump()`` from any loop; it returns when it next needs calling). Each time an utterance starts, the next one
is handed to the mixer's own one-deep channel queue, so a late ``pump`` never leaves a gap between utterances.

Channels: 0 voice, 1 night masking loop, 2 beeps (reserved, so other pygame sounds never steal them). The
masking loop is ducked (turned down) whenever the voice speaks and restored when it stops; beeps are not ducked.
A prompt the pack lacks, or a file that cannot be decoded, is logged and replaced by silence of its manifest
length (or skipped), never raised: at the table the game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence

from controller.voice.packs import PART_GAP, UnknownPrompt, VoicePack
from controller.voice.timeline import Clock, Timeline, Utterance

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # after hiding pygame's banner
import pygame.mixer

log = logging.getLogger(__name__)

MASK_ID = "sfx.mask"
BEEP_IDS = {"warning": "sfx.beep.warning", "final": "sfx.beep.final"}
VOICE, MASK, BEEP = 0, 1, 2


class NoSoundDevice(pygame.error):
    """The mixer cannot open an audio device (no sound card, no permission): one line says why."""


@contextlib.contextmanager
def c_stderr_silenced() -> Iterator[None]:
    """Silence file descriptor 2 itself (not only ``sys.stderr``) while SDL opens the audio device.

    With no sound card, alsa-lib (inside SDL, in C) prints a screen of ``ALSA lib … Unknown PCM default`` lines
    straight to fd 2 before SDL gives up; the error SDL then returns says the same in one line, which the caller
    reports. Only the mixer's opening is covered: anything else written to stderr in that instant (a log line
    from another thread) is lost with it, which is why the window is kept this short."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no fd 2 to save (a detached process): nothing to silence either
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def open_mixer(frequency: int = 22050) -> None:
    """Open pygame's mixer, mono 16-bit; :class:`NoSoundDevice` (one line, no ALSA chatter) if it cannot."""
    try:
        with c_stderr_silenced():
            pygame.mixer.init(frequency=frequency, size=-16, channels=1, buffer=1024)
    except pygame.error as exc:
        raise NoSoundDevice(str(exc)) from None


class PygameVoice:
    """Plays prompt IDs from ``pack``. ``volume`` is 0..1; the masking loop plays at ``mask_level`` of it, and
    at ``duck_level`` while the voice speaks."""

    def __init__(
        self,
        pack: VoicePack,
        *,
        clock: Clock = time.monotonic,
        volume: float = 1.0,
        mask_level: float = 0.35,
        duck_level: float = 0.08,
        frequency: int = 22050,
    ) -> None:
        self.pack = pack
        self.clock = clock
        self.mask_level = mask_level
        self.duck_level = duck_level
        if not pygame.mixer.get_init():
            open_mixer(frequency)
        freq, size, channels = pygame.mixer.get_init()
        self._frame = abs(size) // 8 * channels
        self._rate = freq
        if pygame.mixer.get_num_channels() < 3:
            pygame.mixer.set_num_channels(8)
        pygame.mixer.set_reserved(3)
        self._voice = pygame.mixer.Channel(VOICE)
        self._mask = pygame.mixer.Channel(MASK)
        self._beep = pygame.mixer.Channel(BEEP)
        self._clips: dict[str, pygame.mixer.Sound | None] = {}
        self._sounds: dict[Utterance, pygame.mixer.Sound] = {}
        self.timeline = Timeline(clock)
        self._playing: Utterance | None = None
        self._queued: Utterance | None = None
        self._masking = False
        self._ducked = False
        self.volume = volume

    # --- the Voice port -------------------------------------------------------------------------------------

    def duration(self, prompts: Sequence[str]) -> float:
        return self.pack.duration(self._known(prompts))

    def say(self, prompts: Sequence[str], *, urgent: bool = False) -> float:
        parts = self._known(prompts)
        utterance = self.timeline.add(parts, self.pack.duration(parts), urgent=urgent)
        self._sounds[utterance] = self._join(parts)
        if urgent:
            self._voice.stop()  # also empties the mixer's queue
            self._playing = self._queued = None
        self.pump()
        return utterance.end - self.clock()

    def masking(self, on: bool) -> None:
        if on == self._masking:
            return
        self._masking = on
        if on:
            sound = self._clip(MASK_ID)
            if sound is not None:
                self._mask.set_volume(self._mask_volume())
                self._mask.play(sound, loops=-1, fade_ms=1500)
        else:
            self._mask.fadeout(1500)

    def beep(self, kind: str = "warning") -> None:
        pid = BEEP_IDS.get(kind)
        if pid is None:
            log.error("unknown beep %r (known: %s); nothing played", kind, ", ".join(BEEP_IDS))
            return
        sound = self._clip(pid)
        if sound is not None:
            self._beep.play(sound)

    # --- scheduling -------------------------------------------------------------------------------------------

    def pump(self) -> float:
        """Start what is due, hand the next utterance to the mixer, duck or restore the masking loop.
        Returns the seconds until it should be called again (``inf`` when idle)."""
        now = self.clock()
        items = self.timeline.active(now)
        for gone in [u for u in self._sounds if u not in items]:
            del self._sounds[gone]
        if not items:
            self._playing = self._queued = None
            self._duck(False)
            return math.inf
        current = items[0]
        if current is not self._playing:
            if current is not self._queued:
                self._voice.play(self._sounds[current])
            self._playing, self._queued = current, None
        if len(items) > 1 and self._queued is not items[1]:
            if self._voice.get_queue() is not None:
                # The mixer (a buffer behind the clock) still holds the previous hand-over; queueing now would
                # replace it. Hand over on the next pump; if that comes too late, play() starts it on time.
                self._duck(True)
                return 0.02
            self._voice.queue(self._sounds[items[1]])
            self._queued = items[1]
        self._duck(True)
        return max(0.0, current.end - now)

    async def run(self, tick: float = 0.25) -> None:
        """Drive :meth:`pump` from an asyncio loop until cancelled."""
        while True:
            await asyncio.sleep(min(tick, self.pump()))

    # --- volume -------------------------------------------------------------------------------------------

    @property
    def volume(self) -> float:
        return self._volume

    @volume.setter
    def volume(self, value: float) -> None:
        self._volume = min(1.0, max(0.0, float(value)))
        self._voice.set_volume(self._volume)
        self._beep.set_volume(self._volume)
        self._mask.set_volume(self._mask_volume())

    @property
    def mask_volume(self) -> float:
        """The masking loop's current volume (what ducking sets)."""
        return self._mask_volume()

    @property
    def now_playing(self) -> Utterance | None:
        return self._playing

    def close(self) -> None:
        """Stop every sound (the mixer stays initialised for whoever else uses it)."""
        for channel in (self._voice, self._mask, self._beep):
            channel.stop()

    # --- internals --------------------------------------------------------------------------------------------

    def _mask_volume(self) -> float:
        return self._volume * (self.duck_level if self._ducked else self.mask_level)

    def _duck(self, on: bool) -> None:
        if on != self._ducked:
            self._ducked = on
            self._mask.set_volume(self._mask_volume())

    def _known(self, prompts: Sequence[str]) -> list[str]:
        known = []
        for p in prompts:
            try:
                self.pack.clip(p)
            except UnknownPrompt as exc:
                log.error("voice pack %r: %s; skipped", self.pack.name, exc)
                continue
            known.append(p)
        return known

    def _clip(self, pid: str) -> pygame.mixer.Sound | None:
        if pid not in self._clips:
            try:
                clip = self.pack.clip(pid)
                self._clips[pid] = pygame.mixer.Sound(str(clip.path))
            except (UnknownPrompt, pygame.error, FileNotFoundError) as exc:
                log.error("voice pack %r: cannot play %r: %s", self.pack.name, pid, exc)
                self._clips[pid] = None
        return self._clips[pid]

    def _silence(self, seconds: float) -> bytes:
        return bytes(int(seconds * self._rate) * self._frame)

    def _join(self, parts: Sequence[str]) -> pygame.mixer.Sound:
        """One sound for a whole utterance: the parts with :data:`PART_GAP` between them. A part that cannot be
        decoded becomes silence of its manifest length, so the timing the director was given still holds."""
        chunks = []
        for i, pid in enumerate(parts):
            if i:
                chunks.append(self._silence(PART_GAP))
            sound = self._clip(pid)
            chunks.append(sound.get_raw() if sound is not None else self._silence(self.pack.clip(pid).duration))
        return pygame.mixer.Sound(buffer=b"".join(chunks) or self._silence(0.01))
