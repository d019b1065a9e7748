"""The simulator window, headless (SDL's dummy video driver): it shows every seat's luma ``dummy`` screen, its
LED and the remote, and clicking a seat's buttons calls back into the table."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame opens a display
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from PIL import Image

from controller.ports import Button, RemoteKey
from controller.screens import render
from controller.screens import views as v
from controller.screens.luma_device import dummy_device, show, shown
from controller.sim.emulator import (
    DESKTOP_MARGIN,
    OLED_OFF,
    OLED_ON,
    SCALES,
    Emulator,
    available_size,
    fit,
    window_size,
)


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


# -- the window fits the display ------------------------------------------------------------------------------

def eight_seats_and_the_remote() -> FakeTable:
    return FakeTable({n: FakeSeat(n) for n in range(1, 9)}, remote=FakeRemote())


def assert_everything_inside(emu: Emulator) -> None:
    w, h = emu.surface.get_size()
    window = pygame_rect(0, 0, w, h)
    rects = [emu.screen_rect(i) for i in range(len(emu.seats()))] + [h.rect for h in emu.hits]
    remote = emu.remote_screen_rect()
    if remote is not None:
        rects.append(remote)
    for rect in rects:
        assert window.contains(rect), f"{rect} is outside the {w}x{h} window"
    buttons = [h.rect for h in emu.hits]
    for i, a in enumerate(buttons):
        assert a.collidelist(buttons[i + 1:]) == -1, f"button {a} overlaps another"


def pygame_rect(*xywh: int) -> Any:
    import pygame

    return pygame.Rect(*xywh)


def test_eight_seats_and_the_remote_fit_a_1280x720_laptop_screen() -> None:
    emu = Emulator(eight_seats_and_the_remote(), max_size=(1264, 648))
    try:
        w, h = emu.surface.get_size()
        assert w <= 1264 and h <= 648
        assert emu.scale == 2 and emu.screen_rect(0).size == (256, 128)  # the seat screens stay crisp, x2
        assert_everything_inside(emu)
    finally:
        emu.close()


def test_without_a_size_the_window_fits_the_desktop_pygame_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    import pygame

    class SmallDisplay:  # what pygame.display.Info() says on an 800x600 panel
        current_w, current_h = 800, 600

    monkeypatch.setattr(pygame.display, "Info", SmallDisplay)
    table = eight_seats_and_the_remote()
    emu = Emulator(table)
    try:
        w, h = emu.surface.get_size()
        assert emu.max_size == (800 - DESKTOP_MARGIN[0], 600 - DESKTOP_MARGIN[1])
        assert w <= emu.max_size[0] and h <= emu.max_size[1] and emu.scale == 1
        assert_everything_inside(emu)
        emu.click(8, Button.OK)  # seat 8 presses OK in the small window
        assert table.log == [("press", 8, Button.OK), ("release", 8, Button.OK)]
    finally:
        emu.close()


def test_a_driver_that_reports_no_desktop_size_gets_1280x720(monkeypatch: pytest.MonkeyPatch) -> None:
    import pygame

    class Unknown:
        current_w = current_h = -1

    monkeypatch.setattr(pygame.display, "Info", Unknown)
    assert available_size() == (1280 - DESKTOP_MARGIN[0], 720 - DESKTOP_MARGIN[1])


def test_a_big_display_gets_bigger_screens_and_a_wide_one_more_columns() -> None:
    assert fit(8, True, (2544, 1368))[0] == 3  # a 1440p desktop: x3 seat screens
    assert fit(8, True, (1264, 648)) == (2, 3)  # 1280x720: x2 in three columns, the remote beside them
    wide, tall = fit(8, False, (2400, 700)), fit(8, False, (700, 1800))
    assert wide[1] > tall[1]


def test_a_display_too_small_for_anything_warns_and_uses_x1(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING"):
        scale, cols = fit(12, True, (320, 240))
    assert scale == 1 and 1 <= cols <= 12
    assert "larger than the 320x240 available" in caplog.text


def test_a_given_scale_and_columns_are_kept() -> None:
    assert fit(8, True, (400, 300), scale=2, columns=4) == (2, 4)
    assert fit(8, True, (4000, 3000), scale=1)[0] == 1


@settings(max_examples=200, deadline=None)
@given(seats=st.integers(1, 20), remote=st.booleans(), w=st.integers(200, 4000), h=st.integers(150, 2200))
def test_the_chosen_layout_fits_at_the_largest_scale_that_can(seats: int, remote: bool, w: int, h: int) -> None:
    scale, cols = fit(seats, remote, (w, h))
    ww, wh = window_size(seats, remote, scale, cols)
    fits = ww <= w and wh <= h
    if fits:
        bigger = [s for s in SCALES if s > scale]
        for s in bigger:
            for c in range(1, seats + 1):
                bw, bh = window_size(seats, remote, s, c)
                assert bw > w or bh > h, f"x{s} in {c} columns would fit too"
    else:
        assert scale == min(SCALES)
