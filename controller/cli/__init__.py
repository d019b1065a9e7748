"""The ``tianhei`` command. Each subcommand lives in its own module under ``controller.cli`` and exposes
``register(subparsers)``; this module only lists them."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# pygame greets on stdout when first imported; stdout is the game's transcript and the commands' output.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

#: Each subcommand with its line in ``tianhei --help``, in that order. A subcommand's module (``controller.cli.NAME``,
#: with ``register(subparsers)``) is imported only when that subcommand runs: importing all of them (the director,
#: Pillow, luma, the rules...) made ``tianhei --help`` take a quarter of a second, and a Pi Zero is 5-10x slower.
#: tests/cli/test_lazy_cli.py checks that each line here is the one its module registers.
SUBCOMMANDS: dict[str, str] = {
    "table": "run the table (the simulated one when no hardware is configured)",
    "serve": "the installed table: players check in, game after game (the systemd service)",
    "run": "play a whole game through the director on a simulated table",
    "simulate": "play many games with bots; wins per side with 95%% intervals",
    "variants": "list the variants, their options and role tables",
    "sounds": "build and check voice packs",
    "config": "check the configuration file and its hardware profile",
    "diag": "check every seat's screen, LED, buttons and reader, and the speaker",
    "deck": "enroll, show or check a physical deck of role cards",
    "bus-sim": "play a whole game over the simulated seat bus with real firmware nodes",
    "seat-nodes": "firmware seat nodes and their players behind a real tty or socket",
    "remote": "pair the judge's radio remote (seat bus tables)",
    "nodes": "the seat nodes' firmware: per-node UF2 images a club drops onto its Picos",
    "hall": "the club's hall: every room live on a web page, announcements, waiting list",
    "club-demo": "three simulated tables and the hall on one loopback Mosquitto, an evening",
    "member": "the club's members: add, list, show, enrol a member card",
    "records": "the club's records: games, one game, a member, standings, CSV export",
    "evening": "a scripted club evening on the simulated table: check-in, games, records",
    "balance": "the balance lab: win rates per player count and side, with plots",
    "league": "the league of several clubs: its page, certificates, broker files, merges",
    "league-demo": "three clubs bridged to a league on loopback brokers, links cut and restored",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line (``only=None``), or one subcommand's in full and the others as their help line."""
    parser = argparse.ArgumentParser(prog="tianhei", description="Tianhei (天黑): the automated Killer game table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, line in SUBCOMMANDS.items():
        if only is None or name == only:
            module = importlib.import_module(f"controller.cli.{name.replace('-', '_')}")
            module.register(sub)
        else:
            sub.add_parser(name, help=line)
    return parser


def _command(argv: Sequence[str]) -> str:
    """The subcommand named on the command line ("" if none: then only the list of them is needed)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] in (["simulate"], ["balance"]):
        # A process started as ``tianhei simulate`` (or ``balance``) plays the compiled rules when their build is
        # current; this must happen before build_parser imports the engine. (Only then: a test calling main()
        # in-process, or any other command, keeps the Python source and its strict input checks.)
        from controller import compiled_rules

        compiled_rules.activate()
    from controller.cli.guard import guarded

    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(only=_command(args_list))
    args = parser.parse_args(args_list)
    # our own errors become one line naming the problem and the fix; a bug says where its log is (cli/guard.py)
    return guarded(lambda: int(args.func(args) or 0), args_list)


if __name__ == "__main__":
    sys.exit(main())
