"""``tianhei run``: play a whole game on a table through the director, bots pressing the buttons.

With ``--hardware sim`` (the only table bots can press) the game runs on a virtual clock, as fast as the machine
allows; its outcome depends only on the seed, also across a kill and resume with the same ``--journal``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.bots import POLICIES
from controller.cli.game_args import (
    SETUP_ERRORS,
    add_game_arguments,
    add_log_level,
    fail,
    game_config,
    setup_logging,
)
from controller.cli.words import say
from controller.director.journal import JournalError
from controller.director.saved import ABANDON, FLAGS, RESUME, SavedGameDiffers
from controller.director.transcript import Entry, line
from controller.screens.strings import Lang, winner_name
from controller.sessions.session import Session


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="play a whole game through the director on a simulated table",
                       description="Play one complete game through the director: deal, every prompt, every "
                                   "window, bots pressing the simulated buttons, on a virtual clock.")
    add_game_arguments(p, players_default=12)
    p.add_argument("--hardware", default="sim", choices=["sim"],
                   help="the table adapter (bots can only press the simulated table's buttons)")
    p.add_argument("--seed", type=int, default=1, help="the deal's and the bots' seed (default 1: a script's run "
                                                       "is the same game every time)")
    p.add_argument("--autoplay", default="heuristic", choices=sorted(POLICIES), help="the bots' policy")
    p.add_argument("--journal", type=Path, default=None,
                   help="SQLite journal; an unfinished game in it is resumed where it stopped (if it is "
                        "another game than the one asked for, the run stops and says what differs)")
    add_saved_game_arguments(p)
    p.add_argument("--cards", action="store_true", help="deal with NFC cards (each bot taps its card; two cards in the dual-card versions)")
    p.add_argument("--lang", default="zh", choices=["zh", "en"], help="the table's language: voice and transcript")
    p.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                   help="stop the virtual clock after this many seconds (as if the power went out)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the transcript")
    p.add_argument("--verbose", action="store_true", help="the same as --log-level debug (roles included)")
    add_log_level(p)
    p.set_defaults(func=run)


def add_saved_game_arguments(p: argparse.ArgumentParser) -> None:
    """The two ways forward when the journal's unfinished game is not the one asked for."""
    way = p.add_mutually_exclusive_group()
    way.add_argument(FLAGS[RESUME], dest="on_saved", action="store_const", const=RESUME,
                     help="the journal's unfinished game differs from the one asked for: go on with it under "
                          "its own settings (variant, players, options, seed, deck)")
    way.add_argument(FLAGS[ABANDON], dest="on_saved", action="store_const", const=ABANDON,
                     help="the journal's unfinished game differs from the one asked for: close it (kept in the "
                          "journal, marked abandoned) and start the new one")


def run(args: argparse.Namespace) -> int:
    setup_logging("debug" if args.verbose else args.log_level)

    def told(entry: Entry) -> None:  # the transcript as the game goes (the nights only once it is over)
        if not args.json:
            print(line(entry, args.lang))

    try:
        config = game_config(args)
        session = Session(config, args.seed, args.autoplay, args.journal, cards=args.cards, lang=args.lang,
                          pack="zh-CN" if args.lang == "zh" else "en", told=told, on_saved=args.on_saved)
    except SETUP_ERRORS as exc:
        return fail(str(exc))
    except (JournalError, SavedGameDiffers) as exc:
        return fail(str(exc))
    if session.journal_note:
        print(f"tianhei: {session.journal_note}")
    # what became of the journal's unfinished game: on stderr, so that --json stays one object on stdout
    if session.abandoned is not None:
        print("tianhei: " + say("saved_closed", args.lang, where=session.abandoned.where()), file=sys.stderr)
    if session.saved is not None:
        key = "saved_resumed_same" if session.saved.matches else "saved_resumed_own"
        print("tianhei: " + say(key, args.lang, where=session.saved.where()), file=sys.stderr)
    if not args.json:  # the saved game's own set-up when it is resumed
        variant = session.config.variant
        name = variant.name_zh if args.lang == "zh" and variant.name_zh else variant.name
        print(say("run_header", args.lang, variant=name, players=session.config.players, seed=session.seed,
                  policy=args.autoplay))
    try:
        session.start()
        session.run(max_time=args.stop_after)
    except JournalError as exc:
        return fail(f"{exc}; the game stopped at its last recorded input (run again to resume)")
    director = session.director
    finished = director.stage == "over"
    if args.json:
        out: dict[str, Any] = session.result() if director.state is not None else {}
        out["finished"] = finished
        if not finished:
            out["winner"] = None
        print(json.dumps(out, ensure_ascii=False))
        return 0
    if finished:
        r = session.result()
        numbers = {"days": r["days"], "events": r["events"], "seconds": f"{r['seconds']:.0f}"}
        if r["winner"] in (None, "none"):
            print(say("run_no_winner", args.lang, **numbers))
        else:
            winner = winner_name(r["winner"], Lang.ZH if args.lang == "zh" else Lang.EN, session.config.variant)
            print(say("run_winner", args.lang, winner=winner, **numbers))
    else:
        session.transcript.flush()
        print(say("run_stopped", args.lang, seconds=f"{director.clock.now():.1f}"))
    return 0
