"""Every node of a bus table as a UF2 a club drops onto its Pico: ``seat-01.uf2`` … and ``remote.uf2``.

Each holds the rp2 firmware (``./dev firmware``) and that node's ``config.json`` (its address, the Pico board's
pins, the remote's pairing key), so a new Pico needs nothing else: hold BOOTSEL, plug it in, drop the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config.profile import Profile

from .node_image import node_uf2

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"


@dataclass(frozen=True)
class NodeImage:
    name: str  # seat-05, remote
    address: int
    config: dict[str, Any]


def _example(name: str) -> dict[str, Any]:
    return dict(json.loads((FIRMWARE_DIR / name).read_text(encoding="utf-8")))


def plan(profile: Profile, remote_key: bytes | None) -> list[NodeImage]:
    """The nodes of ``profile``'s bus: one per seat (its ``node`` address, else its number) and the remote."""
    if profile.bus is None:
        raise ValueError(f"hardware {profile.name!r} has no seat bus: only a bus table's nodes run firmware/")
    images: list[NodeImage] = []
    for seat in profile.seats:
        address = seat.node or seat.number
        config = _example("config.example.json")
        config["address"] = address
        config["uart"]["baud"] = profile.bus.baud  # the line's speed is the profile's, on every node
        if "nfc" in config:
            config["nfc"]["baud"] = profile.bus.reader_spi_hz
        images.append(NodeImage(f"seat-{seat.number:02d}", address, config))
    if profile.bus.remote_address is not None:
        config = _example("config.remote.example.json")
        config["address"] = profile.bus.remote_address
        config["uart"]["baud"] = profile.bus.baud
        if remote_key is None:
            raise ValueError("the remote's image needs its pairing key (tianhei remote pair makes it)")
        config["key"] = remote_key.hex()
        images.append(NodeImage("remote", profile.bus.remote_address, config))
    return images


def write_images(images: list[NodeImage], firmware: bytes, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for image in images:
        path = out / f"{image.name}.uf2"
        path.write_bytes(node_uf2(firmware, image.config))
        if image.name == "remote":
            path.chmod(0o600)  # it holds the pairing key
        written.append(path)
    return written
