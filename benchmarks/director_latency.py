"""From a simulated press to the screen and LED command, on the REAL clock (issue target: p99 under 5 ms).

    .venv/bin/python benchmarks/director_latency.py [--presses N]

The director runs on an asyncio loop (AsyncioScheduler) in the main thread, as on the Pi. A second thread plays
the hardware: it presses a seat's button through the adapter, whose sink hands the event to the loop with
``call_soon_threadsafe`` (the ports' threading contract), and waits until the seat's ``display`` / ``set_led``
is called. Measured:

* ▶ at night (a killer moves the pointer): press -> the seat's screen command;
* OK in a vote window (a raised hand): press -> the seat's LED command (blue) and its screen command.

No journal here: the same hand with the real journal on a slow card (every fsync 10 ms), hands raised together,
is ``benchmarks/vote_hand_latency.py``.

What made it fast (▶ p99 6.2 -> 0.7..2.9 ms, p50 1.1 -> 0.2 ms on a busy 2-core x86 box): countdowns are shown in
whole seconds, so between ticks a press changes only the pressing seat's view (the partners' and the remote's
stay equal and are not redrawn); NightChoice renders in cached layers (frame / pointed-at seat / partners' line);
the remote is sent only when its view changed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

from PIL import Image

from controller.director.clock import AsyncioScheduler
from controller.director.director import Director, Window
from controller.director.timing import Timings
from controller.ports import RGB, Button, Sink
from controller.rules.actions import Pick
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sim.table import SimSeat, SimTable
from controller.voice.null_voice import NullVoice


class TimedSeat(SimSeat):
    """A sim seat that notes when its screen and LED commands arrive."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.shown = threading.Event()
        self.lit = threading.Event()
        self.shown_at = 0.0
        self.lit_at = 0.0

    def display(self, image: Image.Image) -> None:
        super().display(image)
        self.shown_at = time.perf_counter()
        self.shown.set()

    def set_led(self, rgb: RGB) -> None:
        super().set_led(rgb)
        self.lit_at = time.perf_counter()
        self.lit.set()


class ThreadedSimTable(SimTable):
    """The sim table as a hardware adapter: inputs noticed on another thread are handed to the loop. ``seat``:
    the seat that times what it is shown (the other latency benchmarks bring their own)."""

    def __init__(self, players: int, loop: asyncio.AbstractEventLoop,
                 seat: Callable[[int], SimSeat] = lambda n: TimedSeat(n)) -> None:
        super().__init__(players, loop.time)
        self._seats = {n: seat(n) for n in range(1, players + 1)}
        self.loop = loop

    def start(self, sink: Sink) -> None:
        super().start(lambda event: self.loop.call_soon_threadsafe(sink, event))


def pct(xs: list[float], q: float) -> float:
    """The nearest-rank percentile (what every latency benchmark here prints)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def report(name: str, ms: list[float]) -> None:
    print(f"  {name:38} n={len(ms):4}  p50 {statistics.median(ms):.3f} ms  p99 {pct(ms, 0.99):.3f} ms  "
          f"max {max(ms):.3f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=500)
    args = ap.parse_args()
    players = 20
    loop = asyncio.new_event_loop()
    clock = AsyncioScheduler(loop)
    table = ThreadedSimTable(players, loop)
    config = configure(load_variant("standard-2.0"), players, {"vote.window_s": 30.0})
    voice = NullVoice(clock.now, part_seconds=0.01)
    timings = Timings(reveal_s=0.05, night_action_s=3600, speech_s=0.05, last_words_s=0.05, recognition_s=0.05,
                      answer_s=0.05, tally_s=0.05, defence_claim_s=0.05, direction_s=0.05, warnings_s=())
    director = Director(table, voice, clock, config, timings=timings, seed=3)
    windows: dict[str, threading.Event] = {"night": threading.Event(), "vote": threading.Event()}
    current: dict[str, Any] = {}

    def on_window(d: Director, w: Window) -> None:
        if w.kind == "night" and w.step == "kill":
            current["night"] = w
            windows["night"].set()
        elif w.kind == "vote" and w.window_open:
            current["vote"] = w
            windows["vote"].set()

    director.listeners.append(on_window)
    screen_ms: list[float] = []
    led_ms: list[float] = []
    hand_screen_ms: list[float] = []

    def hardware() -> None:
        assert windows["night"].wait(30), "the night never came"
        killers = [s for s in range(1, players + 1) if director.state and director.state.role_of(s) == "killer"]
        seat = table.seats[killers[0]]
        assert isinstance(seat, TimedSeat)
        for _ in range(args.presses):
            seat.shown.clear()
            t0 = time.perf_counter()
            table.press(seat.number, Button.NEXT)
            assert seat.shown.wait(5)
            screen_ms.append((seat.shown_at - t0) * 1000)
            table.release(seat.number, Button.NEXT)
            time.sleep(0.002)  # a human presses a few times a second at most; leave the loop idle between
        # the killers all point at the last seat and confirm, then everyone passes quickly to the vote
        for k in killers:
            loop.call_soon_threadsafe(lambda k=k: director.submit(Pick(k, players), k))
        for _ in range(600):  # the judge ends every other wait (the police check, ...) until the vote
            if windows["vote"].wait(0.05):
                break
            loop.call_soon_threadsafe(lambda: director.window is not None and director.window.kind != "vote"
                                      and director.end_timer())
        assert windows["vote"].is_set(), "the vote never came"
        assert director.state is not None
        for s in sorted(director.state.alive):
            tseat = table.seats[s]
            assert isinstance(tseat, TimedSeat)
            tseat.lit.clear()
            tseat.shown.clear()
            t0 = time.perf_counter()
            table.press(s, Button.OK)
            if tseat.lit.wait(1):  # a counted hand (a refused one has no LED; its notice is not timed here)
                led_ms.append((tseat.lit_at - t0) * 1000)
                if tseat.shown.wait(1):
                    hand_screen_ms.append((tseat.shown_at - t0) * 1000)
            table.release(s, Button.OK)
            time.sleep(0.002)
        loop.call_soon_threadsafe(loop.stop)

    loop.call_soon(director.start)
    worker = threading.Thread(target=hardware, daemon=True)
    worker.start()
    loop.run_forever()
    worker.join(5)
    print(f"press -> command on the real clock (asyncio loop, press from another thread), {players} seats")
    report("▶ at night -> screen", screen_ms)
    if led_ms:
        report("OK in a vote window -> LED", led_ms)
        report("OK in a vote window -> screen", hand_screen_ms)


if __name__ == "__main__":
    main()
