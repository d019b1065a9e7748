"""``tianhei sounds record FOLDER``: the club's judge records the prompts from a microphone on the Pi (the console's
recording page does the same from the judge's phone), or hands a folder of takes recorded elsewhere (``--takes``).

Prompt after prompt in the order that matters (controller/voice/recording.py), with what is left; each take is
judged and kept or refused with its reason; the judge can hear it back, take it again, skip, or stop and come
back later to where they stopped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    record = sub.add_parser("record", help="record the club's judge into a pack folder, prompt by prompt",
                            description="Record the club's own judge: each prompt's text in the table's "
                                        "language, in the order that matters; takes are judged and kept or "
                                        "refused with a reason; run it again to go on where you stopped.")
    record.add_argument("pack", metavar="FOLDER", help="the club pack's folder (made if new); name it in "
                                                       "[voice] pack to play it")
    source = record.add_mutually_exclusive_group()
    source.add_argument("--device", default="default", help="the ALSA microphone (default: default; "
                                                            "`arecord -l` lists them, e.g. hw:1,0)")
    source.add_argument("--takes", type=Path, metavar="DIR",
                        help="takes recorded elsewhere: DIR/<prompt id>.wav, each judged and kept or refused")
    record.add_argument("--config", default=None, help="the table's config (language, variant, players)")
    record.set_defaults(func=run_record)


def run_record(args: argparse.Namespace, *, ask: Callable[[str], str] = input,
               play: Callable[[Path], None] | None = None) -> int:
    from controller.config import ConfigError, load
    from controller.voice.microphone import Arecord, Folder, MicrophoneError
    from controller.voice.packs import PackError
    from controller.voice.recording import missing_tools, open_recording

    if (why := missing_tools()) is not None:
        print(f"sounds record: {why}", file=sys.stderr)
        return 2
    try:
        config = load(args.config, validate_game=None, find_pack=None)
        recording = open_recording(args.pack, config.table.language, config.game.variant, config.game.players)
        source = Folder(args.takes) if args.takes else Arecord(args.device)
    except (ConfigError, PackError, MicrophoneError) as exc:
        print(f"sounds record: {exc}", file=sys.stderr)
        return 2
    total = len(recording.order)
    print(f"{recording.folder}: {total - len(recording.recorded())} of {total} prompts left to record "
          f"({recording.language}, {config.game.variant}, {config.game.players} players)")
    if isinstance(source, Folder):
        return _from_folder(recording, source)
    return _from_microphone(recording, source, ask, play or _play)


def _from_folder(recording: Any, folder: Any) -> int:
    refused = kept = 0
    for pid in recording.order:
        take = folder.take(pid, recording.slot(pid), lambda: None)
        if take is None:
            continue
        verdict = _submit(recording, pid, take)
        if verdict is None or not verdict.ok:
            refused += 1
        else:
            kept += 1
    left = len(recording.order) - len(recording.recorded())
    print(f"{kept} take(s) kept, {refused} refused; {left} prompt(s) left (said by the built voice until recorded)")
    return 1 if refused else 0


def _from_microphone(recording: Any, mic: Any, ask: Callable[[str], str], play: Callable[[Path], None]) -> int:
    pid = recording.next_prompt()
    while pid is not None:
        left = len(recording.order) - len(recording.recorded())
        print(f"\n[{left} left] {pid} (at most {recording.slot(pid):.1f} s)\n    {recording.base.clips[pid].text}")
        answer = ask("Enter: record · h: hear the table's · s: skip · q: stop > ").strip().lower()
        if answer == "q":
            break
        if answer == "s":
            pid = recording.next_prompt(pid)
            continue
        if answer == "h":
            play(recording.clip(pid))
            continue
        take = mic.take(pid, recording.slot(pid) + 2, lambda: ask("recording… Enter to stop > "))
        verdict = _submit(recording, pid, take)
        if verdict is not None and verdict.ok:
            while (after := ask("Enter: next · p: play it back · r: take it again > ").strip().lower()) == "p":
                play(recording.clip(pid))
            if after == "r":
                continue
            pid = recording.next_prompt(pid)
    left = len(recording.order) - len(recording.recorded())
    print(f"stopped: {left} prompt(s) left; run it again to go on from there" if left else "every prompt recorded")
    return 0


def _submit(recording: Any, pid: str, take: bytes) -> Any:
    from controller.voice.recording import RecordingError

    try:
        verdict = recording.submit(pid, take)
    except RecordingError as exc:
        print(f"  {pid}: refused: {exc}")
        return None
    print(f"  {pid}: {'kept' if verdict.ok else 'refused'}: {verdict.reason}")
    return verdict


def _play(path: Path) -> None:
    """Play a clip through the speaker and wait for it to end."""
    import time

    import pygame.mixer

    pygame.mixer.init(frequency=22050, size=-16, channels=1)
    try:
        channel = pygame.mixer.Sound(str(path)).play()
        while channel is not None and channel.get_busy():
            time.sleep(0.05)
    finally:
        pygame.mixer.quit()
