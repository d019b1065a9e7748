"""``tianhei remote pair``: pair the judge's radio remote with this table.

The key is made here, on the Pi, and kept in ``[remote] key_file`` (mode 0600, owned by the table's user). It
reaches the remote one of two ways: ``--remote-config PATH`` writes it (with the remote's bus address) into the
remote's ``config.json``, to be copied onto the remote with ``mpremote``; ``--show`` prints it to be typed there.
Pairing again keeps the key unless ``--new`` asks for another (then the remote needs the new one, and the
counters remembered for the old key are forgotten). See docs/security.md.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from controller.bus.pairing import counter_path, load_key, new_key, save_key, write_remote_config
from controller.config import load
from controller.config.settings import DEFAULT_FILE


def register(sub: Any) -> None:
    p = sub.add_parser("remote", help="pair the judge's radio remote (seat bus tables)")
    actions = p.add_subparsers(dest="remote_command", metavar="ACTION")
    actions.required = True
    pair = actions.add_parser("pair", help="make the remote's key on this Pi and put it on the remote",
                              description="Make (or keep) the pairing key of the judge's remote, stored with mode "
                                          "0600, and write it into the remote's config.json or show it.")
    pair.add_argument("--config", type=Path, default=None, help=f"the table's configuration (default: {DEFAULT_FILE})")
    pair.add_argument("--new", action="store_true", help="replace the key (the remote must get the new one)")
    pair.add_argument("--remote-config", type=Path, default=None, metavar="CONFIG_JSON",
                      help="write the key and the remote's bus address into this config.json for the remote")
    pair.add_argument("--show", action="store_true", help="print the key (hex) to type into the remote's config.json")
    pair.set_defaults(func=run_pair)


def run_pair(args: argparse.Namespace) -> int:
    path = args.config if args.config is not None else (Path(DEFAULT_FILE) if Path(DEFAULT_FILE).is_file() else None)
    # Only what pairing needs is checked here: the game, deck and voice are `tianhei config check`'s business.
    config = load(path, validate_game=None, variant_roles=None, find_pack=None, check_remote_key=False)
    key_file = Path(config.remote.key_file)
    profile = config.profile
    address = profile.bus.remote_address if profile is not None and profile.bus is not None else None
    if key_file.exists() and not args.new:
        key = load_key(key_file)
        print(f"the remote's key in {key_file} is kept (--new makes another)")
    else:
        key = new_key()
        save_key(key_file, key)
        _give_to_folder_owner(key_file)
        print(f"made a new key for the judge's remote: {key_file} (mode 0600)")
    if address is None:
        print(f"note: hardware {profile.name if profile else 'sim'!r} has no remote on a seat bus ([bus] "
              f"remote_address); the key is kept for a table that has one")
    if args.remote_config is not None:
        write_remote_config(args.remote_config, key, address)
        print(f"wrote the key{f' and address {address}' if address is not None else ''} into {args.remote_config}: "
              f"copy it onto the remote (mpremote cp {args.remote_config} :config.json; mpremote reset), then "
              f"delete it here: it holds the key")
    elif args.show:
        print(f'"key": "{key.hex()}"  <- the remote\'s config.json'
              + (f', with "address": {address}' if address is not None else ""))
    else:
        print("put it on the remote: tianhei remote pair --remote-config config.json (or --show to print it)")
    return 0


def _give_to_folder_owner(key_file: Path) -> None:
    """Run as root (sudo), the key would belong to root and the table's own user could not read it: it goes to
    whoever owns the folder it is in (the table's user, for the installed table's /var/lib/tianhei)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    folder = key_file.resolve().parent.stat()
    if folder.st_uid == 0:
        return
    for path in (key_file, counter_path(key_file)):
        if path.exists():
            os.chown(path, folder.st_uid, folder.st_gid)
