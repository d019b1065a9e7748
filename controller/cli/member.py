"""``tianhei member add|list|show|card``: the club's members and their NFC member cards (controller/club)."""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli.club_args import add_club_arguments, club_failed, open_club


def register(sub: Any) -> None:
    from controller.cli.diag import add_table_arguments

    p = sub.add_parser("member", help="the club's members: add, list, show, enrol a member card")
    actions = p.add_subparsers(dest="member_command", metavar="ACTION")
    actions.required = True

    add = actions.add_parser("add", help="add a member, then tap their member card on any seat")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--card", default=None, metavar="UID", help="the card's UID, instead of tapping it")
    add.add_argument("--no-card", action="store_true", help="no member card now (`member card NAME` later)")
    add.add_argument("--level", type=int, default=1, help="the level the club gives on joining (default 1)")
    add_table_arguments(add)
    add_club_arguments(add)
    add.set_defaults(func=run_add)

    lst = actions.add_parser("list", help="every member with card, level and points")
    add_club_arguments(lst)
    lst.set_defaults(func=run_list)

    show = actions.add_parser("show", help="one member: card, level, points, games (records member NAME)")
    show.add_argument("name", metavar="NAME")
    add_club_arguments(show)
    show.set_defaults(func=run_show)

    card = actions.add_parser("card", help="enrol a member's (new) card: tap it on any seat; the old one stops")
    card.add_argument("name", metavar="NAME")
    card.add_argument("--card", default=None, metavar="UID", help="the card's UID, instead of tapping it")
    add_table_arguments(card)
    add_club_arguments(card)
    card.set_defaults(func=run_card)


def _tap(args: argparse.Namespace, club: Any, name: str) -> str | None:
    """The UID of a card tapped on the table the config (or --hardware) names; None if nobody tapped."""
    from controller.cli.diag import load_setup
    from controller.club.enrol import tap_member_card
    from controller.diag.host import open_host

    _config, profile, players, lang = load_setup(args, "member")
    if profile.adapter == "sim" and not args.auto:
        print("the simulated table has no reader to tap a card on: give the card's UID with --card, or --auto "
              "for a simulated person to tap one")
        return None

    def holder(uid: str) -> str | None:
        m = club.store.member_by_card(uid)
        return m.name if m is not None else None

    print(f"tap {name}'s member card on any seat (2 minutes)")
    with open_host(profile, auto=args.auto, players=players) as host:
        uid: str | None = host.run(lambda _s: tap_member_card(host.table, name, lang.value, taken=holder))
    return uid


def run_add(args: argparse.Namespace) -> int:
    from controller.club.store import ClubError
    from controller.config.errors import ConfigError
    from controller.diag.host import HardwareError

    try:
        club = open_club(args)
        member = club.store.add_member(args.name, args.card, args.level)
        print(f"member {member.name} added (level {member.base_level})")
        if args.card is None and not args.no_card:
            uid = _tap(args, club, member.name)
            if uid is None:
                print(f"no card was tapped: {member.name} has no member card yet "
                      f"(`tianhei member card {member.name}` enrols one)")
                return 0
            member = club.store.set_card(member.name, uid)
        if member.card:
            print(f"member card {member.card} is {member.name}'s")
        return 0
    except (ClubError, ConfigError, HardwareError) as exc:
        return club_failed("member add", exc)


def run_card(args: argparse.Namespace) -> int:
    from controller.club.store import ClubError
    from controller.config.errors import ConfigError
    from controller.diag.host import HardwareError

    try:
        club = open_club(args)
        member = club.store.need_member(args.name)
        uid = args.card or _tap(args, club, member.name)
        if uid is None:
            print(f"no card was tapped: {member.name}'s card is unchanged ({member.card or 'none'})")
            return 1
        old = member.card
        member = club.store.set_card(member.name, uid)
        print(f"member card {member.card} is {member.name}'s" + (f"; card {old} no longer is" if old and
                                                                 old != member.card else ""))
        return 0
    except (ClubError, ConfigError, HardwareError) as exc:
        return club_failed("member card", exc)


def run_list(args: argparse.Namespace) -> int:
    from controller.club.standings import tallies
    from controller.club.store import ClubError
    from controller.config.errors import ConfigError

    try:
        club = open_club(args)
        members = club.store.members()
        sums = tallies(club.store.games(), club.scoring)
    except (ClubError, ConfigError) as exc:
        return club_failed("member list", exc)
    if not members:
        print("no members yet: `tianhei member add NAME`")
        return 0
    print(f"{'name':16} {'card':16} {'level':>5} {'points':>8} {'games':>6}")
    for m in members:
        t = sums.get(m.name)
        print(f"{m.name:16} {m.card or '-':16} {club.level(m):>5} {t.points if t else 0:>8g} "
              f"{t.games if t else 0:>6}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from controller.cli.records import print_member

    return print_member(args, "member show")

