"""UF2, the file a Pico in BOOTSEL mode takes on its USB drive: 512-byte blocks of 256 bytes each.

Written here rather than by picotool (not packaged for Debian bookworm): the format is a header, the payload and
a magic end (Microsoft's uf2 specification), with the RP2040's family ID so the bootrom accepts the blocks.
"""

from __future__ import annotations

import struct

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_FAMILY_ID = 0x00002000
RP2040_FAMILY = 0xE48BFF56
FLASH_START = 0x10000000
PAYLOAD = 256


def to_uf2(parts: list[tuple[int, bytes]]) -> bytes:
    """Blocks for each (flash offset, data) part, in order; every part padded with 0xFF to whole 256-byte pages."""
    pages: list[tuple[int, bytes]] = []
    for offset, data in parts:
        if offset % PAYLOAD:
            raise ValueError(f"a UF2 part must start on a 256-byte page, not at {offset:#x}")
        for at in range(0, len(data), PAYLOAD):
            pages.append((FLASH_START + offset + at, data[at : at + PAYLOAD].ljust(PAYLOAD, b"\xff")))
    out = bytearray()
    for number, (address, payload) in enumerate(pages):
        header = struct.pack("<8I", MAGIC_START0, MAGIC_START1, FLAG_FAMILY_ID, address, PAYLOAD, number,
                             len(pages), RP2040_FAMILY)
        out += header + payload.ljust(476, b"\x00") + struct.pack("<I", MAGIC_END)
    return bytes(out)


def from_uf2(data: bytes) -> dict[int, bytes]:
    """The pages a UF2 file writes, by flash offset (what a Pico's bootrom would program)."""
    if len(data) % 512:
        raise ValueError(f"a UF2 file is whole 512-byte blocks; this one has {len(data)} bytes")
    pages: dict[int, bytes] = {}
    for at in range(0, len(data), 512):
        magic0, magic1, _flags, address, size, _n, _total, _family = struct.unpack_from("<8I", data, at)
        (end,) = struct.unpack_from("<I", data, at + 508)
        if (magic0, magic1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise ValueError(f"block {at // 512} of the UF2 file is not a UF2 block")
        pages[address - FLASH_START] = data[at + 32 : at + 32 + size]
    return pages
