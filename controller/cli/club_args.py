"""What the club commands share (member, records, evening): which club database, with which scoring table."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_club_arguments(p: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """--config and --club; ``sub``: on an action's parser too (``records game 3 --club X``), where a value
    not given leaves the one given before the action."""
    default = argparse.SUPPRESS if sub else None
    if not any(a.dest == "config" for a in p._actions):
        p.add_argument("--config", default=default, metavar="PATH",
                       help="the configuration file (default: tianhei.toml)")
    p.add_argument("--club", default=default, metavar="PATH",
                   help="the club database (default: [club] path of the config, or club.sqlite beside the journal)")


def open_club(args: argparse.Namespace) -> Any:
    """The club the config's [club] section names (its scoring table, room, table name), at --club if given.
    Raises ConfigError (the config) or ClubError (the database)."""
    from controller.club.scoring import parse_scoring
    from controller.club.service import Club, club_path
    from controller.club.store import ClubError
    from controller.config.settings import load

    config = load(getattr(args, "config", None), validate_game=None, find_pack=None)
    section = config.club
    path = getattr(args, "club", None) or club_path(config)
    if not path:
        raise ClubError("no club database: [club] path is empty in the config; give --club PATH")
    scoring, _ = parse_scoring(section.scoring, section.levels)
    return Club.open(path, table=section.table, room=section.room, scoring=scoring,
                     recruit_max_level=section.recruit_max_level)


def club_failed(where: str, exc: Exception) -> int:
    from controller.config.errors import ConfigError

    if isinstance(exc, ConfigError):
        print(f"tianhei {where}: {len(exc.problems)} problem(s) in the configuration:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  - {problem}", file=sys.stderr)
    else:
        print(f"tianhei {where}: {exc}", file=sys.stderr)
    return 2


def print_quarantine(rows: Any, where: str) -> int:
    """``tianhei hall quarantine`` / ``tianhei league quarantine``: the refused messages, the latest first."""
    import datetime

    if not rows:
        print(f"nothing refused: the quarantine in {where} is empty")
        return 0
    print(f"{len(rows)} refused message(s) in {where}, the latest first (sender, topic, field: why):")
    for q in rows:
        print(q.line(datetime.datetime.fromtimestamp(q.last).strftime("%Y-%m-%d %H:%M:%S")))
    return 0
