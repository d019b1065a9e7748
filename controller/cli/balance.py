"""``tianhei balance``: is this table fair at 9 players? (controller/club/balance.py)"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("balance", help="the balance lab: win rates per player count and side, with plots",
                       description="Play GAMES games at every player count the variant allows (or --players "
                                   "A-B) and write a report: wins per side with 95%% intervals, the exact model "
                                   "beside them where one exists (uninformed classic-1.0 and standard-2.0), and "
                                   "PNG plots of win rate against players.")
    p.add_argument("--variant", required=True, metavar="ID", help="a variant ID or a variant file")
    p.add_argument("--players", default=None, metavar="A-B", help="player counts (default: every count it allows)")
    p.add_argument("--policy", default="uninformed", help="the bots' policy (default uninformed)")
    p.add_argument("--games", type=int, default=2000, help="games per player count (default 2000)")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: every core); same counts for any N")
    p.add_argument("--cluster", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="play the chunks on a dask scheduler's workers (tcp://HOST:8786); without ADDRESS, or "
                   "'local': a LocalCluster of --jobs worker processes here. Same counts as --jobs 1. Needs "
                   "pip install 'tianhei[cluster]'")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where the report goes (default var/balance/VARIANT-POLICY)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option (repeatable)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    from controller.cli.game_args import add_settings_argument

    add_settings_argument(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.cli.club_args import club_failed
    from controller.cli.game_args import load_club_abilities
    from controller.club.balance import BalanceError, parse_players, run_balance, write_report
    from controller.config.club_abilities import loaded
    from controller.config.errors import ConfigError

    try:
        load_club_abilities(args)
    except (ValueError, ConfigError) as exc:  # AbilityModuleError, or a settings file that cannot be read
        return club_failed("balance", exc)
    try:
        counts = parse_players(args.players) if args.players else None
        options = dict(_option(o) for o in args.option)
        result = run_balance(args.variant, counts, args.policy, args.games, seed=args.seed, jobs=args.jobs,
                             options=options, progress=not args.no_progress, cluster=args.cluster,
                             modules=tuple(str(p) for p in loaded()))
        out = args.out or Path("var") / "balance" / f"{Path(args.variant).stem}-{args.policy}"
        paths = write_report(result, out)
    except BalanceError as exc:
        return club_failed("balance", exc)
    except OSError as exc:
        return club_failed("balance", Exception(f"cannot write the report: {exc}"))
    for line in result.summary_lines():
        print(line)
    from controller.club.plots import missing

    if missing():
        print(missing())
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _option(text: str) -> tuple[str, object]:
    from controller.club.balance import BalanceError

    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise BalanceError(f"--option {text!r}: write KEY=VALUE, e.g. --option tie=revote")
    return key.strip(), value.strip()
