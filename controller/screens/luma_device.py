"""Getting a rendered screen onto a luma device.

Every transport ends in ``device.display(image)``: luma's ``ssd1306`` over I2C on the Pi, the same driver over
a serial interface that forwards its bytes on the seat bus, or luma's ``dummy`` device, which only keeps the
last image (``device.image``) for the simulator and the tests. Images from
:func:`controller.screens.render.render` are already 128x64 mode "1", so they go to any of these unchanged.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from controller.ports import SCREEN_SIZE

WIDTH, HEIGHT = SCREEN_SIZE


def dummy_device() -> Any:
    """A luma ``dummy`` device shaped like a seat's OLED: 128x64, mode "1". Its ``image`` is None until the
    first ``display``."""
    from luma.core.device import dummy

    return dummy(width=WIDTH, height=HEIGHT, mode="1")


def ssd1306_i2c(port: int = 1, address: int = 0x3C) -> Any:
    """The real panel: luma.oled's SSD1306 driver on an I2C bus (needs /dev/i2c-N, so only on a Pi)."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    return ssd1306(i2c(port=port, address=address), width=WIDTH, height=HEIGHT)


def show(device: Any, image: Image.Image) -> None:
    """Send ``image`` to ``device``, checking the shape first so a wrong image fails here, by name, rather
    than deep in a driver."""
    if image.size != (device.width, device.height):
        raise ValueError(f"screen image is {image.size[0]}x{image.size[1]}, the device is {device.width}x{device.height}")
    if image.mode != device.mode:
        image = image.convert(device.mode)
    device.display(image)


def shown(device: Any) -> Image.Image:
    """What a ``dummy`` device shows now (an all-dark screen before the first image)."""
    image = getattr(device, "image", None)
    return image if image is not None else Image.new("1", (device.width, device.height), 0)
