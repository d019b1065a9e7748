"""Fixtures for the voice: a clock the test moves by hand, pygame's mixer on SDL's dummy driver (no sound card),
and tiny club packs made from the committed clips."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from controller.voice.packs import SOURCE_PACKS

DATA = Path(__file__).parent / "data"
ZH = SOURCE_PACKS / "zh-CN"


class FakeClock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def mixer(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """pygame.mixer on the dummy audio driver, set for this test only."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame.mixer

    pygame.mixer.quit()
    pygame.mixer.init(frequency=22050, size=-16, channels=1)
    yield
    pygame.mixer.quit()


MakePack = Callable[[Mapping[str, Path | bytes | None]], Path]


@pytest.fixture
def make_pack(tmp_path: Path) -> MakePack:
    """``make_pack({"night.falls": ZH / "night.falls.ogg", "dawn.breaks": b"garbage", "x.y": None})`` writes a
    club pack: a file copied, raw bytes written, or (None) a manifest entry whose file is absent. Durations are
    left out, so the pack reads them from the files, as a club's hand-written manifest would."""
    counter = iter(range(1000))

    def make(entries: Mapping[str, Path | bytes | None]) -> Path:
        root = tmp_path / f"club{next(counter)}"
        root.mkdir()
        lines = ['[pack]\nname = "club"\nlanguage = "zh-CN"\n']
        for pid, source in entries.items():
            file = f"{pid}.ogg"
            if isinstance(source, Path):
                shutil.copy(source, root / file)
            elif isinstance(source, bytes):
                (root / file).write_bytes(source)
            lines.append(f"[prompts.{json.dumps(pid)}]\nfile = {json.dumps(file)}\ntext = \"recorded\"\n")
        (root / "manifest.toml").write_text("\n".join(lines), encoding="utf-8")
        return root

    return make
