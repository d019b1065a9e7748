"""``tianhei club-demo``: an evening at a simulated club. Three simulated tables and the hall on one Mosquitto on
loopback, eleven members arriving in the hall, the broker killed and restarted twice; at the end a check that
every result, announcement and standing is right and that nothing was lost or doubled (controller/hall/demo.py).
Needs Debian's mosquitto (``sudo apt-get install mosquitto``)."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import Any

from controller.cli.demo_args import add_evening_options, run_evening
from controller.cli.game_args import fail


def register(sub: Any) -> None:
    p = sub.add_parser("club-demo", help="three simulated tables and the hall on one loopback Mosquitto, an evening")
    add_evening_options(p, games=3, speed=30.0, page="hall", port=8088, seeds="the moments of the restarts",
                        files="the broker's files, outboxes and the hall's database")
    p.add_argument("--restarts", type=int, default=2, help="times the broker is killed and restarted (default 2)")
    p.add_argument("--silent", action="store_true", help="show the announcements but do not speak them")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    if args.games < 1 or args.speed <= 0 or args.restarts < 0:
        return fail("club-demo: --games must be at least 1, --speed above 0, --restarts 0 or more")
    from controller.hall.app import hall_voices
    from controller.hall.broker import BrokerError
    from controller.hall.demo import evening

    voices = hall_voices(["zh-CN", "en"], "null" if args.silent else "pygame")

    def go(root: Path) -> Any:
        return asyncio.run(evening(root, games=args.games, speed=args.speed, restarts=args.restarts, seed=args.seed,
                                   host=args.host, port=args.port, web=not args.no_web, voices=voices,
                                   linger=args.linger))

    return run_evening("club-demo", args, go, (BrokerError,))
