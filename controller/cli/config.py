"""``tianhei config check [PATH]``: validate the configuration and the hardware profile it names, start nothing.

Each problem is printed on its own line with the key, the file and the fix; the exit status is 1 if there is
any. ``tianhei config profiles`` lists the shipped hardware profiles.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.config.errors import ConfigError
from controller.config.profile import available_profiles, load_profile
from controller.config.settings import DEFAULT_FILE, load


def register(sub: Any) -> None:
    p = sub.add_parser("config", help="check the configuration file and its hardware profile")
    actions = p.add_subparsers(dest="config_command", metavar="ACTION")
    actions.required = True
    check = actions.add_parser("check", help="validate tianhei.toml (or PATH) and the hardware profile it names")
    check.add_argument("path", nargs="?", help=f"the configuration file (default: {DEFAULT_FILE})")
    check.set_defaults(func=run_check)
    profiles = actions.add_parser("profiles", help="list the hardware profiles")
    profiles.set_defaults(func=run_profiles)


def run_check(args: argparse.Namespace) -> int:
    if args.path is None and not Path(DEFAULT_FILE).is_file():
        # "OK" would be about a file that is not there; say what the table would do instead, and how to make one.
        print(f"{DEFAULT_FILE}: no such file in this folder (the table would run on the defaults: the simulated "
              f"table, standard-2.0, 12 players); copy tianhei.example.toml to {DEFAULT_FILE}, or give the "
              f"file's path", file=sys.stderr)
        return 1
    try:
        config = load(args.path)
    except ConfigError as exc:
        count = len(exc.problems)
        print(f"{count} problem{'s' if count != 1 else ''}; nothing was started:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    profile = config.profile
    hardware = f"{profile.name} ({profile.adapter} adapter, {len(profile.seats)} seats)" if profile else "?"
    print(f"{config.source}: OK — {config.game.variant}, {config.game.players} players, hardware {hardware}, "
          f"voice {config.voice.pack}, judge {config.table.judge}")
    from controller.club.service import club_path

    club, path = config.club, club_path(config)
    print(f"  club: {f'records in {path}, table {club.table!r}, room {club.room}' if path else 'off'}"
          f"{', its own scoring table' if club.scoring or club.levels else ', the default scoring table'}")
    for line in _voice_lines(config):
        print(f"  {line}")
    for line in _hall_lines(config):
        print(f"  {line}")
    from controller.web.certificate import describe  # (the standard library only: not the web stack)

    c = config.console
    print(f"  judge's console: {'on' if c.enabled else 'off (tianhei table --console turns it on)'}, "
          f"{describe(c.tls, c.cert, c.key, config.journal.path)}")
    return 0


def _voice_lines(config: Any) -> list[str]:
    """Which voice speaks at this table and under what terms ([voice] pack and the licence records)."""
    from controller.voice.licence import free_for_every_use, speaking_lines
    from controller.voice.packs import PackError, load_voice_pack

    try:
        terms = load_voice_pack(config.voice.pack).terms()
    except PackError as exc:
        return [f"voice: {exc}"]
    charges = ("the club charges for its evenings" if config.voice.commercial
               else "[voice] commercial = true if the club charges for its evenings")
    head = "voice: free for every use" if free_for_every_use(terms) else f"voice: not free for every use ({charges})"
    from controller.voice.silent_lines import table_notice

    silent = table_notice(config.voice.pack, config.game.variant, every_variant=True)  # the judge may choose any board at check-in
    return [head, *(f"  {line}" for line in speaking_lines(terms)), *([f"voice: {silent.line()}"] if silent else [])]


def _hall_lines(config: Any) -> list[str]:
    """What the file sets of the club's broker and hall: a table of a room sends its games (and a password file
    that is not there is said here, not at the first game's end); the hall's rooms and page."""
    m, h = config.mqtt, config.hall
    out = []
    if m.password_file is None:
        secret = ", no password file"
    elif Path(m.password_file).is_file():
        secret = f", password file {m.password_file}"
    else:
        secret = f", password file {m.password_file} (no such file here: copy it from the broker's machine, docs/club.md)"
    link = f"{m.host}:{m.tls_port} over TLS (checked with {m.cafile})" if m.tls_on() else f"{m.host}:{m.port}"
    if m.room is not None:
        out.append(f"hall: this table is room {m.room} of club {m.club!r}, sending its games to the broker at "
                   f"{link}{secret}")
    if h.rooms:
        rooms = ", ".join(str(r["id"]) for r in h.rooms)
        out.append(f"hall (tianhei hall): club {m.club!r}, rooms {rooms}, page http://{h.http_host}:{h.http_port}/, "
                   f"broker {link}{secret}")
    return out


def run_profiles(args: argparse.Namespace) -> int:
    for name in available_profiles():
        try:
            profile = load_profile(name)
        except ConfigError as exc:
            print(f"{name}: INVALID\n  {exc}")
            continue
        print(f"{name:12} {profile.adapter:5} {len(profile.seats):2} seats  {profile.description}")
    return 0
