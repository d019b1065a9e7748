"""The ``tianhei`` command. Each subcommand lives in its own module under ``controller.cli`` and exposes
``register(subparsers)``; this module only lists them."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

#: Subcommand modules, in the order ``tianhei --help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "table",
    "serve",
    "run",
    "simulate",
    "variants",
    "sounds",
    "config",
    "diag",
    "deck",
    "bus-sim",
    "remote",
    "hall",
    "club-demo",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tianhei", description="Tianhei (天黑): the automated Killer game table.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"controller.cli.{name.replace('-', '_')}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["simulate"]:
        # A process started as ``tianhei simulate`` plays the compiled rules when their build is current; this
        # must happen before build_parser imports the engine. (Only then: a test calling main() in-process, or
        # any other command, keeps the Python source and its strict input checks.)
        from controller import compiled_rules

        compiled_rules.activate()
    from controller.cli.guard import guarded

    parser = build_parser()
    args = parser.parse_args(argv)
    # our own errors become one line naming the problem and the fix; a bug says where its log is (cli/guard.py)
    return guarded(lambda: int(args.func(args) or 0), list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
