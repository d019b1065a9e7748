"""``tianhei nodes image``: one UF2 per seat node and one for the judge's remote, each the rp2 firmware with
that node's config.json in its flash (controller/nodes/images.py); ``--check`` boots each one on an emulated Pico
and reads its IDENTIFY (controller/nodes/emulated_bus.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("nodes", help="the seat nodes' firmware: per-node UF2 images a club drops onto its Picos")
    actions = p.add_subparsers(dest="nodes_command", metavar="ACTION")
    actions.required = True
    image = actions.add_parser("image", help="write seat-NN.uf2 for every seat and remote.uf2 for the remote",
                               description="Build the rp2 firmware (./dev firmware, cached) and write one UF2 per "
                                           "node of the profile's bus, each with its config.json in flash.")
    image.add_argument("--profile", default="bus-16", help="the hardware profile (name or TOML file)")
    image.add_argument("--out", type=Path, required=True, help="the folder for the .uf2 files")
    image.add_argument("--key-file", type=Path, default=Path("var/remote.key"),
                       help="the remote's pairing key ([remote] key_file; made, mode 0600, if missing)")
    image.add_argument("--offline", action="store_true", help="build from the cached Debian packages only")
    image.add_argument("--check", action="store_true",
                       help="boot every image on an emulated Pico and read its IDENTIFY (needs Node.js)")
    image.set_defaults(func=run_image)


def run_image(args: argparse.Namespace) -> int:
    from controller.bus.pairing import PairingError, load_key, new_key, save_key
    from controller.config.profile import load_profile
    from controller.nodes import firmware_build, images

    try:
        profile = load_profile(args.profile)
    except ValueError as err:  # ConfigError: every problem of the profile, one line each
        print(f"tianhei nodes image: {err}", file=sys.stderr)
        return 2
    key = None
    if profile.bus is not None and profile.bus.remote_address is not None:
        try:
            if args.key_file.exists():
                key = load_key(args.key_file)
            else:
                key = new_key()
                save_key(args.key_file, key)
                print(f"made a new key for the judge's remote: {args.key_file} (mode 0600; the table's "
                      f"[remote] key_file must be this file)")
        except PairingError as err:
            print(f"tianhei nodes image: {err}", file=sys.stderr)
            return 2
    try:
        plan = images.plan(profile, key)
        built = firmware_build.build(offline=args.offline)
    except (ValueError, firmware_build.BuildError) as err:
        print(f"tianhei nodes image: {err}", file=sys.stderr)
        return 2
    written = images.write_images(plan, built.firmware.read_bytes(), args.out)
    for image, path in zip(plan, written, strict=True):
        print(f"{path}  node {image.address}")
    if args.check:
        from controller.nodes.check import check_images

        failures = check_images(plan, written)
        for line in failures:
            print(line, file=sys.stderr)
        if failures:
            return 1
        print(f"{len(plan)} images booted on emulated Picos and answered IDENTIFY at their own addresses")
    return 0
