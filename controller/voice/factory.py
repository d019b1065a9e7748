"""Choosing the voice adapter from configuration, the way gpiozero chooses a pin factory.

The config names an adapter (``pygame`` at the table, ``null`` in tests and the simulator) and a pack: a
committed pack's name (``zh-CN``, the default, or ``en``) or the folder of a club's own recordings.
"""

from __future__ import annotations

import time

from controller.ports import Voice
from controller.voice.packs import DEFAULT_PACK, load_voice_pack
from controller.voice.timeline import Clock

ADAPTERS = ("pygame", "null")


def open_voice(adapter: str = "pygame", pack: str = DEFAULT_PACK, *, clock: Clock = time.monotonic,
               volume: float = 1.0) -> Voice:
    """A ready :class:`~controller.ports.Voice`. Raises ``ValueError`` naming the adapter and the choices, or
    :class:`~controller.voice.packs.PackError` naming the pack and where it was looked for."""
    if adapter not in ADAPTERS:
        raise ValueError(f"voice adapter {adapter!r} is not one of: {', '.join(ADAPTERS)}")
    voice_pack = load_voice_pack(pack)
    if adapter == "null":
        from controller.voice.null_voice import NullVoice

        return NullVoice(clock, voice_pack)
    from controller.voice.pygame_voice import PygameVoice

    voice_pack.speak_lines = True  # a variant's lines the pack lacks are said by espeak-ng (variant_lines.py)
    v = PygameVoice(voice_pack, clock=clock)
    v.volume = volume
    return v
