"""``tianhei league``: the league of several clubs (controller/league/, docs/league.md).

``serve`` (default) the league service and its page, fed from the league's broker · ``certs`` the league's CA
and certificates (openssl) · ``broker-files`` the league broker's configuration · ``members`` the people the
league knows · ``merge A B`` make B's records A's (one person) · ``quarantine`` the messages it refused.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from controller.cli.game_args import fail


def _serve_options(p: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """The page's and the broker's options, on ``tianhei league`` and ``tianhei league serve`` alike (on the
    action's parser a value not given leaves the one given before the action)."""
    def d(value: object) -> object:
        return argparse.SUPPRESS if sub else value

    p.add_argument("--db", type=Path, default=d(Path("var/league.sqlite")), help="the league's database "
                   "(default var/league.sqlite)")
    p.add_argument("--config", type=Path, default=d(None), help="tianhei.toml whose [club.scoring] the league uses "
                   "and whose [league] http_names the page answers to besides its --host and this machine's "
                   "names (default: the shipped scoring)")
    p.add_argument("--broker", default=d("127.0.0.1:1884"), metavar="HOST:PORT",
                   help="the league broker's loopback listener (default 127.0.0.1:1884)")
    p.add_argument("--password-file", type=Path, default=d(None),
                   help="the league user's password (league broker-files writes secrets/league.secret)")
    p.add_argument("--host", default=d("127.0.0.1"), help="the page's address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=d(8089), help="the page's port (default 8089)")


def register(sub: Any) -> None:
    p = sub.add_parser("league", help="the league of several clubs: its page, certificates, broker files, merges",
                       description="The league: each club's broker bridges its results and standings to the "
                                   "league's broker (tianhei hall broker-files --league-address); tianhei league "
                                   "(serve) shows the league's page from them.")
    _serve_options(p)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    _serve_options(actions.add_parser("serve", help="the league service and its page (the default)"), sub=True)
    c = actions.add_parser("certs", help="the league's CA, the league broker's and each club's certificate (openssl)")
    c.add_argument("--out", type=Path, required=True, help="the folder to write")
    c.add_argument("--clubs", required=True, help="the clubs, comma-separated")
    c.add_argument("--address", action="append", default=[], help="a name or address the clubs dial "
                   "(repeatable; loopback is always in)")
    b = actions.add_parser("broker-files", help="the league broker's mosquitto.conf, ACL and password")
    b.add_argument("--out", type=Path, required=True, help="the folder to write")
    b.add_argument("--certs", type=Path, required=True, help="where league certs put ca.crt, league.crt, league.key")
    b.add_argument("--clubs", required=True, help="the clubs, comma-separated")
    b.add_argument("--bind", action="append", default=[], help="an address the TLS listener takes the bridges on "
                   "besides 127.0.0.1 (repeatable)")
    b.add_argument("--tls-port", type=int, default=8883, help="the bridges' TLS port (default 8883)")
    b.add_argument("--local-port", type=int, default=1884, help="the league service's loopback port (default 1884)")
    b.add_argument("--data-dir", type=Path, default=None, help="where the broker keeps its sessions")
    m = actions.add_parser("members", help="the people the league knows, with their clubs and keys")
    m.add_argument("--db", type=Path, default=argparse.SUPPRESS, help="the league's database")
    q = actions.add_parser("quarantine", help="the messages the league refused: which club, which field, why")
    q.add_argument("--db", type=Path, default=argparse.SUPPRESS, help="the league's database")
    g = actions.add_parser("merge", help="one person from two records: B's games become A's")
    g.add_argument("people", nargs=2, metavar="PERSON", help="A then B, each #ID, card:UID or CLUB:NAME")
    g.add_argument("--db", type=Path, default=argparse.SUPPRESS, help="the league's database")
    p.set_defaults(func=run)


def _clubs(args: argparse.Namespace) -> list[str]:
    return [c.strip() for c in (args.clubs or "").split(",") if c.strip()]


def run(args: argparse.Namespace) -> int:
    args.action = args.action or "serve"
    from controller.cli.club_args import club_failed
    from controller.config.errors import ConfigError
    from controller.hall.broker import BrokerError
    from controller.hall.topics import TopicError
    from controller.league.certs import CertError
    from controller.league.store import LeagueError

    try:
        if args.action == "certs":
            return _certs(args)
        if args.action == "broker-files":
            return _broker_files(args)
        if args.action == "members":
            return _members(args)
        if args.action == "merge":
            return _merge(args)
        if args.action == "quarantine":
            return _quarantine(args)
        return _serve(args)
    except ConfigError as exc:
        return club_failed(f"league {args.action}", exc)
    except (BrokerError, TopicError, CertError, LeagueError) as exc:
        return fail(f"league {args.action}: {exc}")
    except OSError as exc:
        return fail(f"league {args.action}: {exc}")


def _certs(args: argparse.Namespace) -> int:
    from controller.league.certs import make_all

    clubs = _clubs(args)
    if not clubs:
        return fail("league certs needs --clubs red,blue,…")
    made = make_all(args.out, clubs, args.address)
    print(f"wrote the league's CA ({args.out / 'ca.crt'}; keep ca.key to yourself), the league broker's "
          f"certificate ({args.out / 'league.crt'}) and one per club: "
          + ", ".join(f"{c.cert.name} + {c.key.name}" for c in made.values()))
    print("each club gets ca.crt and its own .crt and .key: tianhei hall broker-files --league-address "
          "HOST:PORT --league-certs DIR")
    return 0


def _broker_files(args: argparse.Namespace) -> int:
    from controller.league.bridge import league_files

    files = league_files(args.out, _clubs(args), args.certs, tls_port=args.tls_port, local_port=args.local_port,
                         binds=["127.0.0.1", *args.bind], data_dir=args.data_dir)
    print(f"wrote {files.conf}, {args.out / 'acl'}, {args.out / 'passwd'} and {args.out / 'secrets'}/league.secret: "
          f"bridges on TLS port {files.tls_port}, the league service on 127.0.0.1:{files.local_port}; clubs "
          + ", ".join(files.clubs))
    if files.warning:
        print(files.warning, file=sys.stderr)
    return 0


def _members(args: argparse.Namespace) -> int:
    from controller.league.store import LeagueStore

    store = LeagueStore(args.db)
    for p in store.people():
        print(f"#{p.id}  {p.name}  clubs: {', '.join(p.clubs) or '-'}  keys: {', '.join(p.keys)}")
    return 0


def _quarantine(args: argparse.Namespace) -> int:
    from controller.cli.club_args import print_quarantine
    from controller.league.store import LeagueStore

    if not Path(args.db).exists():
        return print_quarantine([], str(args.db))
    return print_quarantine(LeagueStore(args.db).quarantined(), str(args.db))


def _merge(args: argparse.Namespace) -> int:
    from controller.league.store import LeagueStore

    store = LeagueStore(args.db)
    into, before = store.merge(*args.people)
    print(f"merged #{before.id} {before.name} ({', '.join(before.keys)}) into #{into.id} {into.name}: clubs "
          f"{', '.join(into.clubs)}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from controller.hall.mqtt import BrokerAddress
    from controller.league.bridge import LEAGUE_USER
    from controller.league.service import LeagueService
    from controller.league.store import LeagueStore

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    host, sep, port = args.broker.rpartition(":")
    if not sep or not port.isdigit():
        return fail(f"league: --broker {args.broker!r}: write HOST:PORT")
    password = args.password_file.read_text(encoding="utf-8").strip() if args.password_file else None
    scoring, names = _settings(args.config)
    service = LeagueService(LeagueStore(args.db), scoring=scoring)
    print(f"tianhei league: the page is at http://{args.host}:{args.port}/ (English: ?lang=en); broker "
          f"{host}:{port} as {LEAGUE_USER!r}", flush=True)

    async def main() -> None:
        from controller.league.web import open_page

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        server = await open_page(service, args.host, args.port, names)
        link = asyncio.create_task(service.run_mqtt(BrokerAddress(host, int(port), LEAGUE_USER, password), stop))
        page = [server.task] if server.task is not None else []
        await asyncio.wait([asyncio.create_task(stop.wait()), *page], return_when=asyncio.FIRST_COMPLETED)
        stop.set()
        await server.stop()
        await asyncio.gather(link, return_exceptions=True)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0


def _settings(path: Path | None) -> tuple[Any, tuple[str, ...]]:
    """The league's scoring table and the page's extra names ([league] http_names) from ``--config``."""
    from controller.club.scoring import DEFAULT, parse_scoring

    if path is None:
        return DEFAULT, ()
    from controller.config.settings import load

    config = load(path, validate_game=None, find_pack=None)
    return parse_scoring(config.club.scoring, config.club.levels)[0], config.league.http_names
