"""The simulator window, headless (SDL's dummy video driver): it shows every seat's luma ``dummy`` screen, its
LED and the remote, and clicking a seat's buttons calls back into the table."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest

os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame opens a display
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from PIL import Image

from controller.ports import Button, RemoteKey
from controller.screens import render
from controller.screens import views as v
from controller.screens.luma_device import dummy_device, show, shown
from controller.sim.emulator import OLED_OFF, OLED_ON, Emulator


@dataclass
class FakeSeat:
    number: int
    device: Any = field(default_factory=dummy_device)
    led: tuple[int, int, int] = (0, 0, 0)

    @property
    def image(self) -> Image.Image | None:
        return self.device.image


@dataclass
class FakeRemote:
    device: Any = field(default_factory=dummy_device)

    @property
    def image(self) -> Image.Image | None:
        return self.device.image


@dataclass
class FakeTable:
    seats: dict[int, FakeSeat]
    remote: FakeRemote | None = None
    log: list[tuple[str, object, object]] = field(default_factory=list)

    def press(self, seat: int, button: Button) -> None:
        self.log.append(("press", seat, button))

    def release(self, seat: int, button: Button) -> None:
        self.log.append(("release", seat, button))

    def remote_key(self, key: RemoteKey) -> None:
        self.log.append(("remote", key, None))


@pytest.fixture
def table() -> FakeTable:
    t = FakeTable({n: FakeSeat(n) for n in range(1, 7)}, remote=FakeRemote())
    show(t.seats[3].device, render(v.NightChoice("kill", 5, v.Countdown(10, 30))))
    show(t.remote.device, render(v.JudgeStatus("Night 1", "Killers", v.Countdown(10, 30))))
    t.seats[3].led = (0, 255, 0)
    return t


@pytest.fixture
def emulator(table: FakeTable):
    emu = Emulator(table, scale=2)
    yield emu
    emu.close()


def test_seat_screens_are_shown_scaled_twice_in_oled_colours(table: FakeTable, emulator: Emulator) -> None:
    frame = emulator.snapshot()
    seat3 = table.seats[3].image
    rect = emulator.screen_rect(2)
    assert rect.size == (256, 128)
    for x, y in [(0, 0), (40, 30), (64, 32), (127, 63), (3, 10)]:
        lit = seat3.getpixel((x, y)) != 0
        assert frame.getpixel((rect.x + 2 * x + 1, rect.y + 2 * y + 1)) == (OLED_ON if lit else OLED_OFF)
    blank = emulator.screen_rect(0)  # seat 1 never displayed anything: a dark screen, not garbage
    crop = frame.crop((blank.x, blank.y, blank.right, blank.bottom))
    assert crop.getcolors() == [(crop.width * crop.height, OLED_OFF)]


def test_the_led_is_drawn_in_its_colour(table: FakeTable, emulator: Emulator) -> None:
    frame = emulator.snapshot()
    x, y = emulator._panel_origin(2)
    centre = (x + emulator.panel_size[0] - 20, y + 16)
    assert frame.getpixel(centre) == (0, 255, 0)


def test_clicking_a_seat_button_calls_the_table(table: FakeTable, emulator: Emulator) -> None:
    emulator.click(4, Button.OK)  # seat 4 presses OK
    emulator.click(2, Button.NEXT)
    assert table.log == [("press", 4, Button.OK), ("release", 4, Button.OK),
                         ("press", 2, Button.NEXT), ("release", 2, Button.NEXT)]


def test_the_remote_screen_and_keys(table: FakeTable, emulator: Emulator) -> None:
    import pygame

    rect = emulator.remote_screen_rect()
    assert rect is not None
    frame = emulator.snapshot()
    assert frame.getpixel((rect.x + 1, rect.y + 1)) == OLED_ON  # the status title bar is inverted (lit)
    centre = next(h for h in emulator.hits if h.key is RemoteKey.CENTER)
    emulator.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre.rect.center, button=1))
    assert table.log[-1] == ("remote", RemoteKey.CENTER, None)


def test_a_click_on_nothing_does_nothing_and_closing_stops(table: FakeTable, emulator: Emulator) -> None:
    import pygame

    assert emulator.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(0, 0), button=1))
    assert table.log == []
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert emulator.step() is False


def test_a_table_without_a_remote_and_with_a_list_of_seats() -> None:
    t = FakeTable({}, remote=None)
    seats = [FakeSeat(2), FakeSeat(1)]
    t.seats = seats  # type: ignore[assignment]
    emu = Emulator(t)
    try:
        assert emu.remote_screen_rect() is None
        assert [s.number for s in emu.seats()] == [1, 2]
        emu.run(until=lambda: True)  # one frame, then stop
    finally:
        emu.close()


def test_luma_dummy_device_helpers() -> None:
    device = dummy_device()
    assert (device.width, device.height, device.mode) == (128, 64, "1")
    assert shown(device).getbbox() is None
    image = render(v.Dead(4), "en")
    show(device, image)
    assert shown(device).tobytes() == image.tobytes()
    with pytest.raises(ValueError, match="screen image is 64x64"):
        show(device, Image.new("1", (64, 64)))
