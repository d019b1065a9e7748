"""``tianhei simulate``: play many complete games with bots and print the statistics."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller import compiled_rules
from controller.bots import POLICIES
from controller.cli.game_args import SETUP_ERRORS, add_game_arguments, fail, game_config
from controller.rules.variant import SIDES
from controller.screens.strings import side_label
from controller.simulate import simulate


def register(sub: Any) -> None:
    p = sub.add_parser("simulate", help="play many games with bots; wins per side with 95%% intervals",
                       description="Play G complete games with bot players and print the wins per side "
                                   "(95% Wilson intervals), draws, mean days and games per second. Started "
                                   "as a program, it plays the compiled rules when ./dev fast has built them "
                                   "for this source (the same games, faster).")
    add_game_arguments(p)
    p.add_argument("--games", type=int, default=1000, help="complete games to play (default 1000)")
    p.add_argument("--seed", type=int, default=1,
                   help="the one seed of every deal and bot choice: the same arguments and seed give the same counts")
    p.add_argument("--policy", default="uninformed", choices=sorted(POLICIES))
    p.add_argument("--first", choices=("night", "day"), default=None,
                   help="day: start with a day (a blind lynch) instead of a night")
    p.add_argument("--talk", action="store_true",
                   help="also play the speeches and last words (bots only say 'pass'; slower, same results)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        return fail("--games must be at least 1")
    try:
        config = game_config(args, talk=args.talk)
        from controller.club.progress import games_bar

        with games_bar(args.games, f"{config.variant.id} {config.players}p {args.policy}") as advance:
            summary = simulate(config, args.policy, args.games, args.seed, args.first, progress=advance)
    except SETUP_ERRORS as exc:
        return fail(str(exc))
    if args.json:
        out = summary.as_json()
        out.update(variant=config.variant.id, players=config.players, policy=args.policy, seed=args.seed,
                   composition=dict(config.composition), rules=compiled_rules.mode())
        print(json.dumps(out, ensure_ascii=False))
        return 0
    comp = ", ".join(f"{n} {r}" for r, n in config.composition)
    print(f"{config.variant.id}, {config.players} players ({comp}), policy {args.policy}, seed {args.seed}")
    sides = sorted(set(summary.wins) | set(SIDES))
    names = {side: side_label(side, config.variant) for side in sides}
    width = max(8, *map(len, names.values()))
    for side in sides:
        lo, hi = summary.interval(side)
        n = summary.wins.get(side, 0)
        print(f"  {names[side]:{width}} wins {n:8}  {n / summary.games:7.2%}  (95% CI {lo:.2%} - {hi:.2%})")
    lo, hi = summary.interval("draw")
    print(f"  {'draws':{width}}      {summary.draws:8}  {summary.draws / summary.games:7.2%}  (95% CI {lo:.2%} - {hi:.2%})")
    print(f"  games {summary.games}, mean days {summary.mean_days:.2f}, {summary.games_per_second:.0f} games/s")
    if compiled_rules.mode() == "mypyc":
        print("  rules: compiled with mypyc (build/mypyc)")
    else:
        print("  rules: Python source (./dev fast compiles them for the simulator: several times the games/s)")
    return 0

