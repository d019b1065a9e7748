"""Seat screens: luma's ssd1306 driver over the multiplexed bus, checked byte by byte against the SSD1306
datasheet, and the TCA9548A channel switched before every transfer, with no interleaving between seats."""

from __future__ import annotations

import sys
import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from controller.gpio.fakes import FakeI2cBus, Ssd1306Model
from controller.gpio.i2c import SharedBus
from controller.gpio.oled import MuxedI2cSerial, OledScreen, page_buffer

from .rig import Rig, make_rig

# SSD1306 datasheet §10 / application note init for a 128x64 panel with the internal charge pump.
INIT_128x64 = [
    0xAE,  # display off
    0xD5, 0x80,  # clock divide ratio / oscillator frequency
    0xA8, 0x3F,  # multiplex ratio 64
    0xD3, 0x00,  # display offset 0
    0x40,  # start line 0
    0x8D, 0x14,  # charge pump on
    0x20, 0x00,  # horizontal addressing mode
    0xA1,  # segment remap (column 127 = SEG0)
    0xC8,  # COM scan direction remapped
    0xDA, 0x12,  # COM pins: alternative configuration
    0xD9, 0xF1,  # pre-charge period
    0xDB, 0x40,  # VCOMH deselect level
    0xA4,  # display follows RAM
    0xA6,  # normal (not inverted)
    0x81, 0xCF,  # contrast
]
WINDOW = [0x21, 0x00, 0x7F, 0x22, 0x00, 0x07]  # column 0..127, page 0..7


def screen_on_channel(channel: int, rotate: int = 0) -> tuple[FakeI2cBus, Ssd1306Model, OledScreen]:
    bus = FakeI2cBus()
    model = Ssd1306Model()
    bus.attach(0x3C, model, channel)
    screen = OledScreen(MuxedI2cSerial(SharedBus(bus, 0x70).channel(channel)), rotate=rotate)
    return bus, model, screen


def test_init_sequence_matches_the_datasheet() -> None:
    _, model, _ = screen_on_channel(2)
    assert model.commands[: len(INIT_128x64)] == INIT_128x64
    rest = model.commands[len(INIT_128x64) :]
    assert rest == [*WINDOW, 0xAF], "clear the RAM, then display on"
    assert model.data == [0] * 1024


def test_frame_bytes_are_pages_of_vertical_bytes() -> None:
    _, model, screen = screen_on_channel(0)
    model.data.clear()
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.point((0, 0), fill=1)  # page 0, column 0, bit 0
    draw.point((5, 9), fill=1)  # page 1, column 5, bit 1
    draw.point((127, 63), fill=1)  # page 7, column 127, bit 7
    screen.show(image)
    expected = [0] * 1024
    expected[0] = 0x01
    expected[128 + 5] = 0x02
    expected[1023] = 0x80
    assert model.data == expected
    assert model.commands[-6:] == WINDOW


def test_a_screen_mounted_upside_down_is_rotated_by_luma() -> None:
    _, model, screen = screen_on_channel(0, rotate=2)
    model.data.clear()
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)
    screen.show(image)
    assert model.commands[-6:] == [0x21, 0x00, 0x7F, 0x22, 0x07, 0x07], "only the bottom page changed"
    assert model.data[-1] == 0x80 and sum(model.data) == 0x80


def test_a_countdown_digit_sends_only_the_pages_it_touches() -> None:
    _, model, screen = screen_on_channel(4)
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((100, 20, 110, 30), fill=1)  # rows 20..30: pages 2 and 3
    model.data.clear()
    screen.show(image)
    assert model.commands[-6:] == [0x21, 0x00, 0x7F, 0x22, 0x02, 0x03]
    assert len(model.data) == 256


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=1024, max_size=1024), st.sampled_from([0, 2]))
def test_page_buffer_agrees_with_lumas_own_encoding(pixels: bytes, rotate: int) -> None:
    image = Image.frombytes("1", (128, 64), pixels)
    _, model, screen = screen_on_channel(0, rotate=rotate)
    model.data.clear()
    screen.device.display(image)  # luma's own frame encoder
    assert bytes(model.data) == page_buffer(screen.device.preprocess(image))


def test_an_unchanged_frame_is_not_sent_again() -> None:
    bus, _, screen = screen_on_channel(1)
    image = Image.new("1", (128, 64), 1)
    screen.show(image)
    sent = len(bus.log)
    screen.show(image.copy())
    assert len(bus.log) == sent


def test_the_mux_channel_is_switched_before_every_transfer(rig: Rig) -> None:
    rig.bus.log.clear()
    for number, seat in rig.table.seats.items():
        seat.display(Image.new("1", (128, 64), number % 2))
    rig.table.flush_frames()
    rig.table.scheduler.poll_round()
    log = rig.bus.log
    device_transfers = [i for i, t in enumerate(log) if t.address != 0x70 and t.address not in (0x20, 0x21, 0x22)]
    assert device_transfers
    for i in device_transfers:
        select = log[i - 1]
        assert select.address == 0x70 and select.op == "w", f"transfer {i} was not preceded by a channel switch"


def test_seats_drawing_from_many_threads_never_interleave() -> None:
    rig = make_rig()
    rig.table.start(rig.events.append, thread=False)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        def draw(seat: int) -> None:
            for frame in range(4):
                screen = rig.table.seats[seat].screen  # type: ignore[attr-defined]
                screen.show(Image.new("1", (128, 64), (seat + frame) % 2))

        threads = [threading.Thread(target=draw, args=(s,), name=f"seat-{s}") for s in rig.table.seats]
        poller = threading.Thread(target=lambda: [rig.table.scheduler.poll_round() for _ in range(5)])
        for t in [*threads, poller]:
            t.start()
        for t in [*threads, poller]:
            t.join()
    finally:
        sys.setswitchinterval(old)
        rig.table.stop()
    channel_of = {s.number: s.mux_channel for s in rig.profile.seats}
    log = rig.bus.log
    for i, transfer in enumerate(log):
        if transfer.address == 0x3C:
            seat = int(transfer.thread.split("-")[1]) if transfer.thread.startswith("seat-") else None
            if seat is not None:
                assert transfer.channels == 1 << channel_of[seat], f"seat {seat}'s bytes went to another channel"
            previous = log[i - 1]
            assert previous.address == 0x70 and previous.thread == transfer.thread, "another thread got in between"
    # every seat's screen ended up with its last frame
    for number, model in rig.screens.items():
        assert model.data[-1] == (0xFF if (number + 3) % 2 else 0x00)
