"""Choosing the voice from configuration."""

from __future__ import annotations

import pytest

from controller.ports import Voice
from controller.voice.factory import open_voice
from controller.voice.null_voice import NullVoice
from controller.voice.packs import PackError
from controller.voice.pygame_voice import PygameVoice

from .conftest import FakeClock


def test_the_null_voice_with_the_english_pack(clock: FakeClock) -> None:
    voice = open_voice("null", "en", clock=clock)
    assert isinstance(voice, NullVoice) and isinstance(voice, Voice)
    assert voice.pack is not None and voice.pack.name == "en"


@pytest.mark.usefixtures("mixer")
def test_the_pygame_voice_at_half_volume(clock: FakeClock) -> None:
    voice = open_voice("pygame", clock=clock, volume=0.5)
    assert isinstance(voice, PygameVoice)
    assert voice.volume == 0.5 and voice.pack.name == "zh-CN"


def test_a_config_typo_names_the_choices() -> None:
    with pytest.raises(ValueError, match="voice adapter 'pygme' is not one of: pygame, null"):
        open_voice("pygme")
    with pytest.raises(PackError, match="voice pack 'zh-TW' not found"):
        open_voice("null", "zh-TW")
