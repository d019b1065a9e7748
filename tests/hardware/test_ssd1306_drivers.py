"""Published SSD1306 drivers against both fake SSD1306s (the controller's and the firmware's): Adafruit's
adafruit-circuitpython-ssd1306 (one command byte per transfer, Co = 1) and luma.oled (command runs, Co = 0, data
in 32-byte smbus blocks). After a frame is drawn, each fake's display RAM equals the driver's own buffer, pixel
for pixel; the init sequence decodes into whole commands of the SSD1306 command table."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image, ImageDraw

from controller.gpio.fakes import HORIZONTAL, SSD1306_COMMANDS, FakeI2cBus, Ssd1306Model
from controller.gpio.i2c import SharedBus
from controller.gpio.oled import MuxedI2cSerial, OledScreen

from .conftest import env_int
from .fw import FirmwareSsd1306, firmware_module
from .shims import BusioI2c, SmbusShim, VirtualTime

FAKES = ["controller-model", "firmware-fake"]


def make_fake(kind: str) -> Any:
    return Ssd1306Model() if kind == "controller-model" else FirmwareSsd1306()


def on_bus(fake: Any, channel: int | None = None) -> FakeI2cBus:
    bus = FakeI2cBus(mux_address=0x70)
    bus.attach(0x3C, fake, channel=channel)
    return bus


def assert_same_pixels(fake: Any, pixel: Any, width: int = 128, height: int = 64) -> None:
    wrong = [(x, y) for y in range(height) for x in range(width) if fake.pixel(x, y) != bool(pixel(x, y))]
    assert not wrong, f"{len(wrong)} pixels differ, first {wrong[:5]}"


def draw_something(display: Any) -> None:
    display.fill(0)
    display.rect(0, 0, 128, 64, 1)
    display.line(0, 0, 127, 63, 1)
    display.fill_rect(90, 8, 20, 20, 1)
    for x in range(10, 60, 3):
        display.pixel(x, 40 + x % 7, 1)


@pytest.mark.parametrize("kind", FAKES)
def test_adafruits_init_sequence_is_whole_commands_of_the_table(kind: str, vtime: VirtualTime) -> None:
    import adafruit_ssd1306

    fake = make_fake(kind)
    adafruit_ssd1306.SSD1306_I2C(128, 64, BusioI2c(on_bus(fake)))
    assert fake.display_on
    assert not any(fake.ram), "init clears the display RAM"
    if isinstance(fake, Ssd1306Model):
        assert fake.charge_pump and fake.contrast == 0xFF and fake.mode == HORIZONTAL
        assert fake.unknown == [0xAD], "only the SSD1315's IREF command is outside the SSD1306 table"
        assert not fake._pending, "no command left waiting for its arguments"


@pytest.mark.parametrize("kind", FAKES)
@pytest.mark.parametrize("page_addressing", [False, True])
def test_a_frame_drawn_by_adafruits_driver_is_in_the_fakes_ram_pixel_for_pixel(
        kind: str, page_addressing: bool, vtime: VirtualTime) -> None:
    import adafruit_ssd1306

    fake = make_fake(kind)
    display = adafruit_ssd1306.SSD1306_I2C(128, 64, BusioI2c(on_bus(fake)), page_addressing=page_addressing)
    draw_something(display)
    display.show()
    assert bytes(fake.ram) == bytes(display.buffer[1:])
    assert_same_pixels(fake, display.pixel)
    if page_addressing and isinstance(fake, Ssd1306Model):
        # 20h 10h: A[1:0] = 00b is horizontal addressing (Table 9-1); the page commands then do nothing and the
        # frame lands only because the pages are written in order from (0, 0).
        assert fake.mode == HORIZONTAL


@pytest.mark.parametrize("kind", FAKES)
def test_a_frame_drawn_with_luma_is_in_the_fakes_ram_pixel_for_pixel(kind: str) -> None:
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    fake = make_fake(kind)
    device = ssd1306(i2c(bus=SmbusShim(on_bus(fake)), address=0x3C), width=128, height=64)
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    draw.ellipse((10, 5, 70, 60), outline=1)
    draw.text((75, 20), "seat 3", fill=1)
    device.display(image)
    assert_same_pixels(fake, lambda x, y: image.getpixel((x, y)))


@pytest.mark.parametrize("kind", FAKES)
def test_our_screen_driver_behind_the_mux_lands_every_pixel(kind: str) -> None:
    fake = make_fake(kind)
    bus = on_bus(fake, channel=5)
    screen = OledScreen(MuxedI2cSerial(SharedBus(bus, 0x70).channel(5)))
    for n in range(3):  # whole frames, then frames where only some pages change
        image = Image.new("1", (128, 64))
        ImageDraw.Draw(image).rectangle((5 + 20 * n, 10, 30 + 20 * n, 20 + 10 * n), fill=1)
        screen.show(image)
        assert_same_pixels(fake, lambda x, y, im=image: im.getpixel((x, y)))


@pytest.mark.parametrize("kind", FAKES)
def test_the_firmwares_driver_writes_where_it_says(kind: str) -> None:
    fw = firmware_module("ssd1306")
    fake = make_fake(kind)
    bus = on_bus(fake)

    class I2c:
        def writeto(self, addr: int, buf: bytes) -> None:
            bus.write(addr, buf)

    oled = fw.SSD1306(I2c())
    oled.init()
    assert fake.display_on and not any(fake.ram)
    oled.write(3, 40, bytes([0xFF, 0x81, 0x42]))
    assert bytes(fake.ram[3 * 128 + 40 : 3 * 128 + 43]) == bytes([0xFF, 0x81, 0x42])
    assert sum(map(bool, fake.ram)) == 3


@pytest.mark.parametrize("kind", FAKES)
def test_the_firmwares_driver_sends_the_window_only_where_the_panel_is_not_already(kind: str) -> None:
    """The node draws in chunks that follow each other (node.py's _flush): the panel's pointer moves on by itself,
    and to the window's first column at a page's end, so the driver sends a window only where a chunk does not
    start where the last one ended, or where the wrap went to a column other than 0."""
    fw = firmware_module("ssd1306")
    fake = make_fake(kind)
    bus = on_bus(fake)
    windows = []

    class I2c:
        def writeto(self, addr: int, buf: bytes) -> None:
            if buf[0] == 0x00:
                windows.append(bytes(buf))
            bus.write(addr, buf)

    oled = fw.SSD1306(I2c())
    oled.init()
    windows.clear()
    picture = bytes((i * 7 + 3) & 0xFF for i in range(1024))
    for lo in range(0, 1024, 32):  # a whole new picture, chunk after chunk
        oled.write(lo >> 7, lo & 127, picture, lo, lo + 32)
    assert bytes(fake.ram) == picture
    assert len(windows) == 1, "one window for the whole picture"
    oled.write(2, 40, bytes(88), 0, 88)  # page 2 from column 40 to its end: the pointer wraps to column 40
    oled.write(3, 0, bytes(10), 0, 10)  # so page 3's first chunk needs its window
    oled.write(3, 10, bytes(5), 0, 5)  # and the one after it does not
    assert len(windows) == 3
    expected = bytearray(picture)
    expected[2 * 128 + 40 : 3 * 128] = bytes(88)
    expected[3 * 128 : 3 * 128 + 15] = bytes(15)
    assert bytes(fake.ram) == bytes(expected)


def test_both_fakes_know_the_same_command_table() -> None:
    from .fw import fake_machine

    sizes = fake_machine().SSD1306_SIZES
    for op, (size, _name) in SSD1306_COMMANDS.items():
        assert sizes[op] == size, f"command {op:#04x}"
    assert {op for op, size in sizes.items() if size > 1} == {op for op, (size, _) in SSD1306_COMMANDS.items()
                                                               if size > 1} | {0xAD}


@pytest.mark.real_hardware
def test_the_real_screen_takes_adafruits_init_and_a_frame(real_i2c: Any) -> None:
    import adafruit_ssd1306
    from adafruit_tca9548a import TCA9548A

    channel = TCA9548A(BusioI2c(real_i2c), env_int("TIANHEI_TEST_MUX", "0x70"))[env_int("TIANHEI_TEST_CHANNEL", "0")]
    display = adafruit_ssd1306.SSD1306_I2C(128, 64, channel)  # every byte acknowledged, or OSError
    draw_something(display)
    display.show()
    status = bytearray(1)
    while not channel.try_lock():
        pass
    try:
        channel.readfrom_into(0x3C, status)
    finally:
        channel.unlock()
    assert not status[0] & 0x40, "status register D6: the display is on"
