"""The files a club drops onto its Picos: UF2 blocks the RP2040 bootrom takes, the node's config.json in the
littlefs MicroPython mounts, one image per node of a bus table (controller/nodes). Pure and fast: the images are
booted on emulated Picos in test_emulated_seat.py and by ``tianhei nodes image --check``."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from controller.config.profile import load_profile
from controller.nodes import firmware_build
from controller.nodes import flash_layout as fl
from controller.nodes.images import plan, write_images
from controller.nodes.node_image import littlefs_file, node_uf2
from controller.nodes.uf2 import RP2040_FAMILY, from_uf2, to_uf2

FIRMWARE = bytes(range(256)) * 4 + b"\x01\x02\x03"  # 1027 bytes: not a whole number of pages


def test_uf2_blocks_carry_the_rp2040_family_and_count_themselves():
    data = to_uf2([(0, FIRMWARE)])
    assert len(data) == 5 * 512  # 1027 bytes -> 5 pages of 256
    for number in range(5):
        header = struct.unpack_from("<8I", data, number * 512)
        assert header[3] == 0x10000000 + 256 * number  # flash address, XIP
        assert (header[5], header[6], header[7]) == (number, 5, RP2040_FAMILY)
    pages = from_uf2(data)
    assert b"".join(pages[o] for o in sorted(pages))[: len(FIRMWARE)] == FIRMWARE
    assert pages[1024][3:] == b"\xff" * 253  # the last page padded as erased flash


def test_a_part_must_start_on_a_page():
    with pytest.raises(ValueError, match="256-byte page"):
        to_uf2([(100, b"x")])


def test_seat_5s_image_holds_its_config_where_micropython_mounts_its_littlefs():
    config = {"role": "seat", "address": 5}
    pages = from_uf2(node_uf2(FIRMWARE, config))
    storage = bytearray(b"\xff" * fl.STORAGE_BYTES)
    for offset, page in pages.items():
        if offset >= fl.STORAGE_OFFSET:
            storage[offset - fl.STORAGE_OFFSET : offset - fl.STORAGE_OFFSET + len(page)] = page
    assert json.loads(littlefs_file(bytes(storage), "config.json")) == config
    assert pages[0][:256] == FIRMWARE[:256]


def test_a_firmware_that_runs_into_the_filesystem_is_refused():
    with pytest.raises(ValueError, match="runs into the filesystem"):
        node_uf2(b"\0" * (fl.STORAGE_OFFSET + 1), {})


def test_bus_16_has_sixteen_seat_images_and_the_remotes_with_its_key(tmp_path: Path):
    images = plan(load_profile("bus-16"), remote_key=b"\x11" * 32)
    names = [image.name for image in images]
    assert names == [f"seat-{n:02d}" for n in range(1, 17)] + ["remote"]
    seat5 = images[4]
    assert (seat5.address, seat5.config["address"], seat5.config["role"]) == (5, 5, "seat")
    remote = images[-1]
    assert remote.config["role"] == "remote" and remote.config["key"] == "11" * 32
    assert remote.address == load_profile("bus-16").bus.remote_address  # type: ignore[union-attr]
    written = write_images(images[4:5] + images[-1:], FIRMWARE, tmp_path)
    assert [p.name for p in written] == ["seat-05.uf2", "remote.uf2"]
    assert written[1].stat().st_mode & 0o777 == 0o600  # it holds the pairing key


def test_a_table_without_a_bus_has_no_node_images():
    with pytest.raises(ValueError, match="no seat bus"):
        plan(load_profile("compact-8"), remote_key=None)


def test_the_image_key_follows_every_frozen_file(tmp_path: Path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "main.py").write_text("import node\n")
    (tmp_path / "lib" / "node.py").write_text("X = 1\n")
    before = firmware_build.firmware_hash(firmware_build.firmware_files(tmp_path))
    (tmp_path / "lib" / "node.py").write_text("X = 2\n")
    assert firmware_build.firmware_hash(firmware_build.firmware_files(tmp_path)) != before
