"""CPU used by an idle table during a speech, on the REAL clock (issue target: under 1% of one core: no busy
polling; the countdown redraws once a second).

    .venv/bin/python benchmarks/director_idle.py [--seconds 20]

The director runs on an asyncio loop (AsyncioScheduler) with a 12-seat sim table (luma dummy screens). Night
one is ended by the judge, then the table sits through one speaker's turn of ``--seconds`` (default 20; the
real turn is 120 s) with nobody pressing anything. Prints process CPU time / wall time as % of one core, and
the screen frames sent during the speech.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from controller.director.clock import AsyncioScheduler
from controller.director.director import Director, Window
from controller.director.timing import Timings
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    args = ap.parse_args()
    loop = asyncio.new_event_loop()
    clock = AsyncioScheduler(loop)
    table = SimTable(12, clock.now)
    config = configure(load_variant("standard-2.0"), 12)
    voice = NullVoice(clock.now, part_seconds=0.01)
    timings = Timings(reveal_s=0.05, night_action_s=0.05, answer_s=0.05, last_words_s=0.05,
                      speech_s=args.seconds, warnings_s=(10.0,))
    director = Director(table, voice, clock, config, timings=timings, seed=2)
    measured: dict[str, float] = {}

    def on_window(d: Director, w: Window) -> None:
        if w.kind == "speeches" and "cpu0" not in measured:
            measured["cpu0"], measured["wall0"] = time.process_time(), time.perf_counter()
            measured["frames0"] = sum(s.frames for s in table.seats.values())

            def done() -> None:
                measured["cpu"] = time.process_time() - measured["cpu0"]
                measured["wall"] = time.perf_counter() - measured["wall0"]
                measured["frames"] = sum(s.frames for s in table.seats.values()) - measured["frames0"]
                loop.stop()

            loop.call_at(w.deadline - 0.01, done)

    director.listeners.append(on_window)
    loop.call_soon(director.start)
    loop.run_forever()
    share = 100 * measured["cpu"] / measured["wall"]
    print(f"idle table during a {args.seconds:g} s speech (12 seats, real clock): "
          f"{measured['cpu'] * 1000:.1f} ms CPU in {measured['wall']:.1f} s = {share:.3f}% of one core; "
          f"{measured['frames']:.0f} screen frames sent")


if __name__ == "__main__":
    main()
