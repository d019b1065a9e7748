"""A vote hand to its seat's LED and screen, end to end, with the journal on a slow card (issue target: p99 ≤ 10 ms).

    .venv/bin/python benchmarks/vote_hand_latency.py [--fsync-ms 10] [--writer thread|inline] [--presses N]

The director runs on an asyncio loop in the main thread with the real SQLite journal (WAL, synchronous=FULL)
in a temporary folder, as on the Pi. Every fsync the process makes is slowed to ``--fsync-ms`` (an SD card):
a small shim is compiled with the system C compiler and preloaded (``LD_PRELOAD``), so SQLite's own
fsync/fdatasync calls take at least that long. Without a C compiler the benchmark says so and slows each commit
instead (the same wait, added after SQLite's commit).

A second thread plays the hardware. At each vote call every living seat raises its hand (presses OK) within
``--burst-ms`` of the others, in a random order: hands come together, so writes queue behind one another's
fsync (what group commit is for). ``--burst-ms 0`` raises them one at a time instead, each after the last one's
LED (and 2 ms), as ``benchmarks/director_latency.py`` presses. Measured for every counted hand: press -> that seat's LED turning blue, and
press -> its screen showing the counted hand. The judge then ends the vote and every other wait (the remote's
"end timer"), nights pass without a kill, the next day's vote comes; games are played until ``--presses`` hands
are counted.

``--writer inline`` is the table before the writer thread: every input waits for its commit on the loop.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from PIL import Image

from controller.director.clock import AsyncioScheduler
from controller.director.director import Director, Window
from controller.director.journal import SqliteJournal
from controller.director.seat_output import LED_VOTE
from controller.director.timing import Timings
from controller.ports import RGB, Button
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.screens import views as v
from controller.sim.table import SimSeat
from controller.voice.null_voice import NullVoice

sys.path.insert(0, str(Path(__file__).resolve().parent))
from director_latency import ThreadedSimTable, pct

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

static long wanted_ns(void) {
    static long ns = -1;
    if (ns < 0) { const char *s = getenv("TIANHEI_SLOW_FSYNC_US"); ns = s ? atol(s) * 1000L : 10000000L; }
    return ns;
}

static void pad(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long left = wanted_ns() - ((t1.tv_sec - t0->tv_sec) * 1000000000L + (t1.tv_nsec - t0->tv_nsec));
    if (left <= 0) return;
    struct timespec r = {left / 1000000000L, left % 1000000000L};
    while (nanosleep(&r, &r) == -1 && errno == EINTR) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    struct timespec t0; clock_gettime(CLOCK_MONOTONIC, &t0);
    int r = real(fd); pad(&t0); return r;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    struct timespec t0; clock_gettime(CLOCK_MONOTONIC, &t0);
    int r = real(fd); pad(&t0); return r;
}
"""
MARK = "TIANHEI_SLOW_FSYNC_US"


def slow_fsync(ms: float) -> str:
    """Re-run this process with every fsync slowed to ``ms`` (returns only when already so, or without a
    compiler: then each commit is slowed in Python instead). Returns how the delay is made."""
    if os.environ.get(MARK) is not None:
        return f"each fsync/fdatasync slowed to {ms:g} ms (preloaded shim)"
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is not None:
        folder = Path(tempfile.mkdtemp(prefix="slow-fsync-"))
        (folder / "slow_fsync.c").write_text(SHIM)
        lib = folder / "slow_fsync.so"
        built = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(folder / "slow_fsync.c"), "-ldl"],
                               capture_output=True, text=True)
        if built.returncode == 0:
            env = dict(os.environ, LD_PRELOAD=f"{lib} {os.environ.get('LD_PRELOAD', '')}".strip(),
                       **{MARK: str(int(ms * 1000))})
            try:
                sys.exit(subprocess.run([sys.executable, *sys.argv], env=env).returncode)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        print(f"(no fsync shim: {built.stderr.strip().splitlines()[-1:]})")
    commit = SqliteJournal._commit_rows

    def slow_commit(self: SqliteJournal, rows: Any, checkpoint: bool = False) -> None:
        commit(self, rows, checkpoint)
        time.sleep(ms / 1000)

    SqliteJournal._commit_rows = slow_commit  # type: ignore[method-assign]
    return f"each commit slowed by {ms:g} ms (no C compiler for the fsync shim)"


class TimedSeat(SimSeat):
    """A sim seat that notes when its LED turns the vote's blue and when its screen shows a counted hand."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.director: Director | None = None
        self.lit = threading.Event()
        self.shown = threading.Event()
        self.lit_at = 0.0
        self.shown_at = 0.0

    def display(self, image: Image.Image) -> None:
        super().display(image)
        d = self.director
        ui = d.ui.get(self.number) if d is not None else None
        if ui is not None and isinstance(ui.notice, v.VoteFeedback) and not self.shown.is_set():
            self.shown_at = time.perf_counter()
            self.shown.set()

    def set_led(self, rgb: RGB) -> None:
        super().set_led(rgb)
        if rgb == LED_VOTE and not self.lit.is_set():
            self.lit_at = time.perf_counter()
            self.lit.set()


def report(name: str, ms: list[float]) -> None:
    print(f"  {name:30} n={len(ms):4}  p50 {statistics.median(ms):6.2f} ms  p99 {pct(ms, 0.99):6.2f} ms  "
          f"max {max(ms):6.2f} ms")


class Game:
    """One game on its own loop and journal, the hardware thread raising hands at every vote call."""

    def __init__(self, args: argparse.Namespace, folder: Path, number: int, rng: random.Random) -> None:
        self.args = args
        self.rng = rng
        self.loop = asyncio.new_event_loop()
        self.table = ThreadedSimTable(args.players, self.loop, TimedSeat)
        clock = AsyncioScheduler(self.loop)
        config = configure(load_variant("standard-2.0"), args.players, {"vote.window_s": 30.0})
        voice = NullVoice(clock.now, part_seconds=0.002)
        timings = Timings(reveal_s=0.02, night_action_s=3600, speech_s=3600, last_words_s=3600, recognition_s=0.02,
                          answer_s=0.02, tally_s=0.02, defence_claim_s=0.02, direction_s=0.02, warnings_s=())
        self.journal = SqliteJournal(folder / f"game-{number}.sqlite")
        if args.writer == "thread":
            self.journal.start_writer(self.loop.call_soon_threadsafe)
        self.director = Director(self.table, voice, clock, config, journal=self.journal, timings=timings,
                                 seed=number)
        for seat in self.table.seats.values():
            assert isinstance(seat, TimedSeat)
            seat.director = self.director
        self.vote = threading.Event()
        #: The vote calls seen open, and those whose hands are raised (the windows themselves, kept alive: an id()
        #: of a finished window can come back for a new one).
        self.called: list[Window] = []
        self.raised: list[Window] = []
        self.window: Window | None = None
        self.director.listeners.append(self.on_window)
        self.led_ms: list[float] = []
        self.screen_ms: list[float] = []
        self.refused = 0

    def on_window(self, d: Director, w: Window) -> None:
        if w.kind == "vote" and w.window_open and w.step != "turn_vote" and not any(w is c for c in self.called):
            self.called.append(w)
            self.window = w
            self.vote.set()

    def hands(self) -> None:
        """Every living seat raises its hand within the burst, in a random order; then each one's LED and screen."""
        d = self.director
        assert d.state is not None
        seats = sorted(d.state.alive)
        offsets = sorted((self.rng.uniform(0, self.args.burst_ms / 1000), s) for s in seats)
        pressed: dict[int, float] = {}
        start = time.perf_counter()
        for at, s in offsets:
            seat = self.table.seats[s]
            assert isinstance(seat, TimedSeat)
            seat.lit.clear()
            seat.shown.clear()
            while (left := start + at - time.perf_counter()) > 0:
                time.sleep(left)
            pressed[s] = time.perf_counter()
            self.table.press(s, Button.OK)
            if self.args.burst_ms <= 0:  # one at a time: this hand's LED (or its refusal), then the next
                seat.lit.wait(0.5)
                time.sleep(0.002)
        for s, t0 in pressed.items():
            seat = self.table.seats[s]
            assert isinstance(seat, TimedSeat)
            if seat.lit.wait(1.0):  # a counted hand (a refused one lights nothing)
                self.led_ms.append((seat.lit_at - t0) * 1000)
                if seat.shown.wait(1.0):
                    self.screen_ms.append((seat.shown_at - t0) * 1000)
            else:
                self.refused += 1
            self.table.release(s, Button.OK)

    def hardware(self) -> None:
        d = self.director
        try:
            for _ in range(4000):  # bounded: a game that does not end by itself is cut off
                if d.stage == "over":
                    break
                if self.vote.wait(0.02):
                    self.vote.clear()
                    time.sleep(0.02)
                    call = self.window  # taken before the hands: a revote can open once they are all counted
                    self.hands()
                    if call is not None:
                        self.raised.append(call)
                    time.sleep(0.02)
                if d.stage == "play":  # the judge ends every wait but a vote whose hands are not raised yet
                    self.loop.call_soon_threadsafe(self.end_wait)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)

    def end_wait(self) -> None:
        """The judge's "end timer", except on a vote call whose hands are not all raised yet. (This runs on the
        loop, queued from the hardware thread: a vote call can open between the queueing and the run. Ending it
        then — as the benchmark once did, keyed on the call being *seen* rather than its hands being *raised* —
        closed the vote before anyone's hand, and every hand of that call was then refused as too late.)"""
        w = self.director.window
        if w is not None and (w.kind != "vote" or any(w is r for r in self.raised)):
            self.director.end_timer()

    def play(self) -> None:
        self.loop.call_soon(self.director.start)
        worker = threading.Thread(target=self.hardware, daemon=True)
        worker.start()
        self.loop.run_forever()
        worker.join(5)
        self.journal.close()
        self.loop.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fsync-ms", type=float, default=10.0)
    ap.add_argument("--writer", choices=("thread", "inline"), default="thread")
    ap.add_argument("--presses", type=int, default=400, help="counted hands to measure (whole games are played)")
    ap.add_argument("--players", type=int, default=16)
    ap.add_argument("--burst-ms", type=float, default=50.0, help="the hands of one call come within this")
    args = ap.parse_args()
    how = slow_fsync(args.fsync_ms) if args.fsync_ms > 0 else "fsync as the disk does it"
    rng = random.Random(17)
    led: list[float] = []
    screen: list[float] = []
    games = refused = commits = batches = 0
    with tempfile.TemporaryDirectory() as tmp:
        while len(led) < args.presses and games < 50:
            games += 1
            g = Game(args, Path(tmp), games, rng)
            writer = g.journal.writer
            g.play()
            led += g.led_ms
            screen += g.screen_ms
            refused += g.refused
            commits += getattr(writer, "commits", 0)
            batches += getattr(writer, "batches", 0)
    hands = f"hands of a call within {args.burst_ms:g} ms" if args.burst_ms > 0 else "one hand at a time"
    print(f"vote hand -> its LED and screen, real asyncio loop, real SQLite journal, {args.players} players, "
          f"{args.writer} writer; {how}; {hands}")
    print(f"  {games} games, {len(led)} counted hands ({refused} refused)")
    if args.writer == "thread" and commits:
        print(f"  writer thread: {batches} writes in {commits} commits ({batches / commits:.2f} writes per fsync)")
    if led:
        report("hand -> LED (blue)", led)
    if screen:
        report("hand -> screen (counted)", screen)


if __name__ == "__main__":
    main()
