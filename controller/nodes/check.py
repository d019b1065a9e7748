"""Boot node images on emulated Picos and ask each for its IDENTITY: the image boots, finds its config.json, and
answers at the address it was written for (not at another's)."""

from __future__ import annotations

from pathlib import Path

from controller.bus import seatbus as sb

from .emulated_bus import EmulatedBus
from .images import NodeImage

BOOT_S = 1.0  # emulated seconds a node has to boot: MicroPython's start and the node's (about 0.1 s)
ASK_S = 0.02


def identify(bus: EmulatedBus, address: int, seq: int = 1) -> dict[str, object] | None:
    """Ask ``address`` for its IDENTITY on ``bus``; None if nothing answered within ASK_S."""
    bus.write(sb.encode_frame(address, seq, sb.IDENTIFY, b""))
    decoder = sb.Decoder()
    deadline = bus.now() + ASK_S
    while bus.now() < deadline:
        for frame in decoder.feed(bus.read(deadline - bus.now())):
            if frame.from_node and frame.addr == address and frame.mtype == sb.IDENTITY:
                return sb.decode_identity(frame.payload)
    return None


def identify_when_up(bus: EmulatedBus, address: int, within: float = BOOT_S) -> dict[str, object] | None:
    """Ask ``address`` for its IDENTITY again and again, as a master finding a node does, until it answers or
    ``within`` emulated seconds have passed: a booting node costs only the time it takes to boot."""
    deadline = bus.now() + within
    seq = 0
    while bus.now() < deadline:
        seq = seq % 255 + 1
        ident = identify(bus, address, seq)
        if ident is not None:
            return ident
    return None


def check_images(images: list[NodeImage], files: list[Path], boot_s: float = BOOT_S) -> list[str]:
    """One line per image that did not boot and answer as itself (empty: all did). The remote's image too: it
    writes its AUTH counter to flash at boot, which picobus.js carries out as the flash chip would."""
    failures = []
    with EmulatedBus() as bus:
        picos = [bus.add(path, image.config, usb=True) for image, path in zip(images, files, strict=True)]
        for image, path, pico in zip(images, files, picos, strict=True):
            ident = identify_when_up(bus, image.address, boot_s)
            if ident is None:
                said = pico.usb.strip().splitlines()[-1:] or ["nothing on its USB console"]
                failures.append(f"{path.name}: no IDENTITY from node {image.address} ({said[0]})")
    return failures
