"""A table with no sound card says so in one line, not in a screen of alsa-lib's own C-level chatter.

Each case runs in a fresh Python process (the chatter is written by C code straight to file descriptor 2, so
only a real process's stderr shows it). ALSA is pointed at a card that does not exist (``ALSA_CARD``), so the
test means the same on a machine that has a sound card."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NO_CARD = {"SDL_AUDIODRIVER": "alsa", "ALSA_CARD": "tianhei-no-such-card", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **NO_CARD, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          timeout=60, check=False, cwd=ROOT)


@pytest.fixture(scope="module", autouse=True)
def alsa_chatters() -> None:
    """The control: a bare ``pygame.mixer.init`` here does print alsa-lib's lines (else nothing is tested)."""
    bare = run("import pygame.mixer\ntry:\n    pygame.mixer.init()\nexcept Exception:\n    pass\n")
    if "ALSA lib" not in bare.stderr:
        pytest.skip("this machine's alsa-lib prints nothing without a card (no ALSA configuration installed)")


def test_the_table_says_once_in_one_line_that_it_runs_silent(tmp_path: Path) -> None:
    config = tmp_path / "tianhei.toml"
    config.write_text("", encoding="utf-8")
    done = run("import logging, sys\n"
               "logging.basicConfig(level=logging.INFO, format='%(levelname)s %(name)s: %(message)s')\n"
               "from controller.config import load\n"
               "from controller.live import open_voice_for\n"
               "print(type(open_voice_for(load(sys.argv[1]), lambda: 0.0)).__name__)\n", str(config))
    assert done.stdout.strip() == "NullVoice"  # silent, still timed
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "ALSA lib" not in done.stderr and "the table runs silent" in lines[0]


def test_the_sound_check_names_the_missing_device_in_one_line() -> None:
    done = run("import sys\nfrom controller.cli.sounds import main\nsys.exit(main(['say']))\n")
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sounds say: no sound device"), done.stderr
