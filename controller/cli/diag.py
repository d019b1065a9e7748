"""``tianhei diag``: walk round the table seat by seat and print which parts work (see controller/diag)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.config.errors import ConfigError
from controller.diag.chips import chip_table, read_chips
from controller.diag.host import HardwareError, open_host, sim_seats, voice_for
from controller.diag.walkthrough import Diagnostic
from controller.screens.strings import Lang
from controller.voice.packs import PackError


def register(sub: Any) -> None:
    p = sub.add_parser("diag", help="check every seat's screen, LED, buttons and reader, and the speaker",
                       description="Walk round the table seat by seat: each screen shows a test pattern and its "
                                   "number, each LED cycles red/green/blue, each seat asks for ◀, ▶, OK and a card "
                                   "tap, the speaker plays a test prompt; then a pass/fail table.")
    add_table_arguments(p)
    p.add_argument("--seats", default=None, metavar="N,N,...", help="only these seats (default: all)")
    p.add_argument("--deadline", type=float, default=20.0, metavar="SECONDS",
                   help="how long each part waits for its answer before it fails (default: 20)")
    p.set_defaults(func=run)


def add_table_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments every table tool shares (diag, deck enroll, deck check)."""
    p.add_argument("--config", default=None, metavar="PATH", help="the configuration file (default: tianhei.toml)")
    p.add_argument("--hardware", default=None, metavar="sim|PROFILE",
                   help="the table: 'sim' or a hardware profile (default: the config's table.hardware)")
    p.add_argument("--auto", action="store_true",
                   help="with --hardware sim: simulated people answer, to try the tool with no hardware")
    p.add_argument("--players", type=int, default=None, help="seats of the simulated table (default: the config's)")
    p.add_argument("--lang", default=None, choices=["zh", "en"], help="screen language (default: the config's)")


def fail(where: str, message: str) -> int:
    print(f"tianhei {where}: {message}", file=sys.stderr)
    return 2


def load_setup(args: argparse.Namespace, where: str) -> Any:
    """The configuration with ``--hardware`` applied; ConfigError lists every problem with key, file and fix."""
    from controller.config.profile import load_profile
    from controller.config.settings import load

    config = load(args.config, validate_game=None, find_pack=None)
    profile = load_profile(args.hardware) if args.hardware else config.profile
    assert profile is not None  # load() raises when the profile cannot be loaded
    players = args.players or (config.game.players if profile.adapter == "sim" else sim_seats(profile))
    lang = Lang.parse(args.lang or config.table.language)
    return config, profile, players, lang


def config_failed(where: str, exc: ConfigError) -> int:
    print(f"tianhei {where}: {len(exc.problems)} problem(s); nothing was started:", file=sys.stderr)
    for problem in exc.problems:
        print(f"  - {problem}", file=sys.stderr)
    return 2


def chips_report(table: object, adapter: str) -> str:
    """The chips' identity registers as read (controller/diag/chips.py), or why there are none to read."""
    readings = read_chips(table)
    if readings:
        return chip_table(readings)
    if adapter == "bus":
        return "chips: the readers and screens hang off the seat nodes; the Pi does not read their registers"
    return "chips: the simulated table has none to read"


def run(args: argparse.Namespace) -> int:
    try:
        config, profile, players, lang = load_setup(args, "diag")
        seats = [int(s) for s in args.seats.split(",") if s.strip()] if args.seats else None
    except ConfigError as exc:
        return config_failed("diag", exc)
    except ValueError as exc:
        return fail("diag", f"--seats {args.seats!r}: {exc}; write seat numbers like 1,3,5")
    try:
        with open_host(profile, auto=args.auto, players=players) as host:
            if host.simulated and not args.auto:
                print("nobody sits at the simulated table: every part will fail; add --auto to let simulated "
                      "people answer")
            print(chips_report(host.table, profile.adapter))
            voice = voice_for(host, config.voice.pack, config.voice.volume)

            def script(scheduler: Any) -> Any:
                return Diagnostic(host.table, voice, scheduler, lang=lang, deadline_s=args.deadline, seats=seats,
                                  note=print).script()

            report = host.run(script)
    except (HardwareError, ValueError, PackError) as exc:
        return fail("diag", str(exc))
    print()
    print(report.table())
    return 0 if report.ok else 1
