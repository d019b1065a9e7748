"""The null voice: what the table would say, and when, on the test's clock."""

from __future__ import annotations

import pytest

from controller.ports import Voice
from controller.voice.null_voice import NullVoice
from controller.voice.packs import PART_GAP, UnknownPrompt, load_voice_pack
from controller.voice.prompts import night_deaths, prompt, role_prompt, speech_turn, vote_call

from .conftest import FakeClock


def test_it_is_a_voice() -> None:
    assert isinstance(NullVoice(FakeClock()), Voice)


def test_prompts_queue_back_to_back(clock: FakeClock) -> None:
    voice = NullVoice(clock, part_seconds=1.0)
    assert voice.say([prompt("night.falls")]) == 1.0
    # The killers' call waits for "night falls" to end: 1 s, then two parts with a gap.
    assert voice.say([role_prompt("killer", "wake"), role_prompt("killer", "act")]) == pytest.approx(3 + PART_GAP)
    first, second = voice.said
    assert (first.start, first.end) == (1000.0, 1001.0)
    assert second.start == 1001.0
    clock.advance(1.5)
    assert voice.speaking() is second


def test_after_the_queue_drains_a_prompt_starts_at_once(clock: FakeClock) -> None:
    voice = NullVoice(clock, part_seconds=0.5)
    voice.say([prompt("dawn.breaks")])
    clock.advance(10)
    assert voice.say(speech_turn(3)) == pytest.approx(1.0 + PART_GAP)
    assert voice.said[-1].start == clock.now


def test_an_urgent_prompt_cuts_in_and_drops_the_queue(clock: FakeClock) -> None:
    voice = NullVoice(clock, part_seconds=1.0)
    voice.say(vote_call(5))
    voice.say(vote_call(6))
    clock.advance(0.5)
    assert voice.say([prompt("game.paused")], urgent=True) == 1.0
    assert [u.prompts for u in voice.cut_off] == [("seat.5", "vote.hands_for"), ("seat.6", "vote.hands_for")]
    assert voice.speaking() is voice.said[-1]


def test_durations_come_from_the_pack_manifest(clock: FakeClock) -> None:
    pack = load_voice_pack("zh-CN")
    voice = NullVoice(clock, pack)
    expected = pack.clip("dawn.deaths").duration + pack.clip("seat.3").duration + PART_GAP
    assert voice.duration(night_deaths([3])) == pytest.approx(expected)


def test_with_a_pack_an_unknown_prompt_fails_the_test(clock: FakeClock) -> None:
    voice = NullVoice(clock, load_voice_pack("en"))
    with pytest.raises(UnknownPrompt, match=r"night\.fell"):
        voice.say(["night.fell"])


def test_masking_and_beeps_are_recorded_with_their_time(clock: FakeClock) -> None:
    voice = NullVoice(clock)
    voice.masking(True)
    clock.advance(20)
    voice.beep("warning")
    clock.advance(10)
    voice.beep("final")
    voice.masking(False)
    assert [(c.at - 1000, c.what) for c in voice.cues] == [
        (0, "masking on"), (20, "beep warning"), (30, "beep final"), (30, "masking off")]
