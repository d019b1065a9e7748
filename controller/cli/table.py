"""``tianhei table``: run the table the configuration describes.

With real hardware in the config (``[table] hardware = "compact-8"`` or ``"bus-16"``) this is the club's table
on the real clock. With no config, or ``hardware = "sim"``, it is the simulated table: in a window when there is
a display (click the seats' buttons; ``--autoplay`` lets bots play the other seats), or, on a machine without a
screen, a whole game played by bots on the virtual clock and printed as it went.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import Any

from controller.bots import POLICIES
from controller.cli.game_args import fail
from controller.cli.run import add_saved_game_arguments
from controller.config import ConfigError, load
from controller.director.journal import JournalError
from controller.live import LiveOptions, has_display, run_live


def register(sub: Any) -> None:
    p = sub.add_parser("table", help="run the table (the simulated one when no hardware is configured)")
    p.add_argument("--config", type=Path, default=None, help="tianhei.toml (default: ./tianhei.toml if present)")
    p.add_argument("--players", type=int, default=None, help="override [game] players")
    p.add_argument("--autoplay", default=None, choices=sorted(POLICIES),
                   help="bots play the seats (the default on the simulated table without a display)")
    p.add_argument("--seed", type=int, default=1, help="the digital deal's and the bots' seed ([game] seed wins if set)")
    p.add_argument("--headless", action="store_true", help="never open a window")
    p.add_argument("--board", action="store_true",
                   help="show the public big screen fullscreen on the HDMI display (not beside the sim window)")
    p.add_argument("--checkin", action="store_true",
                   help="seats check in with OK before the deal; the remote shows the deck to lay out")
    p.add_argument("--console", action="store_true",
                   help="serve the judge's console on a phone ([console] in the config; docs/console.md); "
                        "the simulated table then plays on the real clock, headless too")
    add_saved_game_arguments(p)  # without either, the judge chooses on the remote
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    path = args.config
    if path is None and Path("tianhei.toml").exists():
        path = Path("tianhei.toml")
    try:
        config = load(path) if path is not None else load(None)
    except ConfigError as exc:
        return fail(str(exc))
    simulated = config.profile is None or config.profile.adapter == "sim"
    console = args.console or config.console.enabled
    if simulated and (args.headless or not has_display()) and not console:
        return _virtual_game(config, args)
    opts = LiveOptions(players=args.players, autoplay=args.autoplay, seed=args.seed, window=not args.headless,
                       checkin=args.checkin, board=args.board, console=args.console,
                       on_saved=args.on_saved)
    try:
        director = asyncio.run(run_live(config, opts))
    except (OSError, JournalError) as exc:  # the console's port is taken, the journal cannot be set up, ...
        return fail(str(exc))
    state = director.state
    print(f"game over: {state.winner if state else 'none'}")
    return 0


def _virtual_game(config: Any, args: argparse.Namespace) -> int:
    """No screen: bots play a whole game on the simulated table, on the virtual clock, and we print it."""
    from controller.director.session import Session
    from controller.live import game_config, timings

    policy = args.autoplay or "heuristic"
    gc = game_config(config, args.players)
    lang = "en" if config.table.language.startswith("en") else "zh"
    seed = config.game.seed if config.game.seed is not None else args.seed  # as the live table does
    session = Session(gc, seed, policy, None, lang=lang, timings=timings(config),
                      pack=config.voice.pack)
    print(f"Simulated table: {gc.variant.name}, {gc.players} players, bots playing '{policy}' "
          f"(no display; run on a desktop for the window)")
    session.start()
    session.run()
    for line in session.director.transcript:
        print(f"{line.at:8.1f}s  {line.who:8}  {line.what}")
    r = session.result()
    print(f"winner: {r['winner']} after {r['days']} days; roles: "
          + ", ".join(f"{seat}={role}" for seat, role in r["roles"].items()))
    return 0
