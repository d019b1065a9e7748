"""``tianhei bus-sim``: a whole game over the simulated RS-485 seat bus, every seat (and the judge's remote) a
real firmware process under the ``micropython`` binary, bots pressing the nodes' fake buttons and tapping cards
on their fake readers, the director on the far side of the host's bus adapter.

It proves the bus adapter end to end and prints its figures; with ``--fault-rate`` the bus corrupts, drops and
delays that share of frames both ways and cuts a node's power now and then, and the game must still end exactly
as it does without faults for the same seed.
"""

from __future__ import annotations

import argparse
import json
import logging
from typing import Any

from controller.bots import POLICIES
from controller.cli.game_args import SETUP_ERRORS, add_game_arguments, fail, game_config
from controller.screens.strings import Lang, winner_name
from controller.sessions.bus_session import BusSession


def register(sub: Any) -> None:
    p = sub.add_parser("bus-sim", help="play a whole game over the simulated seat bus with real firmware nodes",
                       description="Play one complete game through the director, the seat bus master and "
                                   "one micropython firmware process per seat, on one simulated clock.")
    add_game_arguments(p, players_default=8)
    p.add_argument("--seats", dest="players", type=int, default=argparse.SUPPRESS,
                   help="seats at the table, one firmware node each (same as --players)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--autoplay", default="heuristic", choices=sorted(POLICIES), help="the bots' policy")
    p.add_argument("--fault-rate", type=float, default=0.0, metavar="P",
                   help="share of frames (both ways) corrupted, dropped or delayed; also cuts a node's power now "
                        "and then (0..1, default 0)")
    p.add_argument("--power-cycle-every", type=float, default=None, metavar="SECONDS",
                   help="mean simulated seconds between power cuts (default: 40 with faults, never without; "
                        "0 = never)")
    p.add_argument("--baud", type=int, default=2_000_000, help="bus speed (default 2000000, bus-16's)")
    p.add_argument("--digital", action="store_true", help="deal digitally instead of tapping NFC cards")
    p.add_argument("--lang", default="zh", choices=["zh", "en"])
    p.add_argument("--max-time", type=float, default=7200.0, metavar="SECONDS",
                   help="give up after this much simulated time (default 7200)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the transcript")
    p.add_argument("--verbose", action="store_true", help="log every step (roles included: debug level)")
    p.set_defaults(func=run)


def _check(args: argparse.Namespace) -> str | None:
    if not 0.0 <= args.fault_rate <= 1.0:
        return f"--fault-rate {args.fault_rate}: a share of frames, between 0 and 1"
    if args.baud < 1200:
        return f"--baud {args.baud}: too slow for a seat bus (1 Mbaud is the default, 115200 works)"
    if args.power_cycle_every is not None and args.power_cycle_every < 0:
        return f"--power-cycle-every {args.power_cycle_every}: seconds, 0 or more"
    return None


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.ERROR, format="%(message)s")
    problem = _check(args)
    if problem:
        return fail(problem)
    try:
        config = game_config(args)
    except SETUP_ERRORS as exc:
        return fail(str(exc))
    try:
        session = BusSession(config, args.seed, args.autoplay, fault_rate=args.fault_rate,
                             power_cycle_every=args.power_cycle_every, baud=args.baud, cards=not args.digital,
                             lang=args.lang, pack="zh-CN" if args.lang == "zh" else "en")
    except FileNotFoundError as exc:
        return fail(str(exc))
    with session:
        try:
            session.start()
        except RuntimeError as exc:
            return fail(str(exc))
        session.run(max_time=args.max_time)
        result = session.result()
        finished = session.director.stage == "over"
        result["finished"] = finished
        if args.json:
            print(json.dumps(result, ensure_ascii=False))
            return 0 if finished else 1
        for line in session.director.transcript:
            if finished or line.public:
                print(f"{line.at:9.1f}s  {line.who:8}  {line.what}")
        winner = winner_name(str(result["winner"]), Lang.EN, config.variant)
        print(f"winner: {winner} after {result['days']} days, {result['seconds']:.0f}s of table time"
              if finished else f"not finished after {result['seconds']:.0f}s of table time")
        print(f"bus: {result['frames']} frames at {args.baud} baud, {result['retransmits']} retransmits, "
              f"{result['corrupt_detected']} corrupt frames detected, {result['pauses']} pauses; press to director "
              f"p50 {result['latency_ms_p50']} ms, p99 {result['latency_ms_p99']} ms; firmware on "
              f"{result['interpreter']}")
    return 0 if finished else 1
