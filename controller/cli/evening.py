"""``tianhei evening``: a scripted club evening on the simulated table (controller/club/evening.py).

Members check in with their cards, games are played back to back by bots, the judge ejects one player, gives
one penalty point and accepts one surrender; every game is recorded, scored and ranked. Run it again after it
was killed (even with ``kill -9`` while recording): it carries on from the journal, and no game is lost or
recorded twice.
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    from controller.cli.club_args import add_club_arguments

    p = sub.add_parser("evening", help="a scripted club evening on the simulated table: check-in, games, records",
                       description="Members check in with member cards, GAMES games are played back to back "
                                   "by bots (one ejection, one penalty, one surrender), and each is recorded, "
                                   "scored and ranked. Resumes where it stopped.")
    p.add_argument("--games", type=int, default=6, help="games in the evening (default 6)")
    p.add_argument("--autoplay", default="heuristic", metavar="POLICY", help="the bots' policy (default heuristic)")
    p.add_argument("--players", type=int, default=12, help="players a game (default 12: 11 members, 1 guest)")
    p.add_argument("--variant", default="standard-2.0")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--dir", type=Path, default=Path("var/evening"),
                   help="where the evening's club database and journal live (default var/evening)")
    p.add_argument("--journal", type=Path, default=None, help="the table's journal (default DIR/journal.sqlite)")
    p.add_argument("--csv", type=Path, default=None, metavar="DIR", help="also export the records as CSV here")
    p.add_argument("--lang", choices=("zh", "en"), default="en")
    add_club_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.bots import POLICIES
    from controller.cli.club_args import club_failed
    from controller.cli.records import print_standings
    from controller.cli.words import command, say
    from controller.club.evening import Evening, Plan
    from controller.club.export import export_csv
    from controller.club.recorder import env_crash_point
    from controller.club.service import Club
    from controller.club.store import ClubError
    from controller.rules.variant import VariantError

    if args.autoplay not in POLICIES:
        return club_failed("evening", Exception(f"--autoplay {args.autoplay!r}: use one of {', '.join(POLICIES)}"))
    if not 1 <= args.games <= 100:
        return club_failed("evening", Exception("--games must be 1..100"))
    if not 4 <= args.players <= 16:
        return club_failed("evening", Exception("--players must be 4..16 (the demo club has 11 members)"))
    logging.getLogger("controller").setLevel(logging.ERROR)  # the transcript is what this prints
    club_path = args.club or args.dir / "club.sqlite"
    journal = args.journal or args.dir / "journal.sqlite"
    try:
        club = Club.open(str(club_path), table="evening")
    except ClubError as exc:
        return club_failed("evening", exc)
    print(f"club {club_path}, journal {journal}")
    plan = Plan(games=args.games, players=args.players, variant=args.variant, policy=args.autoplay, seed=args.seed,
                guests=tuple(range(12, args.players + 1)))
    try:
        report = Evening(club, journal, plan, lang=args.lang, crash_point=env_crash_point()).run()
    except (ClubError, VariantError) as exc:
        return club_failed("evening", exc)
    print()
    levels = club.levels()
    print_standings({"evening": club.store.latest_evening(), "games": len(club.store.games(
        evening=club.store.latest_evening())), "standings": report.standings})
    print("levels: " + ", ".join(f"{name} {level}" for name, level in sorted(levels.items())))
    if args.csv is not None:
        paths = export_csv(club, args.csv)
        print("wrote " + ", ".join(str(p) for p in paths))
    club.close()
    print(say("evening_read", args.lang, club=club_path, command=command("records", "standings", "--club",
                                                                          club_path)))
    return 0
