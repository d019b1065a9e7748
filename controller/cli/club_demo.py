"""``tianhei club-demo``: an evening at a simulated club. Three simulated tables and the hall on one Mosquitto on
loopback, eleven members arriving in the hall, the broker killed and restarted twice; at the end a check that
every result, announcement and standing is right and that nothing was lost or doubled (controller/hall/demo.py).
Needs Debian's mosquitto (``sudo apt-get install mosquitto``)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
from pathlib import Path
from typing import Any

from controller.cli.game_args import fail


def register(sub: Any) -> None:
    p = sub.add_parser("club-demo", help="three simulated tables and the hall on one loopback Mosquitto, an evening")
    p.add_argument("--games", type=int, default=3, help="games each room plays (default 3)")
    p.add_argument("--speed", type=float, default=30.0, help="table seconds per real second (default 30)")
    p.add_argument("--restarts", type=int, default=2, help="times the broker is killed and restarted (default 2)")
    p.add_argument("--seed", type=int, default=1, help="seeds the games and the moments of the restarts")
    p.add_argument("--host", default="127.0.0.1", help="the hall page's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8088, help="the hall page's port (default 8088)")
    p.add_argument("--no-web", action="store_true", help="no hall page")
    p.add_argument("--silent", action="store_true", help="show the announcements but do not speak them")
    p.add_argument("--linger", type=float, default=0.0, help="keep the page up this many seconds after the evening")
    p.add_argument("--dir", type=Path, default=None, help="keep the broker's files, outboxes and the hall's database "
                   "here (default: a temporary folder, removed after)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    if args.games < 1 or args.speed <= 0 or args.restarts < 0:
        return fail("club-demo: --games must be at least 1, --speed above 0, --restarts 0 or more")
    from controller.hall.app import hall_voices
    from controller.hall.broker import BrokerError
    from controller.hall.demo import evening

    voices = hall_voices(["zh-CN", "en"], "null" if args.silent else "pygame")
    try:
        if args.dir is not None:
            args.dir.mkdir(parents=True, exist_ok=True)
            report = asyncio.run(_go(args, args.dir, voices, evening))
        else:
            with tempfile.TemporaryDirectory(prefix="tianhei-club-") as tmp:
                report = asyncio.run(_go(args, Path(tmp), voices, evening))
    except BrokerError as exc:
        return fail(f"club-demo: {exc}")
    except TimeoutError as exc:
        return fail(f"club-demo: gave up waiting: {exc}")
    except KeyboardInterrupt:
        return 130
    return 0 if report.ok else 1


async def _go(args: argparse.Namespace, root: Path, voices: Any, evening: Any) -> Any:
    return await evening(root, games=args.games, speed=args.speed, restarts=args.restarts, seed=args.seed,
                         host=args.host, port=args.port, web=not args.no_web, voices=voices, linger=args.linger)
