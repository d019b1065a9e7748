"""The pygame.mixer voice on SDL's dummy driver: queue, urgent cut-in, masking ducked under prompts.

The dummy driver plays nothing audible, so the tests follow the adapter's own schedule (the injected clock)
and look at what it handed to the mixer's channels."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.ports import Voice
from controller.voice.packs import PART_GAP, VoicePack, load_voice_pack
from controller.voice.prompts import night_deaths, prompt, role_prompt, vote_call
from controller.voice.pygame_voice import PygameVoice

from .conftest import FakeClock

pytestmark = pytest.mark.usefixtures("mixer")


@pytest.fixture
def pack() -> VoicePack:
    return load_voice_pack("zh-CN")


@pytest.fixture
def voice(pack: VoicePack, clock: FakeClock) -> Iterator[PygameVoice]:
    v = PygameVoice(pack, clock=clock)
    yield v
    v.close()


def test_it_is_a_voice(voice: PygameVoice) -> None:
    assert isinstance(voice, Voice)


def test_say_returns_at_once_with_the_time_until_the_queue_is_said(voice: PygameVoice, pack: VoicePack,
                                                                    clock: FakeClock) -> None:
    night = voice.say([prompt("night.falls")])
    assert night == pytest.approx(pack.clip("night.falls").duration)
    wake = voice.say([role_prompt("killer", "wake")])
    assert wake == pytest.approx(night + pack.clip("role.killer.wake").duration)
    assert voice.now_playing is not None and voice.now_playing.prompts == ("night.falls",)
    assert voice._voice.get_queue() is not None  # the next one already waits in the mixer's queue


def test_the_queue_plays_in_order_as_the_clock_moves(voice: PygameVoice, clock: FakeClock) -> None:
    voice.say([prompt("dawn.breaks")])
    voice.say(night_deaths([4]))
    voice.say(vote_call(4))
    order = []
    while voice.now_playing is not None:
        if not order or order[-1] != voice.now_playing.prompts:
            order.append(voice.now_playing.prompts)
        clock.advance(voice.pump() + 0.001)
        voice.pump()
    assert order == [("dawn.breaks",), ("dawn.deaths", "seat.4"), ("seat.4", "vote.hands_for")]


def test_a_composed_sentence_is_one_sound_as_long_as_the_manifest_says(voice: PygameVoice, pack: VoicePack,
                                                                        clock: FakeClock) -> None:
    parts = ["dawn.deaths", "seat.3", "seat.7"]
    voice.say(parts)
    sound = voice._voice.get_sound()
    assert sound.get_length() == pytest.approx(pack.duration(parts), abs=0.02)
    assert pack.duration(parts) == pytest.approx(sum(pack.clip(p).duration for p in parts) + 2 * PART_GAP)


def test_an_urgent_prompt_cuts_in(voice: PygameVoice, clock: FakeClock) -> None:
    voice.say(vote_call(5))
    voice.say(vote_call(6))
    clock.advance(0.3)
    left = voice.say([prompt("error.duplicate_card")], urgent=True)
    assert voice.now_playing is not None and voice.now_playing.prompts == ("error.duplicate_card",)
    assert voice._voice.get_queue() is None  # seat 6's call was dropped with the rest of the queue
    clock.advance(left)
    assert voice.pump() == float("inf")


def test_the_masking_loop_ducks_under_prompts_and_comes_back(voice: PygameVoice, clock: FakeClock) -> None:
    voice.masking(True)
    assert voice._mask.get_busy()
    assert voice.mask_volume == pytest.approx(voice.mask_level)
    left = voice.say([role_prompt("police", "wake")])
    assert voice.mask_volume == pytest.approx(voice.duck_level)
    clock.advance(left)
    voice.pump()
    assert voice.mask_volume == pytest.approx(voice.mask_level)


def test_volume_scales_voice_and_masking(voice: PygameVoice) -> None:
    voice.volume = 0.5
    voice.masking(True)
    assert voice._voice.get_volume() == pytest.approx(0.5, abs=0.01)
    assert voice.mask_volume == pytest.approx(0.5 * voice.mask_level)
    voice.volume = 7
    assert voice.volume == 1.0


def test_beeps_play_on_their_own_channel(voice: PygameVoice, caplog: pytest.LogCaptureFixture) -> None:
    voice.say([prompt("speech.your_turn")])
    voice.beep("warning")
    assert voice._beep.get_busy()
    assert voice.now_playing is not None  # the beep did not interrupt the voice
    with caplog.at_level(logging.ERROR):
        voice.beep("klaxon")
    assert "unknown beep 'klaxon'" in caplog.text


def test_an_unknown_prompt_is_logged_and_skipped_never_raised(voice: PygameVoice, pack: VoicePack,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        left = voice.say(["seat.3", "no.such_prompt"])
    assert left == pytest.approx(pack.clip("seat.3").duration)
    assert "no.such_prompt" in caplog.text


def test_a_corrupt_file_in_a_club_pack_is_borrowed_from_the_default(make_pack, clock: FakeClock) -> None:  # type: ignore[no-untyped-def]
    club = make_pack({"night.falls": b"OggS not really"})
    pack = load_voice_pack(club)
    voice = PygameVoice(pack, clock=clock)
    assert pack.fallback is not None
    assert voice.say([prompt("night.falls")]) == pytest.approx(pack.fallback.clips["night.falls"].duration)


def test_an_undecodable_file_plays_as_silence_of_its_manifest_length(tmp_path, clock: FakeClock,  # type: ignore[no-untyped-def]
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "manifest.toml").write_text(
        '[prompts."night.falls"]\nfile = "night.falls.ogg"\nduration = 1.5\n')
    (tmp_path / "night.falls.ogg").write_bytes(b"\x00" * 64)
    voice = PygameVoice(load_voice_pack(tmp_path), clock=clock)
    with caplog.at_level(logging.ERROR):
        assert voice.say([prompt("night.falls")]) == pytest.approx(1.5)
    assert "cannot play 'night.falls'" in caplog.text
    assert voice._voice.get_sound().get_length() == pytest.approx(1.5, abs=0.01)


def test_a_mixer_running_behind_the_clock_keeps_its_next_sound(voice: PygameVoice, clock: FakeClock) -> None:
    first = voice.say(vote_call(1))
    voice.say(vote_call(2))
    voice.say(vote_call(3))
    seat2 = voice._voice.get_queue()
    clock.advance(first + 0.01)  # the clock says seat 2's call began; the mixer has not got there yet
    assert voice.pump() == pytest.approx(0.02)  # asks to be pumped again soon ...
    assert voice._voice.get_queue() is seat2  # ... rather than overwrite seat 2's call with seat 3's
    assert voice.now_playing is not None and voice.now_playing.prompts == ("seat.2", "vote.hands_for")


def test_a_variants_line_without_a_recording_is_played_in_the_fallback_voice(
        clock: FakeClock, tmp_path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A club's copy of werewolf-12 words the witch's question its own way (its file's [words.calls]), which the
    pack has not recorded: the table plays it synthesised by espeak-ng, as long as the synthesis lasts, with no
    error."""
    from controller.rules.variant import load_variant
    from controller.voice import variant_lines

    monkeypatch.setenv("TIANHEI_CACHE", str(tmp_path))
    monkeypatch.setattr(variant_lines, "_OWN", {})
    board = Path(variant_lines.__file__).resolve().parents[2] / load_variant("werewolf-12").source
    own = tmp_path / "our-werewolf.toml"
    own.write_text(board.read_text(encoding="utf-8").replace('id = "werewolf-12"', 'id = "our-werewolf"').replace(
        "昨晚他被杀了，你要用解药救他吗？", "今晚他被杀了，你要用解药救他吗？"), encoding="utf-8")
    variant_lines.register(load_variant(str(own)))
    pack = load_voice_pack("zh-CN")
    pack.speak_lines = True  # as the table's factory opens it
    v = PygameVoice(pack, clock=clock)
    try:
        with caplog.at_level(logging.ERROR):
            seconds = v.say(["seat.3", "role.witch.antidote"])
        assert not caplog.records
        line = pack.clip("role.witch.antidote")
        assert line.path.suffix == ".wav" and seconds == pytest.approx(
            pack.clip("seat.3").duration + PART_GAP + line.duration)
        assert v._clip("role.witch.antidote") is not None  # decoded by the mixer
    finally:
        v.close()
