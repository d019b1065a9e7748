"""``tianhei seat-nodes``: the seats of a bus table, on the host, at the far end of a real serial line.

One real firmware process per seat under ``micropython`` (as ``tianhei bus-sim`` runs them), joined by a
modelled RS-485 wire (``controller/bus/wire.py``, real time, one speaker at a time, at the configured baud) to a
pty, a tty or a unix socket whose other end is the table's ``[bus] port``: ``tianhei serve`` on this machine, or
in a VM whose UART is that socket. Bots that see only each seat's screen and LED play the game
(``controller/bus/seat_bots.py``). It exits 0 after ``--games`` games have ended on the screens, printing one JSON
summary, or 1 with one line saying what it waited for when ``--timeout`` runs out.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from controller.cli.game_args import fail


def register(sub: Any) -> None:
    p = sub.add_parser("seat-nodes", help="firmware seat nodes and their players behind a real tty or socket",
                       description="Run one micropython firmware node per seat on a modelled RS-485 wire behind "
                                   "a real serial line (a pty made here, a tty, or a unix socket such as QEMU's "
                                   "serial port), with bots that read the seats' screens and press their "
                                   "buttons, until the table's games end on the screens.")
    line = p.add_mutually_exclusive_group(required=True)
    line.add_argument("--connect", type=Path, metavar="PATH",
                      help="a tty/pty to open, or a unix socket to connect to (and connect again when it goes: "
                           "QEMU -serial unix:PATH,server,nowait)")
    line.add_argument("--pty", type=Path, metavar="LINK",
                      help="make a pty pair; LINK becomes a symlink to the table's end (its [bus] port)")
    line.add_argument("--listen", type=Path, metavar="PATH",
                      help="serve a unix socket at PATH, one table at a time (QEMU -serial unix:PATH)")
    p.add_argument("--config", type=Path, required=True,
                   help="the table's tianhei.toml (language, variant, players, seats and [game] deck/seed)")
    p.add_argument("--seats", type=int, default=None, help="seats with a node (default: [game] players)")
    p.add_argument("--seed", type=int, default=None,
                   help="the bots' seed: their choices and the shuffle of the deck (default: [game] seed, else 1)")
    p.add_argument("--baud", type=int, default=None, help="the wire's speed (default: the profile's [bus] baud)")
    p.add_argument("--games", type=int, default=1, metavar="N", help="exit after N games have ended (default 1)")
    p.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                   help="give up (exit 1) after this long (default 1800)")
    p.add_argument("--slow", type=float, default=1.0, metavar="F",
                   help="multiply the bots' waits (settle, retry, silence) by F: a table in an emulated VM is slow")
    p.add_argument("--json-log", type=Path, default=None, metavar="FILE",
                   help="append one JSON line per thing seen or done (screens, presses, game ends)")
    p.add_argument("--trace", type=Path, default=None, metavar="FILE",
                   help="write every frame read from the line and every answer written to it, with times")
    p.set_defaults(func=run)


def _deal(deck: dict[str, str], composition: tuple[tuple[str, int], ...], seats: list[int],
          seed: int) -> dict[int, str]:
    """The cards the players draw: from the deck, as many of each role as the game has (the first UIDs of that
    role, the rest stay in the box), shuffled by the seed (one card a seat)."""
    by_role: dict[str, list[str]] = {}
    for uid, role in sorted(deck.items()):
        by_role.setdefault(role, []).append(uid)
    cards: list[str] = []
    for role, count in composition:
        have = by_role.get(role, [])
        if len(have) < count:
            raise ValueError(f"the deck has {len(have)} {role} cards, the game needs {count}")
        cards.extend(have[:count])
    random.Random(f"cards:{seed}").shuffle(cards)
    return dict(zip(seats, cards, strict=False))


def run(args: argparse.Namespace) -> int:
    from controller.bus.endpoint import EndpointError, open_endpoint
    from controller.bus.screen_reader import ScreenBook
    from controller.bus.seat_bots import BotTiming, Players
    from controller.bus.sim import find_micropython, node_config
    from controller.bus.wire import RealNode, RealWire
    from controller.config import ConfigError, load
    from controller.live import deck_roles, game_config

    try:
        config = load(args.config, check_remote_key=False)
    except ConfigError as exc:
        return fail(f"{args.config}: {exc.problems[0] if exc.problems else exc}")
    profile = config.profile
    if profile is None or profile.bus is None:
        return fail(f"{args.config}: its hardware ({config.table.hardware}) is not a bus table")
    players = args.seats or config.game.players
    seat_nodes = {s.number: s.node or s.number for s in profile.seats if s.number <= players}
    if len(seat_nodes) < players:
        return fail(f"{args.config}: {players} players, but its profile has {len(seat_nodes)} seats")
    seed = args.seed if args.seed is not None else (config.game.seed if config.game.seed is not None else 1)
    baud = args.baud or profile.bus.baud
    if args.games < 1 or args.timeout <= 0 or args.slow <= 0:
        return fail("--games, --timeout and --slow must be positive")
    try:
        game = game_config(config, players)
        cards = {}
        if config.game.deck:
            deck = deck_roles(config.game.deck, Path(config.source).parent / "decks")
            cards = _deal(deck, game.composition, sorted(seat_nodes), seed)
        micropython = find_micropython()
    except (ValueError, FileNotFoundError) as exc:
        return fail(str(exc))
    lang = "en" if config.table.language.startswith("en") else "zh"
    book = ScreenBook(game, players, lang)
    log_file: TextIO | None = args.json_log.open("a", encoding="utf-8") if args.json_log else None
    started = time.monotonic()

    def log(what: str, **more: object) -> None:
        if log_file is not None:
            log_file.write(json.dumps({"t": round(time.monotonic() - started, 3), "what": what, **more},
                                      ensure_ascii=False) + "\n")
            log_file.flush()

    try:
        endpoint = open_endpoint(args.connect, args.pty, args.listen)
    except (EndpointError, OSError) as exc:
        return fail(str(exc))
    with tempfile.TemporaryDirectory(prefix="tianhei-seat-nodes-") as tmp:
        nodes = {}
        for address in sorted(seat_nodes.values()):
            state = Path(tmp) / f"node{address}"
            state.mkdir()
            cfg = node_config(address)
            cfg["uart"]["baud"] = baud  # type: ignore[index]
            (state / "config.json").write_text(json.dumps(cfg))
            nodes[address] = RealNode(micropython, state / "config.json", state)
        trace = args.trace.open("w", encoding="ascii") if args.trace else None
        wire = RealWire(endpoint, nodes, baud=baud, trace=trace)
        base = BotTiming()
        timing = BotTiming(hold_s=base.hold_s, retry_s=base.retry_s * args.slow, settle_s=base.settle_s * args.slow,
                           card_s=base.card_s * args.slow, silent_s=base.silent_s * args.slow,
                           look_s=base.look_s * args.slow, stale_s=base.stale_s * args.slow)
        crowd = Players(wire, book, seat_nodes, seed, timing, cards, log=log)
        print(f"tianhei seat-nodes: {len(nodes)} seat nodes (micropython firmware) on {endpoint.name}, "
              f"{baud} baud; seed {seed}, {'cards' if cards else 'digital deal'}", file=sys.stderr, flush=True)
        stop = {"signal": 0}

        def stopped(signum: int, _frame: object) -> None:
            stop["signal"] = signum

        signal.signal(signal.SIGTERM, stopped)
        signal.signal(signal.SIGINT, stopped)
        try:
            finished = wire.run(lambda: crowd.games >= args.games or stop["signal"] != 0,
                                deadline=wire.now() + args.timeout)
        finally:
            wire.close()
            if trace is not None:
                trace.close()
            if log_file is not None:
                log_file.close()
        summary = _summary(crowd, wire, seed, time.monotonic() - started)
        if stop["signal"]:
            print(f"tianhei seat-nodes: stopped by signal {stop['signal']} after {crowd.games} of {args.games} "
                  f"games", file=sys.stderr)
            print(json.dumps(summary, ensure_ascii=False))
            return 1
        if not finished:
            seen = ", ".join(f"{b.seat}: {b.seen.kind if b.seen else 'nothing'}" for b in crowd.bots.values())
            silent = wire.table_silent_for()
            spoke = "never spoke" if silent == float("inf") else f"last spoke {silent:.1f} s ago"
            print(json.dumps(summary, ensure_ascii=False))
            print(f"tianhei seat-nodes: timeout after {args.timeout:.0f} s: {crowd.games} of {args.games} games "
                  f"ended; the table {spoke}; screens {seen}", file=sys.stderr)
            return 1
        print(json.dumps(summary, ensure_ascii=False))
        return 0


def _summary(crowd: Any, wire: Any, seed: int, seconds: float) -> dict[str, Any]:
    from controller.sessions.bus_session import percentile

    f = crowd.figures
    lat = [x * 1000 for x in f.latencies]
    c = wire.counters
    return {
        "games": crowd.games,
        "winners": crowd.winners,
        "seed": seed,
        "seats": len(crowd.bots),
        "seconds": round(seconds, 1),
        "presses": f.presses,
        "taps": f.taps,
        "screens": f.screens,
        "looks": f.looks,
        "latency_ms": {"n": len(lat), "p50": round(percentile(lat, 50), 2), "p99": round(percentile(lat, 99), 2),
                       "max": round(max(lat), 2) if lat else 0.0},
        "wire": {"baud": wire.baud, "master_frames": c.master_frames, "node_frames": c.node_frames,
                 "display_frames": c.display_frames, "led_frames": c.led_frames, "collisions": c.collisions,
                 "yielded": c.yielded, "late_writes": c.late_writes, "max_late_ms": c.max_late_ms,
                 "line_downs": c.line_downs, "max_step_ms": c.max_step_ms, "garbage_bytes": c.garbage_bytes, "node_steps": c.node_steps},
    }
