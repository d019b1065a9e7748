"""Command-line arguments shared by every subcommand that sets up a game (simulate, run, bus-sim)."""

from __future__ import annotations

import argparse
import sys

from controller.rules.options import parse_assignment
from controller.rules.setup import GameConfig, configure, parse_roles_override
from controller.rules.variant import VariantError, load_variant


def add_game_arguments(parser: argparse.ArgumentParser, players_default: int | None = None) -> None:
    parser.add_argument("--variant", default="standard-2.0",
                        help="a built-in variant id (tianhei variants) or the path of a variant file")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option, e.g. --option tie=revote (repeatable; see tianhei variants)")
    parser.add_argument("--players", type=int, default=players_default, required=players_default is None,
                        help="card holders at the table (the judge is never counted)")
    parser.add_argument("--roles", default=None, metavar="ROLE=N,...",
                        help="explicit composition, e.g. killer=2,police=2 (civilians are the rest)")
    parser.add_argument("--history", default="", metavar="SEATS",
                        help="first-night victims of the previous games, oldest first, e.g. 5,5 (V2.11)")
    add_settings_argument(parser)


def add_settings_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default=None, metavar="PATH",
                        help="the table's settings file whose [game] abilities names the club's own ability "
                             "modules (default: ./tianhei.toml if there is one; nothing else of it is read)")


def load_club_abilities(args: argparse.Namespace) -> None:
    """Import the club's own ability modules named by ``--config`` (controller/config/club_abilities.py) before
    a variant file that uses them is read; raises ValueError subclasses with one line naming the file."""
    from controller.config.club_abilities import load_named_by
    from controller.config.settings import DEFAULT_FILE

    given = getattr(args, "config", None)
    load_named_by(given or DEFAULT_FILE, required=given is not None)


def game_config(args: argparse.Namespace, talk: bool = True) -> GameConfig:
    """Build the game set-up from the arguments; raises VariantError/ValueError with a clear message."""
    load_club_abilities(args)
    variant = load_variant(args.variant)
    options = dict(parse_assignment(o) for o in args.option)
    roles = parse_roles_override(args.roles) if args.roles else None
    history = [int(x) for x in args.history.split(",") if x.strip()] if args.history else []
    return configure(variant, args.players, options, roles, history, talk=talk)


def fail(message: str) -> int:
    print(f"tianhei: {message}", file=sys.stderr)
    return 2


SETUP_ERRORS = (VariantError, ValueError)


def fresh_seed() -> int:
    """A seed for a game nobody asked to replay: from the OS, small enough to type back as ``--seed``."""
    import secrets

    return secrets.randbelow(1_000_000)


def add_log_level(parser: argparse.ArgumentParser, default: str = "warning") -> None:
    parser.add_argument("--log-level", default=default, choices=["debug", "info", "warning", "error"],
                        help=f"what goes to the log on stderr (default: {default}; the transcript is on stdout)")


def setup_logging(level: str) -> None:
    import logging

    logging.basicConfig(level=getattr(logging, level.upper()), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
