"""``tianhei league-demo``: three clubs, each with its own Mosquitto, hall and simulated tables, bridged over TLS to
the league's Mosquitto on loopback; bridges cut and brokers killed and restored while they play; at the end a
check that every game reached the league once and every standing is right (controller/league/demo.py). Needs
Debian's mosquitto and openssl."""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path
from typing import Any

from controller.cli.game_args import fail


def register(sub: Any) -> None:
    p = sub.add_parser("league-demo", help="three clubs bridged to a league on loopback brokers, links cut and restored")
    p.add_argument("--games", type=int, default=2, help="games each table plays (default 2)")
    p.add_argument("--speed", type=float, default=60.0, help="table seconds per real second (default 60)")
    p.add_argument("--seed", type=int, default=1, help="seeds the games and the moments of the cuts")
    p.add_argument("--host", default="127.0.0.1", help="the league page's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8089, help="the league page's port (default 8089)")
    p.add_argument("--no-web", action="store_true", help="no league page")
    p.add_argument("--linger", type=float, default=0.0, help="keep the page up this many seconds after the evening")
    p.add_argument("--dir", type=Path, default=None, help="keep the brokers' files, certificates and databases here "
                   "(default: a temporary folder, removed after)")
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

    try:
        if args.dir is not None:
            args.dir.mkdir(parents=True, exist_ok=True)
            report = go(args.dir)
        else:
            with tempfile.TemporaryDirectory(prefix="tianhei-league-") as tmp:
                report = go(Path(tmp))
    except (BrokerError, CertError) as exc:
        return fail(f"league-demo: {exc}")
    except TimeoutError as exc:
        return fail(f"league-demo: gave up waiting: {exc}")
    except KeyboardInterrupt:
        return 130
    return 0 if report.ok else 1
