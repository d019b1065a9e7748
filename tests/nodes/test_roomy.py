"""firmware/lib/roomy.py pads an object's attribute table to one past its size, counting on MicroPython's own list
of table sizes (py/map.c's ``hash_allocation_sizes``). Read here from the rp2 image that the seats run: a
MicroPython whose list changed would leave the seats' tables full again without a word (a method call's look-up
then probes the whole table: firmware/PROTOCOL.md, "A frame's way to its ACK")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from controller.nodes import firmware_build

REPO = Path(__file__).resolve().parents[2]
FLASH = 0x10000000  # where firmware.bin starts in the RP2040's address space (XIP)


def image_table(name: str) -> list[int]:
    image = firmware_build.build()
    listed = subprocess.run(["arm-none-eabi-nm", "-S", str(image.elf)], capture_output=True, text=True, check=True)
    for words in (line.split() for line in listed.stdout.splitlines()):
        if len(words) == 4 and words[3] == name:
            at, size = int(words[0], 16) - FLASH, int(words[1], 16)
            data = image.firmware.read_bytes()[at:at + size]
            return [int.from_bytes(data[i:i + 2], "little") for i in range(0, size, 2)]
    raise AssertionError(f"the image has no {name}")


def test_the_table_sizes_roomy_pads_to_are_the_seats_micropythons_own(firmware):
    sys.path.insert(0, str(REPO / "firmware" / "lib"))
    try:
        import roomy
    finally:
        sys.path.remove(str(REPO / "firmware" / "lib"))
    sizes = image_table("hash_allocation_sizes")
    start = sizes.index(roomy.SIZES[0])
    assert tuple(sizes[start:start + len(roomy.SIZES)]) == roomy.SIZES
