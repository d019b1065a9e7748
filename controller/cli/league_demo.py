"""``tianhei league-demo``: three clubs, each with its own Mosquitto, hall and simulated tables, bridged over TLS to
the league's Mosquitto on loopback; bridges cut and brokers killed and restored while they play; at the end a
check that every game reached the league once and every standing is right (controller/league/demo.py). Needs
Debian's mosquitto and openssl."""

from __future__ import annotations

import argparse
import asyncio
import logging
from pathlib import Path
from typing import Any

from controller.cli.demo_args import add_evening_options, run_evening
from controller.cli.game_args import fail


def register(sub: Any) -> None:
    p = sub.add_parser("league-demo", help="three clubs bridged to a league on loopback brokers, links cut and restored")
    add_evening_options(p, games=2, speed=60.0, page="league", port=8089, seeds="the moments of the cuts",
                        files="the brokers' files, certificates and databases")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    if args.games < 1 or args.speed <= 0:
        return fail("league-demo: --games must be at least 1 and --speed above 0")
    from controller.hall.broker import BrokerError
    from controller.league.certs import CertError
    from controller.league.demo import evening

    def go(root: Path) -> Any:
        return asyncio.run(evening(root, games=args.games, speed=args.speed, seed=args.seed, host=args.host,
                                   port=args.port, web=not args.no_web, linger=args.linger))

    return run_evening("league-demo", args, go, (BrokerError, CertError))
