"""Every seat's screen changing at once (nightfall, a death), end to end over the whole simulated bus: from the
moment the director draws the new screens to the last byte of the last screen acknowledged by its node, with the
real firmware (under MicroPython) decoding every frame, polls going on between the screen writes, and the
master's command slots as configured. Target (issue: fast where players feel it): <= 100 ms at 16 seats, 1 Mbaud.

    .venv/bin/python benchmarks/bus_screens.py [--seats 16] [--seeds 1 2 3] [--max-time 400]

A "burst" is a moment when the director sends a new picture to at least ``--seats`` screens at once; it ends when
every one of those nodes has acknowledged its last screen frame. Prints each seed's bursts (count, median, max)
and the wire bytes a changed screen took (every screen frame the master wrote, STAGE broadcasts and retransmits
included, over the screens that changed), against what plain DISPLAY frames would have cost. The target is
checked on every burst, the first included: the opening screens of the deal, every panel drawn from blank while
the players look at them (sent as one stage and each seat's own number, firmware/PROTOCOL.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.bus import seatbus as sb
from controller.bus.display import changed_runs, display_payloads
from controller.cli.game_args import game_config
from controller.sessions.bus_session import BusSession

#: The frames that carry a picture (a STAGE is broadcast; the others go to one node, which acknowledges them).
SCREEN_TYPES = (sb.DISPLAY, sb.DISPLAY_RLE, sb.DISPLAY_STAGED, sb.STAGE)


def run(seats: int, seed: int, max_time: float) -> dict[str, object]:
    ns = argparse.Namespace(variant="standard-2.0", players=seats, option=[], seed=seed, roles=None, history=None)
    session = BusSession(game_config(ns), seed, "heuristic")
    master = session.sim.master
    drawn: dict[float, set[int]] = defaultdict(set)
    pending: dict[int, float] = {}  # address -> when its newest picture was drawn
    bursts: list[tuple[float, set[int]]] = []
    done: list[float] = []
    starts: list[float] = []
    screen_bytes = [0]
    plain_bytes: list[int] = []
    bus = session.sim.bus
    write = bus.write

    def counted(data: bytes) -> None:
        if len(data) > 4 and data[4] & ~sb.QUIET in SCREEN_TYPES:  # (a quiet command: firmware 0.8)
            screen_bytes[0] += len(data)
        write(data)

    bus.write = counted  # type: ignore[method-assign]

    for seat in session.sim.table.seats.values():
        screen = seat.screen
        address = seat._address
        original = screen.interface.show

        def show(frame: bytes, _orig=original, _addr=address, _iface=screen.interface) -> None:
            now = session.clock.now()
            drawn[now].add(_addr)
            pending[_addr] = now
            before = bytes(_iface.shadow)
            _orig(frame)
            plain = 0
            for page in range(8):
                for start, end in changed_runs(before, frame, page):
                    plain += sum(len(p) + sb.OVERHEAD for p in display_payloads(page, start, frame[page * 128 + start : page * 128 + end]))
            if plain:
                plain_bytes.append(plain)
            if len(drawn[now]) == seats:
                bursts.append((now, set(drawn[now])))

        screen.interface.show = show  # type: ignore[method-assign]

    def on_command(address: int, mtype: int, when: float) -> None:
        if mtype in SCREEN_TYPES and address not in master.stager.pending and not any(
            t in SCREEN_TYPES for t, _ in master.nodes[address].outbox
        ):
            pending.pop(address, None)
            open_bursts = [b for b in bursts if b[1]]
            for start, nodes in open_bursts:
                nodes.discard(address)
                if not nodes:
                    done.append(when - start)
                    starts.append(start)

    master.on_command = on_command
    with session:
        session.start()
        session.run(max_time=max_time)
    ms = [d * 1000 for d in done]
    game = ms[1:]  # after the opening (every panel drawn from blank)
    return {"each": [f"{t:.1f}s:{d:.0f}ms" for t, d in zip(starts, ms, strict=True)], "bursts": len(ms),
            "median_ms": statistics.median(ms) if ms else 0.0, "max_ms": max(ms) if ms else 0.0,
            "game_max_ms": max(game) if game else 0.0, "opening_ms": ms[0] if ms else 0.0,
            "bytes_per_screen": screen_bytes[0] / len(plain_bytes) if plain_bytes else 0.0,
            "plain_bytes_per_screen": statistics.mean(plain_bytes) if plain_bytes else 0.0,
            "stages": master.stats.stages, "stage_misses": master.stats.stage_misses}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=16)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--max-time", type=float, default=400.0, help="simulated seconds of each game")
    args = parser.parse_args()
    worst = []
    openings = []
    for seed in args.seeds:
        r = run(args.seats, seed, args.max_time)
        worst.append(float(r["max_ms"]))  # type: ignore[arg-type]
        openings.append(float(r["opening_ms"]))  # type: ignore[arg-type]
        print(f"seed {seed}: {r['bursts']} times every screen changed at once: median {r['median_ms']:.1f} ms, "
              f"max {r['max_ms']:.1f} ms to the last byte acknowledged; a changed screen took "
              f"{r['bytes_per_screen']:.0f} wire bytes (plain DISPLAY: {r['plain_bytes_per_screen']:.0f}; "
              f"{r['stages']} STAGE frames, {r['stage_misses']} stages missed); each (when: how long): "
              f"{' '.join(r['each'])}; the deal's opening took {r['opening_ms']:.1f} ms, the worst after it "
              f"{r['game_max_ms']:.1f} ms")
    print(f"the deal's opening screens over the seeds: min {min(openings):.1f} ms, median "
          f"{statistics.median(openings):.1f} ms, max {max(openings):.1f} ms")
    print(f"worst burst over the seeds, the deal's opening included: min {min(worst):.1f} ms, "
          f"median {statistics.median(worst):.1f} ms, max {max(worst):.1f} ms "
          f"(target <= 100 ms: {'met' if max(worst) <= 100 else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
