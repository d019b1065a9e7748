"""``tianhei sounds record``: the club's judge records from a microphone on the Pi (a scripted judge and a
microphone that plays files stand in for the person and arecord), or hands a folder of takes recorded elsewhere."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.cli import sounds as sounds_cli
from controller.cli.sounds_record import run_record
from controller.voice.microphone import Arecord, MicrophoneError
from controller.voice.recording import open_recording

from .judge_takes import takes, wav_bytes, write_takes

pytestmark = pytest.mark.usefixtures("sox")  # sox finishes a take


def args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tianhei")
    sounds_cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["sounds", "record", *argv])


def test_a_folder_of_takes_recorded_elsewhere_is_judged_take_by_take(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    files = write_takes(tmp_path / "raw")
    studio = tmp_path / "studio"
    studio.mkdir()
    shutil.copy(files["good"], studio / "night.falls.wav")
    shutil.copy(files["clipped"], studio / "dawn.breaks.wav")
    shutil.copy(files["noisy"], studio / "vote.begins.wav")
    code = run_record(args(str(tmp_path / "our-judge"), "--takes", str(studio)))
    out = capsys.readouterr().out
    assert code == 1  # a take was refused: the club hears of it
    assert "night.falls: kept:" in out
    assert "dawn.breaks: refused: the recording is clipped" in out
    assert "vote.begins: refused: mostly noise" in out
    assert "1 take(s) kept, 2 refused" in out
    assert open_recording(str(tmp_path / "our-judge"), "zh-CN", "standard-2.0", 12).recorded() == {"night.falls"}


class FileMicrophone:
    """arecord's stand-in: each take is the next file the judge 'says', recorded when the judge presses Enter."""

    def __init__(self, said: Iterator[bytes]) -> None:
        self.said = said
        self.asked: list[str] = []

    def take(self, prompt_id: str, max_s: float, wait: Callable[[], object]) -> bytes:
        self.asked.append(prompt_id)
        wait()
        return next(self.said)


def test_the_judge_records_retakes_skips_and_stops_then_goes_on_later(tmp_path: Path, monkeypatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    spoilt = takes()
    mic = FileMicrophone(iter([wav_bytes(spoilt["clipped"]), wav_bytes(spoilt["good"]), wav_bytes(spoilt["good"])]))
    monkeypatch.setattr("controller.voice.microphone.Arecord", lambda device: mic)
    played: list[Path] = []
    keys = iter([
        "h",  # hear what the table says for the first prompt now (the built voice)
        "", "",  # record, stop: clipped, refused; the same prompt again
        "", "", "p", "r",  # record, stop: kept; play it back; take it again
        "", "", "",  # record, stop: kept; next
        "s",  # skip the second prompt
        "q",  # stop for tonight
    ])
    code = run_record(args(str(tmp_path / "our-judge")), ask=lambda _prompt: next(keys), play=played.append)
    out = capsys.readouterr().out
    assert code == 0
    first, second = open_recording(str(tmp_path / "our-judge"), "zh-CN", "standard-2.0", 12).order[:2]
    assert mic.asked == [first, first, first]
    assert played[0].parent.name == "zh-CN" and played[1] == tmp_path / "our-judge" / f"{first}.ogg"
    assert f"{first}: refused: the recording is clipped" in out
    assert "run it again to go on from there" in out
    again = open_recording(str(tmp_path / "our-judge"), "zh-CN", "standard-2.0", 12)
    assert again.recorded() == {first} and again.next_prompt() == second  # skipped tonight, first next time


def test_without_arecord_the_judge_is_told_what_to_install(monkeypatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(MicrophoneError, match="apt-get install alsa-utils"):
        Arecord()
