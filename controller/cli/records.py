"""``tianhei records``: the club's record of every finished game (controller/club).

``records`` lists the games; ``records game ID`` tells one; ``records member NAME`` a member's games, wins by
side and by role, survival and points; ``records standings`` an evening's ranking; ``records export --csv DIR``
writes games, seats and members as CSV; ``records rebuild --journal PATH`` records again from the journal
(every finished game it holds that the club lacks, or one game with ``--game N``, replacing the club's copy).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from controller.cli.club_args import add_club_arguments, club_failed, open_club
from controller.cli.words import command


def register(sub: Any) -> None:
    p = sub.add_parser("records", help="the club's records: games, one game, a member, standings, CSV export")
    add_club_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON (the records the hall reads)")
    p.set_defaults(func=run_list)
    actions = p.add_subparsers(dest="records_command", metavar="ACTION")

    game = actions.add_parser("game", help="one game: seats, members, roles, deaths in order, points")
    game.add_argument("id", type=int, metavar="ID")
    add_club_arguments(game, sub=True)
    game.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    game.set_defaults(func=run_game)

    member = actions.add_parser("member", help="a member's games, wins by side and role, survival, points")
    member.add_argument("name", metavar="NAME")
    add_club_arguments(member, sub=True)
    member.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    member.set_defaults(func=lambda args: print_member(args, "records member"))

    st = actions.add_parser("standings", help="an evening's standings (default: the latest evening)")
    st.add_argument("--evening", default=None, metavar="YYYY-MM-DD")
    add_club_arguments(st, sub=True)
    st.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    st.set_defaults(func=run_standings)

    export = actions.add_parser("export", help="write games.csv, seats.csv and members.csv")
    export.add_argument("--csv", required=True, type=Path, metavar="DIR")
    add_club_arguments(export, sub=True)
    export.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    export.set_defaults(func=run_export)

    rebuild = actions.add_parser("rebuild", help="record again from the journal (the source)")
    rebuild.add_argument("--journal", default=None, metavar="PATH",
                         help="the table's journal (default: [journal] path of the config)")
    rebuild.add_argument("--game", type=int, default=None, metavar="N",
                         help="the journal's game N: its record is written again from the journal")
    add_club_arguments(rebuild, sub=True)
    rebuild.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    rebuild.set_defaults(func=run_rebuild)


def _open(args: argparse.Namespace, where: str) -> Any:
    try:
        return open_club(args)
    except Exception as exc:
        from controller.club.store import ClubError
        from controller.config.errors import ConfigError

        if isinstance(exc, ClubError | ConfigError):
            raise _Failed(club_failed(where, exc)) from None
        raise


class _Failed(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def _guard(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from controller.club.store import ClubError

        try:
            return int(fn(args))
        except _Failed as f:
            return f.code
        except ClubError as exc:
            return club_failed(f"records {getattr(args, 'records_command', None) or ''}".strip(), exc)
    return run


@_guard
def run_list(args: argparse.Namespace) -> int:
    club = _open(args, "records")
    games = club.store.games()
    if args.json:
        print(json.dumps([g.as_dict() for g in games], ensure_ascii=False))
        return 0
    if not games:
        print(f"no games recorded yet in {club.store.path}")
        _point_at_the_demo_evening(club.store.path)
        return 0
    print(f"{'id':>4}  {'started':19}  {'table':10} {'room':9} {'variant':14} {'n':>2}  {'min':>4}  winner")
    for g in games:
        print(f"{g.id:>4}  {(g.started or '?'):19}  {g.table:10} {g.room:9} {g.variant:14} {g.players:>2}  "
              f"{g.minutes:>4.0f}  {_side(g.winner, g.variant)} ({g.reason})")
    return 0


def _side(side: str, variant: str) -> str:
    """A recorded winner (a side ID) as its version names it, ID beside: ``Werewolves (killers)``."""
    from controller.screens.strings import side_label

    return side_label(side, variant)


@_guard
def run_game(args: argparse.Namespace) -> int:
    from controller.club.api import game_record

    club = _open(args, "records game")
    data = game_record(club.store, args.id, club.scoring)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    print(f"game {data['id']}: {data['variant']}, {data['players']} players, room {data['room']} at "
          f"{data['table']} (journal game {data['journal_game']}), started {data['started'] or '?'}, "
          f"{(data['length_s'] or 0) / 60:.0f} min")
    print(f"  winner: {_side(str(data['winner']), str(data['variant']))} ({data['reason']})")
    if data["options"]:
        print("  options: " + ", ".join(f"{k}={v}" for k, v in sorted(data["options"].items())))
    deaths = ", ".join(f"{i}. seat {d['seat']} {d['cause']}" for i, d in enumerate(data["deaths"], 1))
    print(f"  deaths in order: {deaths or 'none'}")
    for key, label in (("penalties", "penalties"), ("ejections", "ejected"), ("surrenders", "surrendered")):
        if data[key]:
            items = data[key]
            print(f"  {label}: " + ", ".join(f"seat {x['seat']} ({x['total']})" if isinstance(x, dict)
                                              else f"seat {x}" for x in items))
    print(f"  {'seat':>4}  {'member':14} {'role':12} {'side':8} {'died':>4}  {'points':>7}  (game, time, penalty)")
    for s in data["seats"]:
        p = s["points"]
        print(f"  {s['seat']:>4}  {s['member'] or '(guest)':14} {s['role']:12} {s['side']:8} "
              f"{s['death'] or '-':>4}  {p['total']:>7g}  ({p['game']:g}, {p['time']:g}, {p['penalty']:g})")
    return 0


def print_member(args: argparse.Namespace, where: str) -> int:
    from controller.club.standings import tallies
    from controller.club.store import ClubError

    try:
        club = _open(args, where)
        member = club.store.need_member(args.name)
        games = club.store.games(member=member.name)
    except _Failed as f:
        return f.code
    except ClubError as exc:
        return club_failed(where, exc)
    t = tallies(games, club.scoring).get(member.name)
    level = club.level(member)
    if getattr(args, "json", False):
        print(json.dumps({"member": member.name, "card": member.card, "level": level,
                          **(t.as_dict() if t else {}), "games_list": [g.id for g in games]}, ensure_ascii=False))
        return 0
    print(f"{member.name}: level {level}, member card {member.card or 'none'}, joined {member.joined}")
    if t is None:
        print("  no games yet")
        return 0
    print(f"  games {t.games}: {t.wins} won, {t.losses} lost, {t.draws} drawn; survived {t.survived} "
          f"({t.survived / t.games:.0%})")
    print(f"  points {t.points:g} = game {t.game_points:g} + time {t.time_points:g} + penalties "
          f"{t.penalty_points:g}")
    print("  wins by side: " + (", ".join(f"{k} {v}" for k, v in sorted(t.wins_by_side.items())) or "none"))
    print("  wins by role: " + ", ".join(f"{r} {t.wins_by_role.get(r, 0)}/{n}"
                                         for r, n in sorted(t.games_by_role.items())))
    from controller.club.scoring import result_of

    mine = {g.id: next(s for s in g.seats if s.member == member.name) for g in games}
    print("  games: " + ", ".join(f"{g.id} ({mine[g.id].role}, {result_of(g, mine[g.id])})" for g in games))
    return 0


@_guard
def run_standings(args: argparse.Namespace) -> int:
    from controller.club.api import evening_standings

    club = _open(args, "records standings")
    data = evening_standings(club.store, args.evening, club.scoring)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    print_standings(data)
    if not data["standings"]:
        _point_at_the_demo_evening(club.store.path, "standings")
    return 0


#: Where ``tianhei evening`` keeps its scripted club (its --dir default): not the club's own records.
DEMO_EVENING_CLUB = Path("var/evening/club.sqlite")


def _point_at_the_demo_evening(read: str | Path, *action: str) -> None:
    """After ``evening`` a person asks ``records`` and finds the club's own (empty) database: name the evening's,
    with the command that reads it. The demo never writes into the club's real records (its members are made up)."""
    if DEMO_EVENING_CLUB.exists() and Path(read).resolve() != DEMO_EVENING_CLUB.resolve():
        print(f"(this is {read}; the scripted evening's games are in {DEMO_EVENING_CLUB}: "
              f"{command('records', *action, '--club', DEMO_EVENING_CLUB)})")


def print_standings(data: dict[str, Any]) -> None:
    if not data["standings"]:
        print(f"no games recorded for the evening {data['evening'] or '(none yet)'}")
        return
    print(f"standings, evening {data['evening']} ({data['games']} games)")
    print(f"  {'#':>2}  {'member':14} {'level':>5} {'games':>5} {'wins':>4} {'points':>7}  (game, time, penalty)")
    for r in data["standings"]:
        print(f"  {r['rank']:>2}  {r['member']:14} {r['level']:>5} {r['games']:>5} {r['wins']:>4} "
              f"{r['points']:>7g}  ({r['game_points']:g}, {r['time_points']:g}, {r['penalty_points']:g})")


@_guard
def run_export(args: argparse.Namespace) -> int:
    from controller.club.export import export_csv

    club = _open(args, "records export")
    try:
        paths = export_csv(club, args.csv)
    except OSError as exc:
        raise _Failed(club_failed("records export", Exception(f"cannot write {args.csv}: {exc.strerror}"))) from None
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


@_guard
def run_rebuild(args: argparse.Namespace) -> int:
    from controller.club import recorder
    from controller.config.settings import load
    from controller.director.journal import JournalError, SqliteJournal

    club = _open(args, "records rebuild")
    path = args.journal or load(args.config, validate_game=None, find_pack=None).journal.path
    if not Path(path).is_file():
        raise _Failed(club_failed("records rebuild", Exception(f"no journal at {path}")))
    try:
        journal = SqliteJournal(path)
    except JournalError as exc:
        raise _Failed(club_failed("records rebuild", exc)) from None
    try:
        if args.game is not None:
            record = recorder.rebuild(club.store, journal, args.game, club.table, club.room)
            print(f"game {record.id} rebuilt from journal game {args.game}: {record.winner} ({record.reason})")
        else:
            done = club.catch_up(journal)
            print(f"recorded {len(done)} game(s) the club did not have" +
                  (": " + ", ".join(str(r.id) for r in done) if done else ""))
    finally:
        journal.close()
    return 0
