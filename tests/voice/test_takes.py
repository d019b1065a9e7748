"""The club's judge records a prompt: a good take is trimmed to the voice and put in the pack at the pack's
loudness; a take that is silent, clipped, mostly noise, too quiet or too long for its slot is refused with its
reason, and the pack is as it was."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from controller.voice.loudness import TARGET_LUFS, loudness
from controller.voice.packs import Pack, load_voice_pack, ogg_duration
from controller.voice.recording import Recording, RecordingError, open_recording, recording_order
from controller.voice.takes import judge, read_take, slot_for

from .judge_takes import RATE, takes, wav_bytes

needs_sox = pytest.mark.usefixtures("sox")  # sox encodes the take


@pytest.fixture(scope="module")
def spoilt() -> dict[str, np.ndarray]:
    return takes()


@pytest.mark.parametrize(("take", "code", "words"), [
    ("good", "ok", "above the room"),
    ("silent", "silent", "no voice was heard"),
    ("clipped", "clipped", "clipped"),
    ("noisy", "noisy", "mostly noise"),
    ("quiet", "quiet", "too quiet"),
    ("long", "long", "too long for its slot"),
])
def test_each_kind_of_take_gets_its_verdict(spoilt: dict[str, np.ndarray], take: str, code: str, words: str) -> None:
    verdict = judge(spoilt[take], RATE, slot_s=4.0)
    assert (verdict.code, words in verdict.reason) == (code, True), verdict.reason


def test_a_slot_leaves_room_for_a_slower_judge_but_never_past_the_pack_limit() -> None:
    assert slot_for(0.5, 8.0) == 2.0  # a seat number: at least two seconds
    assert slot_for(2.0, 8.0) == 5.0
    assert slot_for(5.0, 8.0) == 8.0
    assert slot_for(float("nan"), 8.0) == 8.0


def test_what_is_not_a_wav_take_is_named() -> None:
    with pytest.raises(ValueError, match="not a WAV file"):
        read_take(b"OggS this was never decoded")
    samples, rate = read_take(wav_bytes(np.zeros(100)))
    assert rate == RATE and len(samples) == 100


def test_the_club_records_its_own_version_then_the_seats_of_its_table_first() -> None:
    ids = ["hall.game_over", "role.angel.wake", "seat.12", "seat.3", "role.killer.wake", "number.2",
           "night.falls", "ending.police_side_win", "ending.police_civilians_win", "ending.game_over"]
    order = recording_order(ids, ["killer", "police", "civilian"], "standard-2.0", players=10)
    assert order == ["role.killer.wake", "night.falls", "ending.police_side_win", "ending.game_over",  # 2.0's game
                     "seat.3", "number.2",  # the parts a 10-seat table says
                     "role.angel.wake", "ending.police_civilians_win",  # other versions
                     "seat.12",  # a seat this table does not have
                     "hall.game_over"]  # the hall's, not the table's


@pytest.fixture
def recording(tmp_path: Path) -> Recording:
    return open_recording(str(tmp_path / "our-judge"), "zh-CN", "standard-2.0", 12)


def test_a_new_recording_starts_at_the_first_prompt_of_the_game_with_nothing_recorded(recording: Recording) -> None:
    assert recording.next_prompt() == recording.order[0] == "setup.tap_card"
    assert not recording.recorded()
    assert Pack.load(recording.folder).licence is not None and Pack.load(recording.folder).licence.free
    assert recording.clip("night.falls") == recording.base.clips["night.falls"].path  # the built voice says it


@needs_sox
def test_a_good_take_is_trimmed_levelled_and_plays_in_a_half_recorded_pack(recording: Recording,
                                                                           spoilt: dict[str, np.ndarray]) -> None:
    verdict = recording.submit("night.falls", wav_bytes(spoilt["good"]))
    assert verdict.ok, verdict.reason
    clip = recording.clip("night.falls")
    assert clip == recording.folder / "night.falls.ogg"
    assert ogg_duration(clip) == pytest.approx(2.98, abs=0.1)  # the 0.6 s before and 0.5 s after are gone
    assert loudness(voice_of(clip), RATE) == pytest.approx(TARGET_LUFS, abs=0.5)
    pack = load_voice_pack(recording.folder)
    assert pack.clip("night.falls").path == clip and pack.clip("dawn.breaks").path.parent.name == "zh-CN"


def voice_of(path: Path) -> np.ndarray:
    import os

    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame.mixer

    pygame.mixer.init(frequency=RATE, size=-16, channels=1)
    try:
        return np.frombuffer(pygame.mixer.Sound(str(path)).get_raw(), "<i2") / 32768
    finally:
        pygame.mixer.quit()


@needs_sox
def test_the_judge_comes_back_later_and_goes_on_where_they_stopped(tmp_path: Path,
                                                                   spoilt: dict[str, np.ndarray]) -> None:
    first = open_recording(str(tmp_path / "our-judge"), "zh-CN", "standard-2.0", 12)
    one, two = first.order[:2]
    assert first.submit(one, wav_bytes(spoilt["good"][: RATE * 2])).ok
    again = open_recording(str(tmp_path / "our-judge"), "zh-CN", "standard-2.0", 12)
    assert again.recorded() == {one}
    assert again.next_prompt() == two


def test_a_refused_take_leaves_the_pack_as_it_was(recording: Recording, spoilt: dict[str, np.ndarray]) -> None:
    before = (recording.folder / "manifest.toml").read_text()
    verdict = recording.submit("night.falls", wav_bytes(spoilt["clipped"]))
    assert verdict.code == "clipped"
    assert (recording.folder / "manifest.toml").read_text() == before
    assert not (recording.folder / "night.falls.ogg").exists()


def test_a_prompt_that_does_not_exist_or_a_file_that_is_no_take_is_refused_by_name(recording: Recording) -> None:
    with pytest.raises(RecordingError, match=r"no prompt 'night\.rises'"):
        recording.submit("night.rises", wav_bytes(np.zeros(10)))
    with pytest.raises(RecordingError, match="16-bit"):
        import io
        import wave

        buf = io.BytesIO()
        with wave.open(buf, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(1)
            w.setframerate(RATE)
            w.writeframes(b"\x80" * 100)
        recording.submit("night.falls", buf.getvalue())


def test_a_pack_name_is_not_a_folder_to_record_into() -> None:
    from controller.voice.packs import PackError

    with pytest.raises(PackError, match="recording needs a folder"):
        open_recording("ourjudge", "zh-CN", "standard-2.0", 12)
