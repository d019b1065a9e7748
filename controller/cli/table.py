"""``tianhei table``: run the table the configuration describes.

With real hardware in the config (``[table] hardware = "compact-8"`` or ``"bus-16"``) this is the club's table
on the real clock. With no config, or ``hardware = "sim"``, it is the simulated table: in a window when there is
a display (click the seats' buttons; ``--autoplay`` lets bots play the other seats), or, on a machine without a
screen, a whole game played by bots on the virtual clock and printed as it went.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.bots import POLICIES
from controller.cli.game_args import add_log_level, fail, fresh_seed, setup_logging
from controller.cli.run import add_saved_game_arguments
from controller.cli.words import command, say
from controller.config import ConfigError, load
from controller.director.journal import JournalError
from controller.live import LiveOptions, board_screen, has_display, run_live, voice_terms_notice


def register(sub: Any) -> None:
    p = sub.add_parser("table", help="run the table (the simulated one when no hardware is configured)")
    p.add_argument("--config", type=Path, default=None, help="tianhei.toml (default: ./tianhei.toml if present)")
    p.add_argument("--variant", default=None, metavar="VARIANT",
                   help="override [game] variant: a built-in id (tianhei variants) or a variant file")
    p.add_argument("--players", type=int, default=None,
                   help="override [game] players (with --variant: the variant's own count when [game] players is "
                        "not one it has)")
    p.add_argument("--autoplay", default=None, choices=sorted(POLICIES),
                   help="bots play the seats (the default on the simulated table without a display)")
    p.add_argument("--seed", type=int, default=None,
                   help="the digital deal's and the bots' seed, to replay a game ([game] seed wins if set; "
                        "without either, a fresh seed is taken and printed)")
    p.add_argument("--lang", default=None, choices=["zh", "en"],
                   help="the table's language: screens, voice and transcript (default: [table] language)")
    p.add_argument("--headless", action="store_true", help="never open a window")
    p.add_argument("--board", action="store_true",
                   help="show the public big screen: fullscreen on the HDMI display of a table, a panel of the "
                        "simulator's window, or (simulated, --headless) a window of its own while bots play")
    p.add_argument("--seat", type=int, default=None, metavar="N",
                   help="play seat N yourself in the simulator's window (bots play the others: --autoplay, "
                        "default heuristic); the others' screens stay hidden, as at a real table")
    p.add_argument("--cards", action="store_true",
                   help="the simulated table deals a deck of cards: drag yours onto your reader (or click it)")
    p.add_argument("--checkin", action="store_true",
                   help="seats check in with OK before the deal; the remote shows the deck to lay out")
    p.add_argument("--console", action="store_true",
                   help="serve the judge's console on a phone ([console] in the config; docs/console.md); "
                        "the simulated table then plays on the real clock, headless too")
    add_log_level(p)
    add_saved_game_arguments(p)  # without either, the judge chooses on the remote
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    setup_logging(args.log_level)
    try:
        config = load(args.config)  # None: ./tianhei.toml if there is one, else the defaults
    except ConfigError as exc:
        return fail(str(exc))
    if args.lang is not None:  # the screens, the voice pack and the transcript speak it
        code = "zh-CN" if args.lang == "zh" else "en"
        config = replace(config, table=replace(config.table, language=code), voice=replace(config.voice, pack=code))
    args.lang = "en" if config.table.language.startswith("en") else "zh"
    if args.variant is not None:
        from controller.rules.variant import VariantError, load_variant

        try:
            variant = load_variant(args.variant)
        except VariantError as exc:
            return fail(str(exc))
        config = replace(config, game=replace(config.game, variant=args.variant))
        if args.players is None and not variant.min_players <= config.game.players <= variant.max_players:
            args.players = variant.min_players  # W2: werewolf-9 is for nine
    # a seed nobody asked for is only for a new game: an unfinished saved game is not another game for it
    seed_drawn = config.game.seed is None and args.seed is None
    if seed_drawn:
        args.seed = fresh_seed()
    simulated = config.profile is None or config.profile.adapter == "sim"
    players = args.players or config.game.players
    if args.seat is not None and not simulated:
        name = config.profile.name if config.profile is not None else "?"
        return fail(f"--seat plays a seat of the simulated table; this config's table is {name!r} (real seats: "
                    "sit at one)")
    if args.seat is not None and not 1 <= args.seat <= players:
        return fail(f"--seat {args.seat}: the table has seats 1 to {players}")
    if args.seat is not None and args.checkin:
        return fail("--seat and --checkin: the bots do not check in; play a seat without --checkin (--players N)")
    if args.cards and not simulated:
        return fail("--cards deals the simulated table's own deck; a real table deals [game] deck")
    console = args.console or config.console.enabled
    if console and args.log_level in ("warning", "error"):  # the console's address and pairing code are said
        import logging  # in its log lines, which the judge must see whatever else the log leaves out

        logging.getLogger("controller.web").setLevel(logging.INFO)
    window = simulated and not args.headless and has_display()
    if args.seat is not None and not window:
        return fail("--seat needs the simulator's window: run it on a desktop (a display), without --headless")
    if simulated and not window and not console:  # (the judge's console plays on the real clock, headless too)
        if not args.board:
            return _virtual_game(config, args)
        shown, why = board_screen()
        if not shown:
            print(f"tianhei: --board: {why}; the game is printed instead", file=sys.stderr)
            return _virtual_game(config, args)
    # the table speaks aloud from here on (the printed game above plays no sound): under whose terms, once
    if (notice := voice_terms_notice(config.voice.pack)) is not None:
        print(f"tianhei: {notice}", file=sys.stderr)
    from controller.voice.silent_lines import table_notice

    # a board's lines without a recording and no espeak-ng: said now, before the game, not found out in it
    if (silent := table_notice(config.voice.pack, config.game.variant, args.checkin)) is not None:
        print(f"tianhei: {silent.line()}", file=sys.stderr)
    autoplay = args.autoplay or ("heuristic" if args.seat is not None or (simulated and not window and not console)
                                 else None)
    from controller.director.transcript import line

    lang = args.lang

    opts = LiveOptions(players=args.players, autoplay=autoplay, seed=args.seed, window=window,
                       checkin=args.checkin, board=args.board, console=args.console, seat=args.seat,
                       cards=args.cards, told=lambda entry: print(line(entry, lang), flush=True),
                       on_saved=args.on_saved, seed_drawn=seed_drawn,
                       # the game's seed: a resumed saved game's own, else this run's
                       on_seed=lambda seed: print(say("table_seed", lang, seed=seed), flush=True))
    try:
        director = asyncio.run(run_live(config, opts))
    except (OSError, JournalError) as exc:  # the console's port is taken, the journal cannot be set up, ...
        return fail(str(exc))
    state = director.state
    if state is not None and state.over:
        from controller.screens.strings import Lang, winner_name

        winner = winner_name(state.winner or "draw", Lang.parse(lang), director.config.variant)  # its own words
        print(say("table_over", lang, winner=winner))
    else:
        print(say("table_closed", lang, seed=director.seed))
    return 0


def _virtual_game(config: Any, args: argparse.Namespace) -> int:
    """No screen: bots play a whole game on the simulated table, on the virtual clock, and it is printed once, as
    a judge would tell it (controller/director/transcript.py); the log goes to stderr."""
    from controller.director.transcript import line
    from controller.live import game_config, timings
    from controller.sessions.session import Session

    if config.mqtt.room is not None:  # a game on the virtual clock is minutes in a second: no hall could follow it
        print(f"tianhei table: this game is printed, not sent to the club's hall ([mqtt] room {config.mqtt.room}); "
              f"a table that plays in real time sends its games: tianhei serve --autoplay heuristic "
              f"(bots on the simulated table), or tianhei table on a desktop", file=sys.stderr)
    policy = args.autoplay or "heuristic"
    gc = game_config(config, args.players)
    lang = args.lang
    seed = config.game.seed if config.game.seed is not None else args.seed  # as the live table does
    name = gc.variant.name_zh if lang == "zh" and gc.variant.name_zh else gc.variant.name
    print(say("table_head", lang, variant=name, n=gc.players, policy=policy))
    print(say("table_seed", lang, seed=seed))
    session = Session(gc, seed, policy, None, lang=lang, timings=timings(config), pack=config.voice.pack,
                      told=lambda entry: print(line(entry, lang), flush=False))
    session.start()
    session.run()
    r = session.result()
    print(say("table_end", lang, days=r["days"], minutes=int(r["seconds"] // 60),
              replay=command("table", *(("--variant", args.variant) if args.variant else ()), "--seed", seed)))
    return 0
