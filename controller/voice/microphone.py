"""Where ``tianhei sounds record`` takes its takes from: a microphone on the Pi, or a folder of recordings.

The microphone is recorded by ``arecord`` (alsa-utils, on every Raspberry Pi OS): no PortAudio, no extra wheel,
the same ALSA device names ``aplay -l`` lists, and it writes the WAV the table reads (16-bit mono at the pack's
rate). ``sounddevice`` would need PortAudio's library and a NumPy stream callback for the same result.

A club that recorded its judge elsewhere (a studio, another phone) hands a folder of ``<prompt id>.wav`` files
instead: each is judged the same way.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

RATE = 22050


class MicrophoneError(RuntimeError):
    """No microphone to record from: the message names the tool or device and the fix."""


class Takes(Protocol):
    def take(self, prompt_id: str, max_s: float, wait: Callable[[], object]) -> bytes | None:
        """A take of ``prompt_id`` as WAV bytes (None: there is none for it). ``wait`` returns when the judge
        says stop; a take never runs past ``max_s``."""
        ...


class Arecord:
    """Records from an ALSA device (``default``, or ``hw:1,0`` for a USB microphone) until the judge stops."""

    def __init__(self, device: str = "default") -> None:
        if shutil.which("arecord") is None:
            raise MicrophoneError("arecord is not installed (Debian: apt-get install alsa-utils)")
        self.device = device

    def take(self, prompt_id: str, max_s: float, wait: Callable[[], object]) -> bytes | None:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "take.wav"
            proc = subprocess.Popen(["arecord", "-q", "-D", self.device, "-f", "S16_LE", "-c", "1", "-r", str(RATE),
                                     "-t", "wav", "-d", str(int(max_s) + 1), str(out)],
                                    stderr=subprocess.PIPE, text=True)
            try:
                wait()
            finally:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGINT)  # arecord finishes the WAV header on SIGINT
                _, err = proc.communicate(timeout=10)
            if proc.returncode not in (0, -signal.SIGINT, 1) or not out.is_file():
                raise MicrophoneError(f"arecord -D {self.device} failed: {err.strip()[:200] or proc.returncode} "
                                      "(`arecord -l` lists the devices; --device hw:CARD,DEV)")
            return out.read_bytes()


class Folder:
    """Takes recorded elsewhere: ``<prompt id>.wav`` in a folder (a prompt without one is skipped)."""

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise MicrophoneError(f"{folder}: no such folder of takes")
        self.folder = folder

    def take(self, prompt_id: str, max_s: float, wait: Callable[[], object]) -> bytes | None:
        path = self.folder / f"{prompt_id}.wav"
        return path.read_bytes() if path.is_file() else None
