"""One node's flash image: the rp2 firmware (with firmware/ frozen in) and that node's ``config.json`` in the
littlefs the port mounts at boot, as one UF2 a club drops onto a Pico in BOOTSEL mode.

littlefs-python (PyPI) writes the filesystem with the geometry MicroPython mounts (flash_layout.py), so the node
finds its config at its first boot, as if it had been copied with mpremote.
"""

from __future__ import annotations

import json
from typing import Any

from . import flash_layout as fl
from .uf2 import to_uf2


def _littlefs(storage: bytes | None) -> Any:
    """littlefs with the port's geometry: a new, empty one, or ``storage`` (a whole storage area) mounted."""
    try:
        from littlefs import LittleFS
    except ImportError as err:
        raise RuntimeError("littlefs-python is missing: `pip install littlefs-python` (it is in the [dev] "
                           "and [nodes] extras)") from err
    fs = LittleFS(block_size=fl.BLOCK_SIZE, block_count=fl.BLOCK_COUNT, prog_size=fl.PROG_SIZE,
                  read_size=fl.READ_SIZE, lookahead_size=fl.LOOKAHEAD_SIZE, mount=storage is None)
    if storage is not None:
        fs.context.buffer = bytearray(storage)
        fs.mount()
    return fs


def littlefs_image(files: dict[str, bytes]) -> bytes:
    """A whole storage area (1408 KiB) holding ``files`` at its root."""
    fs = _littlefs(None)
    for name, data in files.items():
        with fs.open(name, "wb") as handle:
            handle.write(data)
    return bytes(fs.context.buffer)


def littlefs_file(storage: bytes, name: str) -> bytes:
    """The file ``name`` at the root of a storage area (read back from a node's flash, or from an image)."""
    with _littlefs(storage).open(name, "rb") as handle:
        return bytes(handle.read())


def node_uf2(firmware: bytes, config: dict[str, object]) -> bytes:
    """The UF2 for one node: ``firmware`` (firmware.bin) at the start of flash, ``config`` as its config.json."""
    if len(firmware) > fl.STORAGE_OFFSET:
        raise ValueError(f"the firmware ({len(firmware)} bytes) runs into the filesystem at {fl.STORAGE_OFFSET:#x}")
    text = json.dumps(config, indent=1, sort_keys=True).encode()
    return to_uf2([(0, firmware), (fl.STORAGE_OFFSET, littlefs_image({"config.json": text}))])
