"""``tianhei hall``: the club's hall service (its web page, its announcements, the waiting list), and
``tianhei hall broker-files``: the broker's configuration for the club's rooms (systemd/install-broker.sh uses it).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

from controller.cli.game_args import fail
from controller.config import ConfigError, load


def register(sub: Any) -> None:
    p = sub.add_parser("hall", help="the club's hall: every room live on a web page, announcements, waiting list")
    p.add_argument("action", nargs="?", default="serve", choices=("serve", "broker-files", "quarantine"),
                   help="serve (default): run the hall service; broker-files: write Mosquitto's configuration; "
                   "quarantine [list]: the messages the hall refused; quarantine retake ID...|--all: take them "
                   "again after an upgrade (docs/club.md)")
    p.add_argument("what", nargs="*", metavar="list|retake ID", help=argparse.SUPPRESS)
    p.add_argument("--all", action="store_true", help="quarantine retake: every message in the quarantine")
    p.add_argument("--config", type=Path, default=None, help="tianhei.toml with [mqtt] and [hall] (default ./tianhei.toml)")
    p.add_argument("--host", default=None, help="the page's address (default [hall] http_host, 127.0.0.1); the "
                   "hall's address on the club network to let the TV and phones in")
    p.add_argument("--port", type=int, default=None, help="the page's port (default [hall] http_port, 8088; the judge's console keeps 8080)")
    p.add_argument("--no-web", action="store_true", help="no web page: only the broker link and the announcements")
    p.add_argument("--club", default=None, help="broker-files: the club's name in the topics (default [mqtt] club)")
    p.add_argument("--rooms", default=None, help="broker-files: room ids, comma-separated (default [hall] rooms)")
    p.add_argument("--out", type=Path, default=None, help="broker-files: the folder to write (mosquitto.conf, acl, "
                   "passwd, secrets/)")
    p.add_argument("--bind", action="append", default=None,
                   help="broker-files: an address to listen on besides 127.0.0.1 (the Pi's club-network address); "
                   "repeatable")
    p.add_argument("--no-tls", action="store_true", help="broker-files: plain MQTT on the --bind addresses too (the "
                   "passwords cross the club's network in clear; by default they get TLS on [mqtt] tls_port, 8883)")
    p.add_argument("--data-dir", type=Path, default=None, help="broker-files: where the broker keeps its sessions")
    p.add_argument("--league-address", default=None, metavar="HOST:PORT",
                   help="broker-files: bridge the club's results and standings to the league's broker there (TLS; "
                   "docs/league.md)")
    p.add_argument("--league-certs", type=Path, default=None, metavar="DIR",
                   help="broker-files: the folder with ca.crt and club-CLUB.crt/.key from the league")
    p.add_argument("--league-ca", type=Path, default=None, help="broker-files: the league's CA (default DIR/ca.crt)")
    p.add_argument("--league-cert", type=Path, default=None,
                   help="broker-files: the club's certificate (default DIR/club-CLUB.crt)")
    p.add_argument("--league-key", type=Path, default=None,
                   help="broker-files: the club's key (default DIR/club-CLUB.key)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        # None: ./tianhei.toml if there is one, else the defaults; broker-files makes the CA a TLS link needs
        config = load(args.config, check_broker_ca=args.action != "broker-files")
    except ConfigError as exc:
        return fail(str(exc))
    if args.action == "broker-files":
        return _broker_files(config, args)
    if args.action == "quarantine":
        return _quarantine(config, args)
    if args.what or args.all:
        return fail(f"hall {args.action}: unexpected {' '.join(args.what) or '--all'} (list and retake are "
                    "for hall quarantine)")
    from controller.hall.app import SetupError, broker_address, build_service, serve
    from controller.hall.outbox import OutboxError

    try:
        broker = broker_address(config, "hall")
        service = build_service(config)
    except (SetupError, OutboxError, OSError) as exc:
        return fail(str(exc))
    host = args.host or config.hall.http_host
    port = args.port or config.hall.http_port
    if not args.no_web:
        print(f"tianhei hall: the hall's page is at http://{host}:{port}/ (English: ?lang=en)", flush=True)
        if config.hall.organiser_code:
            print("tianhei hall: the organiser's buttons need the code: open the page with ?code=...", flush=True)
        else:  # the safe default (docs/security.md): looking is for everyone, changing the list is not
            print("tianhei hall: no [hall] organiser_code: the organiser's buttons work only in a browser on this "
                  "machine; set one to use them from a phone", flush=True)
    print(f"tianhei hall: club {service.club!r}, broker {broker.host}:{broker.port} as {broker.username!r}",
          flush=True)
    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):  # systemd stops it with SIGTERM (SDL would swallow it)
            loop.add_signal_handler(sig, stop.set)
        await serve(service, broker, stop, host=host, port=port, organiser_code=config.hall.organiser_code,
                    web=not args.no_web, names=config.hall.http_names)

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0


def _broker_files(config: Any, args: argparse.Namespace) -> int:
    from controller.hall.broker import BrokerError, write_files
    from controller.hall.certs import CertError
    from controller.hall.topics import TopicError

    if args.out is None:
        return fail("hall broker-files needs --out DIR (where mosquitto.conf, acl, passwd and secrets/ go)")
    rooms = [r.strip() for r in args.rooms.split(",") if r.strip()] if args.rooms else \
        [str(r["id"]) for r in config.hall.rooms]
    club = args.club or config.mqtt.club
    try:
        bridge = _league_bridge(args, club)
        files = write_files(args.out, club, rooms, port=config.mqtt.port, tls_port=config.mqtt.tls_port,
                            binds=["127.0.0.1", *(args.bind or [])], data_dir=args.data_dir, bridge=bridge,
                            tls=not args.no_tls)
    except (BrokerError, TopicError, CertError, OSError) as exc:
        return fail(str(exc))
    print(f"wrote {files.conf}, {args.out / 'acl'}, {args.out / 'passwd'} and a password per user in "
          f"{args.out / 'secrets'}/ ({', '.join(files.passwords)})")
    if files.cafile is not None:
        print(f"the club network's listener ({', '.join(files.tls_binds)} port {files.tls_port}) is TLS: copy "
              f"{files.cafile} to each table and set [mqtt] cafile to it (keep {files.cafile.with_name('ca.key')} "
              f"here)")
    elif args.bind:
        print(f"warning: --no-tls: the tables' passwords cross the club's network in clear on "
              f"{', '.join(args.bind)} port {config.mqtt.port} (docs/security.md)", file=sys.stderr)
    if files.warning:
        print(files.warning, file=sys.stderr)
    if bridge is not None:
        from controller.hall.broker import version
        from controller.league.bridge import handshake_warning

        print(f"the broker bridges club {club}'s results and standings to the league at {bridge.address} (TLS, "
              f"as {bridge.certfile.name})")
        warning = handshake_warning(version())
        if warning:
            print(warning, file=sys.stderr)
    return 0


def _quarantine(config: Any, args: argparse.Namespace) -> int:
    """``hall quarantine [list]`` prints what the hall refused; ``hall quarantine retake ID...|--all`` takes it
    again (controller/hall/service.py, HallService.retake)."""
    from controller.cli.club_args import print_quarantine
    from controller.hall.store import HallStore

    verb, ids = (args.what[0], args.what[1:]) if args.what else ("list", [])
    if verb not in ("list", "retake"):
        return fail(f"hall quarantine: no action {verb!r}: list, or retake ID... (ids as listed) or --all")
    if verb == "list" and (ids or args.all):
        return fail("hall quarantine list takes no ids: retake ID... takes those messages again")
    if verb == "retake" and not ids and not args.all:
        return fail("hall quarantine retake needs the ids to take again (as `hall quarantine` lists them) or --all")
    if not Path(config.hall.db).exists():
        return print_quarantine([], config.hall.db)
    try:
        store = HallStore(config.hall.db)
    except (OSError, sqlite3.Error) as exc:
        return fail(f"hall quarantine: {config.hall.db}: {exc}")
    if verb == "list":
        return print_quarantine(store.quarantined(), config.hall.db)
    from controller.hall.app import build_service

    rows, unknown = (store.quarantined(), []) if args.all else store.quarantine_rows(ids)
    if unknown:
        return fail(f"hall quarantine retake: no single message with id {', '.join(unknown)} in {config.hall.db} "
                    "(`tianhei hall quarantine` lists them)")
    service = build_service(config, store=store, voices=[], auto_send=False)
    outcome = {"taken": 0, "had": 0, "refused": 0}
    for q in sorted(rows, key=lambda q: q.first):  # in the order they first came
        what, told = service.retake(q)
        outcome[what] += 1
        print(f"{q.id}  {'still refused: ' if what == 'refused' else ''}{told}")
    print(f"{outcome['taken']} taken, {outcome['had']} stored already, {outcome['refused']} still refused "
          f"(left in the quarantine)" + ("; restart the hall (systemctl restart tianhei-hall) so it offers the "
                                         "records taken to the league" if outcome["taken"] else ""))
    return 0


def _league_bridge(args: argparse.Namespace, club: str) -> Any:
    """The bridge to the league from the --league-* options (None without --league-address)."""
    from controller.hall.broker import BrokerError

    given = [args.league_certs, args.league_ca, args.league_cert, args.league_key]
    if args.league_address is None:
        if any(given):
            raise BrokerError("the --league-* files need --league-address HOST:PORT (the league broker's TLS port)")
        return None
    from controller.league.bridge import Bridge, check_address
    from controller.league.certs import club_user

    check_address(args.league_address)
    folder = args.league_certs
    paths = {"--league-ca": args.league_ca or (folder / "ca.crt" if folder else None),
             "--league-cert": args.league_cert or (folder / f"{club_user(club)}.crt" if folder else None),
             "--league-key": args.league_key or (folder / f"{club_user(club)}.key" if folder else None)}
    for option, path in paths.items():
        if path is None:
            raise BrokerError(f"a league bridge needs {option} FILE (or --league-certs DIR with the league's files)")
        if not path.is_file():
            raise BrokerError(f"{option} {path}: no such file (the league's organiser makes it: tianhei league certs)")
    ca, cert, key = (Path(p).resolve() for p in paths.values() if p is not None)
    return Bridge(club, args.league_address, ca, cert, key)
