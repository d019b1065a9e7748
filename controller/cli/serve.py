"""``tianhei serve``: the installed table (systemd/tianhei.service runs it), game after game.

What a club expects of the box under its table: switched on, it waits for players on the configured hardware
(check-in: each seat presses OK, the judge picks the variant on the remote), plays the game, and waits for the
next; switched off in the middle of a game, it carries on from the journal when it comes back. Nothing plays by
itself: ``--autoplay`` (the simulated table only, for a demonstration) lets bots play every seat.

Under systemd (``Type=notify``) it says READY=1 once the table is up, pings the watchdog from the event loop the
director runs on, and keeps a one-line STATUS (``controller/service/notify.py``). A director stuck in a callback
stops the pings: systemd kills the service and starts it again, and the unfinished game is resumed from the
journal instead of asking the players to check in again.

Exit status: 0 after ``--games`` games or a stop; :data:`EXIT_CONFIG` for a configuration that must be fixed
first (the unit does not restart on it, so a typo is not retried every few seconds for ever).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import secrets
import signal
import sys
from pathlib import Path
from typing import Any

from controller.bots import POLICIES
from controller.config import Config, ConfigError, load
from controller.config.settings import DEFAULT_FILE
from controller.service.notify import Notifier

log = logging.getLogger("tianhei.serve")

#: A configuration that must be fixed before the table can start (``EX_CONFIG`` of sysexits.h); the unit's
#: ``RestartPreventExitStatus`` names it.
EXIT_CONFIG = 78


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="the installed table: players check in, game after game (the systemd service)",
                       description="Run the table the configuration describes as a service: players check in on "
                                   "the seats, a game is played, the next check-in begins; an unfinished game is "
                                   "resumed from the journal. Tells systemd when it is ready and pings its watchdog.")
    p.add_argument("--config", type=Path, default=None, help=f"the configuration (default: ./{DEFAULT_FILE})")
    p.add_argument("--autoplay", default=None, choices=sorted(POLICIES),
                   help="simulated table only: bots play every seat (a demonstration); without it nothing plays "
                        "by itself")
    p.add_argument("--board", action="store_true", help="show the public big screen on the HDMI display")
    p.add_argument("--games", type=int, default=0, metavar="N", help="stop after N games (default: never)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    path = args.config if args.config is not None else (Path(DEFAULT_FILE) if Path(DEFAULT_FILE).is_file() else None)
    try:
        config = load(path)
    except ConfigError as exc:
        print(f"tianhei serve: the configuration must be fixed first ({len(exc.problems)} problem"
              f"{'s' if len(exc.problems) != 1 else ''}; `tianhei config check` lists them):", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
        return EXIT_CONFIG
    simulated = config.profile is None or config.profile.adapter == "sim"
    if args.autoplay and not simulated:
        print(f"tianhei serve: --autoplay plays the simulated table only; {config.profile.name if config.profile else ''}"
              " is a real table, whose players check in", file=sys.stderr)
        return 2
    from controller.live import voice_terms_notice

    if (notice := voice_terms_notice(config.voice.pack)) is not None:
        log.warning("%s", notice)
    from controller.voice.silent_lines import table_notice

    if (silent := table_notice(config.voice.pack, config.game.variant, every_variant=True)) is not None:
        log.warning("%s", silent.line())  # the judge's remote says it too (controller/live.py)
    notifier = Notifier()
    try:
        return asyncio.run(serve(config, args, notifier, simulated))
    finally:
        notifier.stopping()


def unfinished_game(config: Config) -> bool:
    """Does the journal hold a game that was cut off (a power cut, a crash, the watchdog)?"""
    from controller.director.journal import open_journal

    journal, note = open_journal(config.journal.path)
    if note:
        log.warning("%s", note)
    try:
        replay = journal.replay()
        return replay is not None and not replay.finished and bool(replay.events)
    finally:
        journal.close()


async def serve(config: Config, args: argparse.Namespace, notifier: Notifier, simulated: bool) -> int:
    from controller.live import LiveOptions, run_live

    main = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform / not the main thread
            loop.add_signal_handler(signum, lambda: main.cancel() if main is not None else None)
    pings = asyncio.create_task(notifier.watchdog())
    played = 0
    try:
        while not args.games or played < args.games:
            resuming = unfinished_game(config)
            checkin = not resuming and not (simulated and args.autoplay)
            waiting = ("resuming the unfinished game from the journal" if resuming
                       else "waiting for players: press OK on your seat" if checkin else "bots are playing")
            opts = LiveOptions(autoplay=args.autoplay, seed=secrets.randbits(31), window=False, checkin=checkin,
                               board=args.board, seed_drawn=True,
                               chosen_at_checkin=not (simulated and args.autoplay),
                               on_ready=lambda waiting=waiting: _ready(notifier, waiting),  # type: ignore[misc]
                               on_started=lambda d, resuming=resuming: _started(notifier, d, resuming))  # type: ignore[misc]
            director = await run_live(config, opts)
            played += 1
            winner = director.state.winner if director.state is not None else None
            log.info("game %d over: %s", played, winner or "no winner")
            notifier.status(f"game over ({winner or 'no winner'}); the next check-in begins")
    except asyncio.CancelledError:
        log.info("stopped")
    finally:
        pings.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pings
    return 0


def _ready(notifier: Notifier, status: str) -> None:
    log.info("the table is up: %s", status)
    notifier.ready(status)


def _started(notifier: Notifier, director: Any, resumed: bool) -> None:
    gc = director.config
    day = f", day {director.state.day}" if resumed and director.state is not None else ""
    notifier.status(f"{'resumed' if resumed else 'playing'} {gc.variant.id}, {gc.players} players{day}")
